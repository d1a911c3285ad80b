package deletes

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/magmalake/magmalake/lake"
)

// posDeleteBatchRows is how many positions one read of a position delete
// file decodes at a time.
const posDeleteBatchRows = 1 << 16

// readPositionDeletes reads a v2 position delete file into its positions by
// data file path. file_path is read as a dictionary: a delete file names a
// few data files many times over, and decoding every path as a string (a
// copy of ~100 bytes per deleted row, into a builder that regrows) was
// most of the cost of planning against such a file.
func readPositionDeletes(ctx context.Context, rd positionalReader, path string, size int64) (map[string][]int64, error) {
	sized, err := lake.OpenSized(rd.fs, path, size)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	planned := rd.reads.of(path) // the progress line's read of it, if any
	defer planned.Done()
	f := &countingFile{File: sized, fr: planned}
	defer f.Close()
	pr, err := file.NewParquetReader(f)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	defer pr.Close()
	sc := pr.MetaData().Schema
	pathCol, posCol := sc.ColumnIndexByName("file_path"), sc.ColumnIndexByName("pos")
	if pathCol < 0 || posCol < 0 {
		return nil, fmt.Errorf("position delete file %s has no file_path and pos columns", path)
	}
	props := pqarrow.ArrowReadProperties{BatchSize: posDeleteBatchRows}
	props.SetReadDict(pathCol, true)
	fr, err := pqarrow.NewFileReader(pr, props, rd.mem)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	lake.Prefetch(f, lake.ChunkRanges(pr.MetaData(), nil, []int{pathCol, posCol}))
	rr, err := fr.GetRecordReader(ctx, []int{pathCol, posCol}, nil)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	defer rr.Release()
	out := map[string][]int64{}
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		rec, err := rr.Read()
		if errors.Is(err, io.EOF) || (err == nil && rec == nil) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", path, err)
		}
		if err := addPositions(out, rec); err != nil {
			return nil, fmt.Errorf("read %s: %w", path, err)
		}
	}
}

// addPositions adds one batch of (file_path, pos) rows to out.
func addPositions(out map[string][]int64, rec arrow.RecordBatch) error {
	pi, qi := rec.Schema().FieldIndices("file_path"), rec.Schema().FieldIndices("pos")
	if len(pi) != 1 || len(qi) != 1 {
		return fmt.Errorf("unexpected position delete columns %v", rec.Schema())
	}
	pos, ok := rec.Column(qi[0]).(*array.Int64)
	if !ok {
		return fmt.Errorf("unexpected position delete pos column %s", rec.Column(qi[0]).DataType())
	}
	// file_path was asked for as a dictionary, which pqarrow gives whatever
	// the file's encoding (it builds one for plain pages).
	paths, ok := rec.Column(pi[0]).(*array.Dictionary)
	if !ok {
		return fmt.Errorf("unexpected position delete file_path column %s", rec.Column(pi[0]).DataType())
	}
	names, ok := paths.Dictionary().(*array.String)
	if !ok {
		return fmt.Errorf("unexpected position delete file_path dictionary %s", paths.Dictionary().DataType())
	}
	byKey := make([][]int64, names.Len())
	for i := range paths.Len() {
		k := paths.GetValueIndex(i)
		byKey[k] = append(byKey[k], pos.Value(i))
	}
	for k, ps := range byKey {
		if len(ps) > 0 {
			p := strings.Clone(names.Value(k)) // outlives the batch
			out[p] = append(out[p], ps...)
		}
	}
	return nil
}
