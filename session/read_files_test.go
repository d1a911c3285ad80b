package session

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/magmalake/magmalake/lake"
	"github.com/magmalake/magmalake/pgerr"
)

// fileSession is a session on an engine that may read files under roots.
func fileSession(t *testing.T, roots ...string) *Session {
	t.Helper()
	return testSessionOn(t, testEngineOptions(t, lake.Config{DataDir: t.TempDir()}, EngineOptions{FileReadRoots: roots}))
}

func writeFile(t *testing.T, path, text string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestReadCSVLayout: the header and the delimiter are detected as the
// rows say, names are made unique, and named options override detection.
func TestReadCSVLayout(t *testing.T) {
	dir := t.TempDir()
	s := fileSession(t, dir)
	cases := []struct {
		name, data, opts string
		cols             string // name:type, ...
		rows             string
	}{
		{"numbers only: no header", "1,2\n3,4\n", "", "column0:bigint,column1:bigint", "1|2\n3|4\n"},
		{"a byte order mark before the header", "\xef\xbb\xbfid,name\n1,x\n", "", "id:bigint,name:text", "1|x\n"},
		{"names over numbers", "a,b\n1,2\n", "", "a:bigint,b:bigint", "1|2\n"},
		{"all text: header", "name,city\nbob,paris\n", "", "name:text,city:text", "bob|paris\n"},
		{"one text row: a header alone", "a,b\n", "", "a:text,b:text", ""},
		{"one row with a number: data", "1,x\n", "", "column0:bigint,column1:text", "1|x\n"},
		{"header forced off", "a,b\n1,2\n", ", header = false", "column0:text,column1:text", "a|b\n1|2\n"},
		{"header forced on over numbers", "1,2\n3,4\n", ", header => true", "1:bigint,2:bigint", "3|4\n"},
		{"repeated and blank names", "a,a,\n1,2,3\n", "", "a:bigint,a_1:bigint,column2:bigint", "1|2|3\n"},
		{"semicolons", "a;b;c\n1;2,5;x\n", "", "a:bigint,b:text,c:text", "1|2,5|x\n"},
		{"tabs", "a\tb\n1\t2\n", "", "a:bigint,b:bigint", "1|2\n"},
		{"pipes with commas inside", "a|b\n1,1|2\n", "", "a:text,b:bigint", "1,1|2\n"},
		{"delimiter given", "a;b\n1;2\n", ", delim = ','", "a;b:text", "1;2\n"},
		{"nullstr", "a,b\n1,NA\nNA,2\n", ", nullstr = 'NA'", "a:bigint,b:bigint", "1|NULL\nNULL|2\n"},
		{"all_varchar", "a,b\n1,2\n", ", all_varchar = true, header = true", "a:text,b:text", "1|2\n"},
		{"quote and escape", "a,b\n'x,y',1\n'it\\'s',2\n", ", quote = '''', escape = '\\'", "a:text,b:bigint", "x,y|1\nit's|2\n"},
	}
	for i, c := range cases {
		p := writeFile(t, filepath.Join(dir, fmt.Sprintf("layout%d.csv", i)), c.data)
		from := "read_csv('" + p + "'" + c.opts + ")"
		var cols []string
		res, err := s.Prepare(context.Background(), "SELECT * FROM "+from, nil)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		for _, col := range res.Columns {
			cols = append(cols, col.Name+":"+col.Type.String())
		}
		if got := strings.Join(cols, ","); got != c.cols {
			t.Errorf("%s: columns %s, want %s", c.name, got, c.cols)
		}
		if got := mustQuery(t, s, "SELECT * FROM "+from).text(); got != c.rows {
			t.Errorf("%s: rows\n%s want\n%s", c.name, got, c.rows)
		}
	}
}

// TestReadCSVSampleHint: a value past the sample that does not fit its
// column's inferred type fails with its line, and the hint names the way
// out; sample_size = -1 infers from the whole file.
func TestReadCSVSampleHint(t *testing.T) {
	dir := t.TempDir()
	s := fileSession(t, dir)
	var b strings.Builder
	b.WriteString("id,v\n")
	for i := 1; i <= 60; i++ {
		v := fmt.Sprint(i)
		if i == 55 {
			v = "n/a"
		}
		fmt.Fprintf(&b, "%d,%s\n", i, v)
	}
	p := writeFile(t, filepath.Join(dir, "late.csv"), b.String())
	_, err := s.query(context.Background(), "SELECT sum(v) FROM read_csv('"+p+"', sample_size = 50)")
	var se *pgerr.Error
	if !errors.As(err, &se) || se.Code != pgerr.InvalidTextRepresentation {
		t.Fatalf("got %v, want 22P02", err)
	}
	if !strings.Contains(se.Message, "line 56, column v") || !strings.Contains(se.Hint, "sample_size = -1") {
		t.Errorf("message %q, hint %q", se.Message, se.Hint)
	}
	if got := mustQuery(t, s, "SELECT pg_typeof(v)::text, count(*) FROM read_csv('"+p+"', sample_size = -1) GROUP BY 1").text(); got != "text|60\n" {
		t.Errorf("whole-file inference: %q", got)
	}
	if got := mustQuery(t, s, "SELECT count(*), sum(id) FROM read_csv('"+p+"')").text(); got != "60|1830\n" {
		t.Errorf("default sample: %q", got)
	}
	mustFail(t, s, pgerr.BadCopyFileFormat, "SELECT * FROM read_csv('"+writeFile(t, filepath.Join(dir, "ragged.csv"), "a,b\n1,2\n3\n")+"')")
	mustFail(t, s, pgerr.BadCopyFileFormat, "SELECT * FROM read_csv('"+writeFile(t, filepath.Join(dir, "empty.csv"), "")+"')")
}

// TestReadFilesAccess: files are read only under the engine's roots, with
// symbolic links resolved; PostgreSQL's codes for missing files and
// directories; options and arguments are checked.
func TestReadFilesAccess(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	in := writeFile(t, filepath.Join(root, "in.csv"), "a\n1\n")
	out := writeFile(t, filepath.Join(outside, "out.csv"), "a\n2\n")
	link := filepath.Join(root, "link.csv")
	if err := os.Symlink(out, link); err != nil {
		t.Fatal(err)
	}
	s := fileSession(t, root)
	if got := mustQuery(t, s, "SELECT a FROM read_csv('"+in+"')").text(); got != "1\n" {
		t.Errorf("inside the root: %q", got)
	}
	for q, code := range map[string]pgerr.Code{
		"SELECT * FROM read_csv('" + out + "')":                                            pgerr.InsufficientPrivilege,
		"SELECT * FROM read_csv('" + link + "')":                                           pgerr.InsufficientPrivilege,
		"SELECT * FROM read_csv('" + root + "/../" + filepath.Base(outside) + "/out.csv')": pgerr.InsufficientPrivilege,
		"SELECT * FROM read_csv('" + root + "/missing.csv')":                               pgerr.UndefinedFile,
		"SELECT * FROM read_csv('" + root + "/*.tsv')":                                     pgerr.UndefinedFile,
		"SELECT * FROM read_csv('" + root + "')":                                           pgerr.WrongObjectType,
		"SELECT * FROM read_csv('" + in + "', colour = 'red')":                             pgerr.InvalidParameterValue,
		"SELECT * FROM read_csv('" + in + "', header = 'yes')":                             pgerr.InvalidParameterValue,
		"SELECT * FROM read_csv('" + in + "', delim = ',,')":                               pgerr.InvalidParameterValue,
		"SELECT * FROM read_csv('" + in + "', header = true, header = false)":              pgerr.SyntaxError,
		"SELECT * FROM read_parquet('" + in + "', header = true)":                          pgerr.InvalidParameterValue,
		"SELECT * FROM read_parquet('" + in + "')":                                         pgerr.BadCopyFileFormat,
		"SELECT * FROM read_csv()":                                                         pgerr.UndefinedFunction,
		"SELECT * FROM read_csv(1)":                                                        pgerr.InvalidParameterValue,
	} {
		mustFail(t, s, code, q)
	}
	if _, err := s.Prepare(context.Background(), "SELECT * FROM read_csv($1)", nil); !hasCode(err, pgerr.FeatureNotSupported) {
		t.Errorf("a parameter as the path: %v", err)
	}
	// An engine with no roots (a server without --allow-file-read) reads nothing.
	none := fileSession(t)
	mustFail(t, none, pgerr.InsufficientPrivilege, "SELECT * FROM read_csv('"+in+"')")
	if got := mustQuery(t, s, "SELECT 1").text(); got != "1\n" {
		t.Errorf("the session is unusable after the errors: %q", got)
	}
}

func hasCode(err error, code pgerr.Code) bool {
	var se *pgerr.Error
	return errors.As(err, &se) && se.Code == code
}
