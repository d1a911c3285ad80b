package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/magmalake/magmalake/internal/cli"
)

// The shell refuses invalid UTF-8 and NUL bytes in what it reads, as the
// wire does (issue 19): 22021 with PostgreSQL's message, nothing stored,
// and the next statement runs.
func TestReplRefusesInvalidUTF8(t *testing.T) {
	dir := t.TempDir()
	script := "CREATE TABLE u (s text);\n" +
		"INSERT INTO u VALUES ('a\xff\xfeb');\n" +
		"SELECT count(*) AS n FROM u;\n"
	in := filepath.Join(dir, "script.sql")
	if err := os.WriteFile(in, []byte(script), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(in)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out, errOut strings.Builder
	run(t.Context(), []string{"repl", "--data", filepath.Join(dir, "data")}, envMap(nil), cli.Stdio{In: f, Out: &out, Err: &errOut})
	if !strings.Contains(errOut.String(), `invalid byte sequence for encoding "UTF8": 0xff`) {
		t.Fatalf("stderr %q", errOut.String())
	}
	f2, err := os.Open(in)
	if err != nil {
		t.Fatal(err)
	}
	defer f2.Close()
	out.Reset()
	run(t.Context(), []string{"repl", "--data", filepath.Join(dir, "data"), "-c", "SELECT count(*) AS n FROM u"}, envMap(nil), cli.Stdio{In: f2, Out: &out, Err: &errOut})
	if !strings.Contains(out.String(), " 0\n") {
		t.Fatalf("the table holds rows after the refused INSERT:\n%s", out.String())
	}
}
