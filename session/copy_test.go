package session

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/magmalake/magmalake/lake"
	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql"
	"github.com/magmalake/magmalake/stmt"
)

// copySession is testSession with a small batch size (so COPY streams
// several batches) and the data directory, to look for stray files.
func copySession(t *testing.T) (*Session, string) {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	wh, err := lake.Open(ctx, lake.Config{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { wh.Close() })
	eng, err := NewEngine(ctx, wh, EngineOptions{BatchSize: 3})
	if err != nil {
		t.Fatal(err)
	}
	s := eng.NewSession(stmt.SessionInfo{User: "tester", Database: "db"})
	t.Cleanup(s.Close)
	return s, dir
}

// copyIn runs a COPY ... FROM STDIN statement with data as the client's stream.
func copyIn(s *Session, q, data string) (int64, error) {
	ctx := context.Background()
	p, err := s.Prepare(ctx, q, nil)
	if err != nil {
		return 0, err
	}
	if p.Columns != nil {
		return 0, fmt.Errorf("COPY FROM has a row description %v", p.Columns)
	}
	res, err := s.Execute(ctx, p, nil)
	if err != nil {
		return 0, err
	}
	if res.CopyIn == nil {
		return 0, fmt.Errorf("COPY FROM did not ask for data: %+v", res)
	}
	return res.CopyIn.Load(ctx, strings.NewReader(data))
}

func mustCopyIn(t *testing.T, s *Session, q, data string, want int64) {
	t.Helper()
	n, err := copyIn(s, q, data)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	if n != want {
		t.Fatalf("%s: loaded %d rows, want %d", q, n, want)
	}
}

func dataFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".parquet") {
			out = append(out, p)
		}
		return nil
	})
	return out
}

func TestCopyFromText(t *testing.T) {
	s, _ := copySession(t)
	mustQuery(t, s, "CREATE TABLE t (id int NOT NULL, name text, score double precision, d date)")
	// Each input line and the row it must produce, written independently.
	cases := []struct{ line, want string }{
		{"1\tplain\t1.5\t2024-01-02", "1|plain|1.5|2024-01-02"},
		{"2\ttab\\there\t\\N\t\\N", "2|tab\there|NULL|NULL"},
		{"3\tnl\\nand\\\\slash\t-2\t2000-02-29", "3|nl\nand\\slash|-2|2000-02-29"},
		{"4\t\\101\\x42\\q\t0\t\\N", "4|ABq|0|NULL"},
		{"5\t\t7\t\\N", "5||7|NULL"},
		{"6\tescaped \\\nnewline\t1\t\\N", "6|escaped \nnewline|1|NULL"},
		{"7\tcrlf\t2\t2020-01-01\r", "7|crlf|2|2020-01-01"},
	}
	var in, want strings.Builder
	for _, c := range cases {
		in.WriteString(c.line + "\n")
		want.WriteString(c.want + "\n")
	}
	mustCopyIn(t, s, "COPY t FROM STDIN", in.String(), int64(len(cases)))
	if got := mustQuery(t, s, "SELECT * FROM t ORDER BY id").text(); got != want.String() {
		t.Fatalf("rows:\n%s\nwant:\n%s", got, want.String())
	}
	if r := mustQuery(t, s, `SELECT count(*) FROM "t$snapshots"`); r.rows[0][0] != "1" {
		t.Fatalf("%d batches committed as %s snapshots, want 1", len(cases), r.rows[0][0])
	}
}

func TestCopyFromTextOptions(t *testing.T) {
	s, _ := copySession(t)
	mustQuery(t, s, "CREATE TABLE t (a int, b text, c text)")
	// Column list: c is not given and gets NULL; custom delimiter and NULL;
	// \. ends the data and what follows is ignored; no final newline needed.
	mustCopyIn(t, s, "COPY t (b, a) FROM STDIN WITH (DELIMITER '|', NULL 'nil')",
		"x|1\nnil|2\n\\N|nil\n\\.\nignored|9\n", 3)
	mustCopyIn(t, s, "COPY t FROM STDIN", "4\tlast\tz", 1)
	// With NULL 'nil', \N is an escaped N.
	want := "1|x|NULL\n2|NULL|NULL\n4|last|z\nNULL|N|NULL\n"
	if got := mustQuery(t, s, "SELECT a, b, c FROM t ORDER BY a NULLS LAST").text(); got != want {
		t.Fatalf("rows:\n%s\nwant:\n%s", got, want)
	}
	mustCopyIn(t, s, "COPY t FROM STDIN WITH (HEADER)", "a\tb\tc\n5\th\t\\N\n", 1)
	if r := mustQuery(t, s, "SELECT b FROM t WHERE a = 5"); r.text() != "h\n" {
		t.Fatalf("after header: %q", r.text())
	}
	mustCopyIn(t, s, "COPY t FROM STDIN", "", 0)
	if r := mustQuery(t, s, `SELECT count(*) FROM "t$snapshots"`); r.rows[0][0] != "3" {
		t.Fatalf("an empty COPY committed a snapshot: %s snapshots, want 3", r.rows[0][0])
	}
}

func TestCopyFromCSV(t *testing.T) {
	s, _ := copySession(t)
	mustQuery(t, s, "CREATE TABLE t (id bigint, s text, n numeric(6,2))")
	in := "id,s,n\n" +
		"1,plain,1.50\n" +
		"2,\"with, comma\",\n" +
		"3,\"\",2\n" +
		"4,\"multi\nline \"\"quoted\"\"\",-3.25\n" +
		"5,a\"b,c\"d,0\n" +
		"6,\\N,7\r\n"
	mustCopyIn(t, s, "COPY t FROM STDIN WITH (FORMAT csv, HEADER true)", in, 6)
	want := []string{"1|plain|1.50", "2|with, comma|NULL", "3||2.00", "4|multi\nline \"quoted\"|-3.25", "5|ab,cd|0.00", "6|\\N|7.00"}
	if got := mustQuery(t, s, "SELECT * FROM t ORDER BY id").text(); got != strings.Join(want, "\n")+"\n" {
		t.Fatalf("rows:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
	}
	// Empty string vs NULL: unquoted empty is NULL, quoted empty is ''.
	if r := mustQuery(t, s, "SELECT count(*) FROM t WHERE s = ''"); r.rows[0][0] != "1" {
		t.Fatalf("quoted empty strings: %v", r.rows)
	}
	// Legacy syntax with custom quote, escape and NULL.
	mustCopyIn(t, s, `COPY t FROM STDIN WITH CSV DELIMITER ';' QUOTE '''' ESCAPE '\' NULL 'NA'`,
		"7;'it\\'s; fine';NA\n8;NA;1\n", 2)
	if got := mustQuery(t, s, "SELECT id, s, n FROM t WHERE id >= 7 ORDER BY id").text(); got != "7|it's; fine|NULL\n8|NULL|1.00\n" {
		t.Fatalf("custom quote/escape:\n%s", got)
	}
}

func TestCopyFromBadRowCommitsNothing(t *testing.T) {
	s, dir := copySession(t)
	mustQuery(t, s, "CREATE TABLE t (id int NOT NULL, x int, v text)")
	mustCopyIn(t, s, "COPY t FROM STDIN", "0\t0\tok\n", 1)
	before := dataFiles(t, dir)
	// Bad lines come after several full batches (batch size 3) so files
	// have already been written when the error strikes.
	good := strings.Repeat("1\t1\ta\n", 7)
	cases := []struct {
		name, q, data string
		code          pgerr.Code
		where         string
	}{
		{"bad int", "COPY t FROM STDIN", good + "2\tabc\tb\n", pgerr.InvalidTextRepresentation, "COPY t, line 8, column x: "},
		{"out of range", "COPY t FROM STDIN", good + "99999999999\t1\tb\n", pgerr.NumericValueOutOfRange, "COPY t, line 8, column id: "},
		{"missing column", "COPY t FROM STDIN", good + "2\t2\n", pgerr.BadCopyFileFormat, "COPY t, line 8: missing data for column \"v\""},
		{"extra column", "COPY t FROM STDIN", good + "2\t2\tb\tc\n", pgerr.BadCopyFileFormat, "COPY t, line 8: extra data after last expected column"},
		{"not null", "COPY t FROM STDIN", good + "\\N\t2\tb\n", pgerr.NotNullViolation, "COPY t, line 8: null value in column \"id\""},
		{"not null by omission", "COPY t (x) FROM STDIN", "1\n", pgerr.NotNullViolation, "COPY t, line 1: "},
		{"csv header counts", "COPY t FROM STDIN (FORMAT csv, HEADER)", "h\n1,1,a\n1,x,a\n", pgerr.InvalidTextRepresentation, "COPY t, line 3, column x: "},
		{"unterminated quote", "COPY t FROM STDIN (FORMAT csv)", good2csv(good) + "1,1,\"abc\n", pgerr.BadCopyFileFormat, "COPY t, line 8: unterminated CSV quoted field"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := copyIn(s, c.q, c.data)
			var se *pgerr.Error
			if !errors.As(err, &se) || se.Code != c.code || !strings.HasPrefix(se.Message, c.where) {
				t.Fatalf("want %s %q..., got %v", c.code, c.where, err)
			}
			if r := mustQuery(t, s, "SELECT count(*) FROM t"); r.rows[0][0] != "1" {
				t.Fatalf("a failed COPY left %s rows, want 1", r.rows[0][0])
			}
			if after := dataFiles(t, dir); len(after) != len(before) {
				t.Fatalf("a failed COPY left files: %d before, %d after", len(before), len(after))
			}
		})
	}
}

func good2csv(text string) string { return strings.ReplaceAll(text, "\t", ",") }

func TestCopyStatementErrors(t *testing.T) {
	s, _ := copySession(t)
	mustQuery(t, s, "CREATE TABLE t (a int, b text)")
	mustFail(t, s, pgerr.UndefinedTable, "COPY missing FROM STDIN")
	mustFail(t, s, pgerr.UndefinedColumn, "COPY t (zz) FROM STDIN")
	mustFail(t, s, pgerr.UndefinedColumn, "COPY t (zz) TO STDOUT")
	mustFail(t, s, pgerr.DuplicateColumn, "COPY t (a, a) FROM STDIN")
	mustFail(t, s, pgerr.FeatureNotSupported, "COPY t FROM STDIN (FORMAT binary)")
	mustFail(t, s, pgerr.FeatureNotSupported, "COPY t FROM STDIN (DELIMITER '||')")
	mustFail(t, s, pgerr.FeatureNotSupported, "COPY t FROM STDIN (QUOTE '\"')")
	mustFail(t, s, pgerr.InvalidParameterValue, "COPY t FROM STDIN (FORMAT csv, DELIMITER '\"')")
	mustFail(t, s, pgerr.WrongObjectType, `COPY "t$files" FROM STDIN`)
}

// copyOut runs COPY ... TO STDOUT and renders its rows as the result helper does.
func copyOut(t *testing.T, s *Session, q string) (*stmt.Result, string) {
	t.Helper()
	ctx := context.Background()
	p, err := s.Prepare(ctx, q, nil)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	res, err := s.Execute(ctx, p, nil)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	if !res.CopyOut || res.Rows == nil {
		t.Fatalf("%s: not a COPY OUT result: %+v", q, res)
	}
	defer res.Rows.Close()
	var b strings.Builder
	for {
		batch, err := res.Rows.Next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		for r := 0; r < int(batch.NumRows()); r++ {
			for c := 0; c < int(batch.NumCols()); c++ {
				if c > 0 {
					b.WriteByte('|')
				}
				if batch.Column(c).IsNull(r) {
					b.WriteString("NULL")
				} else {
					b.Write(sql.AppendText(nil, res.Columns[c].Type, batch.Column(c), r))
				}
			}
			b.WriteByte('\n')
		}
	}
	return res, b.String()
}

func TestCopyTo(t *testing.T) {
	s, _ := copySession(t)
	mustQuery(t, s, "CREATE TABLE t (a int, b text)")
	mustQuery(t, s, "INSERT INTO t VALUES (1, 'x'), (2, NULL), (3, 'z')")
	want := mustQuery(t, s, "SELECT * FROM t").text()
	if res, got := copyOut(t, s, "COPY t TO STDOUT"); got != want || res.CopyCSV {
		t.Fatalf("COPY t: %q (csv %v), want %q", got, res.CopyCSV, want)
	}
	want = mustQuery(t, s, "SELECT b FROM t").text()
	if res, got := copyOut(t, s, "COPY t (b) TO STDOUT WITH (FORMAT csv)"); got != want || !res.CopyCSV || len(res.Columns) != 1 {
		t.Fatalf("COPY t (b) csv: %q, want %q", got, want)
	}
	if _, got := copyOut(t, s, "COPY (SELECT a * 10, b FROM t WHERE a > 1 ORDER BY a) TO STDOUT"); got != "20|NULL\n30|z\n" {
		t.Fatalf("COPY (query): %q", got)
	}
	layouts := []struct {
		q    string
		want stmt.CopyOutFormat
	}{
		{"COPY t TO STDOUT", stmt.CopyOutFormat{Delimiter: '\t', Null: `\N`}},
		{"COPY t TO STDOUT WITH (FORMAT csv, HEADER, DELIMITER ';', NULL 'x', QUOTE '''', ESCAPE '!')",
			stmt.CopyOutFormat{CSV: true, Header: true, Delimiter: ';', Null: "x", Quote: '\'', Escape: '!'}},
		{"COPY t TO STDOUT WITH CSV HEADER", stmt.CopyOutFormat{CSV: true, Header: true, Delimiter: ',', Quote: '"', Escape: '"'}},
		{"COPY t TO STDOUT (HEADER, DELIMITER '|', NULL '')", stmt.CopyOutFormat{Header: true, Delimiter: '|'}},
	}
	for _, l := range layouts {
		if res, _ := copyOut(t, s, l.q); res.CopyLayout() != l.want {
			t.Errorf("%s: layout %+v, want %+v", l.q, res.CopyLayout(), l.want)
		}
	}
}

// A COPY round trip: what COPY TO writes in text format, COPY FROM reads back
// to the same rows, including every escape the writer produces.
func TestCopyRoundTripEscapes(t *testing.T) {
	s, _ := copySession(t)
	mustQuery(t, s, "CREATE TABLE t (id int, v text)")
	vals := []string{"tab\t", "nl\n", "cr\r", "back\\slash", "\\N", "", "ünï", "bs\b ff\f vt\v"}
	var in strings.Builder
	for i, v := range vals {
		r := strings.NewReplacer("\\", `\\`, "\t", `\t`, "\n", `\n`, "\r", `\r`, "\b", `\b`, "\f", `\f`, "\v", `\v`)
		fmt.Fprintf(&in, "%d\t%s\n", i, r.Replace(v))
	}
	mustCopyIn(t, s, "COPY t FROM STDIN", in.String(), int64(len(vals)))
	r := mustQuery(t, s, "SELECT id, v FROM t ORDER BY id")
	for i, v := range vals {
		if r.rows[i][1] != v {
			t.Errorf("row %d: %q, want %q", i, r.rows[i][1], v)
		}
	}
}
