package copyio

import (
	"bufio"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/plan"
	"github.com/magmalake/magmalake/sql"
)

// defaultCSVSample is how many rows read_csv infers column types from
// unless sample_size says otherwise (DuckDB's default).
const defaultCSVSample = 20480

// csvOptions are read_csv's named arguments, DuckDB's spellings.
type csvOptions struct {
	header      *bool // nil: detect
	delim       byte  // 0: detect
	quote       byte
	escape      byte
	null        string
	allVarchar  bool
	sample      int // rows; -1: the whole first file
	compression string
}

// csvRelation is read_csv's files: one layout, columns inferred from the
// first file.
type csvRelation struct {
	fn     string
	paths  []string
	o      csvOptions
	f      copyFormat
	cols   []sql.Column
	in     sql.InputStyle
	batch  int
	sample int // data rows the types were inferred from
}

func parseCSVOptions(call plan.FileCall) (csvOptions, error) {
	o := csvOptions{quote: '"', sample: defaultCSVSample, compression: "auto"}
	escapeSet := false
	for name, v := range call.Options {
		var err error
		switch name {
		case "header":
			var b bool
			b, err = boolOption(call.Function, name, v)
			o.header = &b
		case "delim", "sep", "delimiter":
			o.delim, err = byteOption(call.Function, name, v)
		case "quote":
			o.quote, err = byteOption(call.Function, name, v)
		case "escape":
			o.escape, err = byteOption(call.Function, name, v)
			escapeSet = true
		case "nullstr", "null":
			o.null, err = stringOption(call.Function, name, v)
		case "all_varchar":
			o.allVarchar, err = boolOption(call.Function, name, v)
		case "sample_size":
			o.sample, err = intOption(call.Function, name, v)
			if err == nil && (o.sample == 0 || o.sample < -1) {
				err = pgerr.Errorf(pgerr.InvalidParameterValue, "sample_size of %s must be positive, or -1 for the whole file", call.Function)
			}
		case "compression":
			o.compression, err = stringOption(call.Function, name, v)
			if err == nil && o.compression != "auto" && o.compression != "gzip" && o.compression != "none" {
				err = pgerr.Errorf(pgerr.InvalidParameterValue, "compression of %s must be auto, gzip or none", call.Function)
			}
		default:
			err = pgerr.Errorf(pgerr.InvalidParameterValue, "%s has no option %q (it takes header, delim, quote, escape, nullstr, all_varchar, sample_size, compression)", call.Function, name)
		}
		if err != nil {
			return o, err
		}
	}
	if !escapeSet {
		o.escape = o.quote
	}
	return o, nil
}

func boolOption(fn, name string, v any) (bool, error) {
	if b, ok := v.(bool); ok {
		return b, nil
	}
	return false, pgerr.Errorf(pgerr.InvalidParameterValue, "option %s of %s must be true or false", name, fn)
}

func stringOption(fn, name string, v any) (string, error) {
	if s, ok := v.(string); ok {
		return s, nil
	}
	return "", pgerr.Errorf(pgerr.InvalidParameterValue, "option %s of %s must be a string", name, fn)
}

func byteOption(fn, name string, v any) (byte, error) {
	s, err := stringOption(fn, name, v)
	if err == nil && len(s) != 1 {
		err = pgerr.Errorf(pgerr.InvalidParameterValue, "option %s of %s must be a single one-byte character", name, fn)
	}
	if err != nil {
		return 0, err
	}
	return s[0], nil
}

func intOption(fn, name string, v any) (int, error) {
	if n, ok := v.(int64); ok {
		return int(n), nil
	}
	return 0, pgerr.Errorf(pgerr.InvalidParameterValue, "option %s of %s must be an integer", name, fn)
}

// openCSVFiles sniffs the first file: its delimiter, whether it starts
// with a header, and each column's type over the sample.
func openCSVFiles(ctx context.Context, call plan.FileCall, paths []string, in sql.InputStyle, batch int) (plan.FileRelation, error) {
	o, err := parseCSVOptions(call)
	if err != nil {
		return nil, err
	}
	r := &csvRelation{fn: call.Function, paths: paths, o: o, in: in, batch: batch}
	if err := r.sniff(ctx); err != nil {
		return nil, err
	}
	return r, nil
}

// open opens one file, decompressing it if asked or named .gz, past a
// UTF-8 byte order mark (spreadsheets write one).
func (r *csvRelation) open(path string) (io.ReadCloser, error) {
	f, err := r.openRaw(path)
	if err != nil {
		return nil, err
	}
	br := bufio.NewReader(f)
	if bom, err := br.Peek(3); err == nil && string(bom) == "\xef\xbb\xbf" {
		br.Discard(3)
	}
	return struct {
		io.Reader
		io.Closer
	}{br, f}, nil
}

func (r *csvRelation) openRaw(path string) (io.ReadCloser, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, pgerr.Errorf(pgerr.IOError, "could not open file %q for reading: %v", path, errors.Unwrap(err))
	}
	if r.o.compression == "gzip" || r.o.compression == "auto" && strings.HasSuffix(path, ".gz") {
		z, err := gzip.NewReader(f)
		if err != nil {
			f.Close()
			return nil, pgerr.Errorf(pgerr.BadCopyFileFormat, "%s: %s is not a gzip file", r.fn, path)
		}
		return struct {
			io.Reader
			io.Closer
		}{z, f}, nil
	}
	return f, nil
}

// sniff reads the sample of the first file and settles the layout.
func (r *csvRelation) sniff(ctx context.Context) error {
	rows, err := r.sampleRows(ctx)
	if err != nil {
		return err
	}
	width := 0
	if len(rows) > 0 {
		width = len(rows[0])
	}
	if width == 0 {
		return pgerr.Errorf(pgerr.BadCopyFileFormat, "%s: %s is empty; there are no columns to read", r.fn, r.paths[0])
	}
	// The other rows' types decide the header and, with one, are the types.
	rest := inferCSVTypes(rows[1:], width, false, r.in)
	header := r.o.header != nil && *r.o.header
	if r.o.header == nil {
		header = looksLikeHeader(rows, rest, r.in)
	}
	types := rest
	switch {
	case r.o.allVarchar:
		types = inferCSVTypes(nil, width, true, r.in)
	case !header:
		types = inferCSVTypes(rows, width, false, r.in)
	}
	r.f.header = header
	r.sample = len(rows)
	if header {
		r.sample--
	}
	names := csvColumnNames(rows, width, header)
	for i := range width {
		r.cols = append(r.cols, sql.Column{Name: names[i], Type: types[i]})
	}
	return nil
}

// sampleRows reads the first file's first rows (one more than the sample,
// for the header), choosing the delimiter first if none was given.
func (r *csvRelation) sampleRows(ctx context.Context) ([][]copyField, error) {
	f, err := r.open(r.paths[0])
	if err != nil {
		return nil, err
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, sniffHead)
	if r.o.delim == 0 {
		head, err := br.Peek(sniffHead)
		if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
			return nil, pgerr.Errorf(pgerr.IOError, "could not read file %q: %v", r.paths[0], err)
		}
		r.o.delim = r.sniffDelimiter(head)
	}
	r.f = copyFormat{csv: true, delim: r.o.delim, quote: r.o.quote, escape: r.o.escape, null: r.o.null}
	if r.o.quote == r.o.delim {
		return nil, pgerr.Errorf(pgerr.InvalidParameterValue, "%s: the delimiter and the quote must be different", r.fn)
	}
	rd := newCopyReader(br, r.f)
	var rows [][]copyField
	for r.o.sample < 0 || len(rows) <= r.o.sample {
		if err := ctx.Err(); err != nil {
			return nil, pgerr.Canceled(err)
		}
		fields, err := rd.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, r.lineError(r.paths[0], rd.line, "", err)
		}
		rows = append(rows, append([]copyField(nil), fields...))
	}
	return rows, nil
}

// csvDelimiters are the delimiters read_csv detects, in order of preference.
var csvDelimiters = []byte{',', '\t', '|', ';'}

// sniffHead is how much of the first file the delimiter is chosen from.
const sniffHead = 64 << 10

// sniffDelimiter picks the delimiter that splits the first lines of head
// into the same number (more than one) of fields most often.
func (r *csvRelation) sniffDelimiter(head []byte) byte {
	lines := strings.Split(string(head), "\n")
	if len(head) == sniffHead && len(lines) > 1 {
		lines = lines[:len(lines)-1] // the last one may be cut
	}
	lines = lines[:min(len(lines), 50)]
	best, bestScore := byte(','), 0
	for _, d := range csvDelimiters {
		if score := delimiterScore(lines, d, r.o.quote); score > bestScore {
			best, bestScore = d, score
		}
	}
	return best
}

// delimiterScore counts the lines that have as many fields as the first,
// when that is more than one.
func delimiterScore(lines []string, d, quote byte) int {
	want, score := -1, 0
	for _, l := range lines {
		l = strings.TrimSuffix(l, "\r")
		if l == "" {
			continue
		}
		n := countOutsideQuotes(l, d, quote) + 1
		if want < 0 {
			want = n
		}
		if n == want && n > 1 {
			score++
		}
	}
	return score
}

func countOutsideQuotes(s string, d, quote byte) int {
	n, in := 0, false
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case quote:
			in = !in
		case d:
			if !in {
				n++
			}
		}
	}
	return n
}

// csvColumnNames are the header's names (blank ones column<i>, repeated
// ones suffixed _1, _2 ...) or column0, column1 ... without a header.
func csvColumnNames(rows [][]copyField, width int, header bool) []string {
	names := make([]string, width)
	seen := map[string]int{}
	for i := range names {
		name := fmt.Sprintf("column%d", i)
		if header && i < len(rows[0]) && !rows[0][i].null && strings.TrimSpace(rows[0][i].val) != "" {
			name = rows[0][i].val
		}
		if k, dup := seen[name]; dup {
			seen[name] = k + 1
			name = fmt.Sprintf("%s_%d", name, k+1)
		}
		seen[name] = 0
		names[i] = name
	}
	return names
}

func (r *csvRelation) Columns() []sql.Column { return r.cols }

func (r *csvRelation) Batches(ctx context.Context, cols []int) (iter.Seq2[arrow.RecordBatch, error], error) {
	fields := make([]arrow.Field, len(cols))
	for i, c := range cols {
		fields[i] = arrow.Field{Name: r.cols[c].Name, Type: r.cols[c].Type.ArrowType(), Nullable: true}
	}
	schema := arrow.NewSchema(fields, nil)
	return func(yield func(arrow.RecordBatch, error) bool) {
		for _, path := range r.paths {
			if !r.readFile(ctx, path, schema, cols, yield) {
				return
			}
		}
	}, nil
}

// readFile yields path's rows in batches; false when the stream ended
// (an error was yielded or the consumer stopped).
func (r *csvRelation) readFile(ctx context.Context, path string, schema *arrow.Schema, cols []int, yield func(arrow.RecordBatch, error) bool) bool {
	f, err := r.open(path)
	if err != nil {
		yield(nil, err)
		return false
	}
	defer f.Close()
	rd := newCopyReader(f, r.f)
	for {
		if err := ctx.Err(); err != nil {
			yield(nil, pgerr.Canceled(err))
			return false
		}
		b, err := r.nextBatch(rd, path, schema, cols)
		if err != nil {
			yield(nil, err)
			return false
		}
		if b == nil {
			return true
		}
		if !yield(b, nil) {
			return false
		}
	}
}

// nextBatch reads up to one batch of rows; nil at the end of the file.
func (r *csvRelation) nextBatch(rd *copyReader, path string, schema *arrow.Schema, cols []int) (arrow.RecordBatch, error) {
	bld := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer bld.Release()
	rows := 0
	for rows < r.batch {
		rec, err := rd.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, r.lineError(path, rd.line, "", err)
		}
		if len(rec) != len(r.cols) {
			return nil, r.lineError(path, rd.line, "", pgerr.Errorf(pgerr.BadCopyFileFormat,
				"expected %d fields, found %d", len(r.cols), len(rec)))
		}
		for i, c := range cols {
			if err := appendCSVValue(bld.Field(i), r.cols[c].Type, rec[c], r.in); err != nil {
				return nil, r.valueError(path, rd.line, r.cols[c], err)
			}
		}
		rows++
	}
	if rows == 0 {
		return nil, nil
	}
	if len(cols) == 0 {
		// No column read (count(*)): the batch carries only its length.
		return array.NewRecordBatch(schema, nil, int64(rows)), nil
	}
	return bld.NewRecordBatch(), nil
}

func appendCSVValue(b array.Builder, t sql.Type, f copyField, in sql.InputStyle) error {
	if f.null {
		b.AppendNull()
		return nil
	}
	if t.Kind == sql.KindText {
		b.(*array.StringBuilder).Append(f.val)
		return nil
	}
	return in.AppendValue(b, t, f.val)
}

// valueError is a value that does not fit its inferred column type: past
// the sample the hint says how to widen the inference.
func (r *csvRelation) valueError(path string, line int64, col sql.Column, err error) error {
	out := r.lineError(path, line, col.Name, err)
	var se *pgerr.Error
	if errors.As(out, &se) && r.o.sample >= 0 && !r.o.allVarchar {
		se.Hint = fmt.Sprintf("The type of column %q (%s) was inferred from the first %d rows of %s; pass sample_size = -1 to read the whole file first, or all_varchar = true.",
			col.Name, col.Type, r.sample, r.paths[0])
	}
	return out
}

// lineError prefixes err with where it happened, keeping its SQLSTATE.
func (r *csvRelation) lineError(path string, line int64, column string, err error) error {
	where := fmt.Sprintf("%s(%q), line %d", r.fn, path, line)
	if column != "" {
		where += ", column " + column
	}
	var se *pgerr.Error
	if !errors.As(err, &se) {
		return pgerr.Errorf(pgerr.BadCopyFileFormat, "%s: %v", where, err)
	}
	out := *se
	out.Message = where + ": " + se.Message
	out.Err = err
	return &out
}
