package repl

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/magmalake/magmalake/sql"
	"github.com/magmalake/magmalake/stmt"
)

// A shell on canned answers: one query with numbers, text, booleans,
// NULL, a NaN and the characters json and markdown escape.
func jsonShell(t *testing.T) (*Shell, *strings.Builder) {
	t.Helper()
	cols := []stmt.Column{{Name: "id", Type: sql.Int64}, {Name: "name", Type: sql.Text}, {Name: "ok", Type: sql.Bool}, {Name: "x", Type: sql.Float64}}
	f := &fakeSession{answers: map[string]func(context.Context) (*stmt.Result, error){
		"select rows": answer(rowsResult(cols, "SELECT 3",
			[]*string{str("1"), str(`a "q" | b`), str("true"), str("1.5")},
			[]*string{str("-2"), nil, str("false"), str("NaN")},
			[]*string{nil, str("line\nbreak <&>"), nil, str("1e+20")})),
		"select none": answer(rowsResult(cols, "SELECT 0")),
	}}
	var out strings.Builder
	return New(f, &out, &strings.Builder{}), &out
}

// json is an array of objects keyed by column name: numbers as numbers
// (NaN, not being one, as a string), NULL as null, the rest as text,
// whatever \pset null says.
func TestJSONFormat(t *testing.T) {
	sh, out := jsonShell(t)
	script := "\\pset format json\n\\pset null '(null)'\nselect rows;\nselect none;\n"
	if err := sh.RunScript(context.Background(), strings.NewReader(script)); err != nil {
		t.Fatal(err)
	}
	text := strings.TrimPrefix(out.String(), "Output format is json.\nNull display is \"(null)\".\n")
	arrays := strings.SplitAfter(text, "]\n")
	var got []map[string]any
	if err := json.Unmarshal([]byte(arrays[0]), &got); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, arrays[0])
	}
	want := []map[string]any{
		{"id": 1.0, "name": `a "q" | b`, "ok": "t", "x": 1.5},
		{"id": -2.0, "name": nil, "ok": "f", "x": "NaN"},
		{"id": nil, "name": "line\nbreak <&>", "ok": nil, "x": 1e20},
	}
	if gotJSON, _ := json.Marshal(got); string(gotJSON) != mustJSON(want) {
		t.Errorf("rows %s, want %s", gotJSON, mustJSON(want))
	}
	if !strings.Contains(arrays[0], `"line\nbreak <&>"`) || !strings.HasPrefix(arrays[0], "[\n{\"id\":1,") {
		t.Errorf("layout: %q", arrays[0])
	}
	if arrays[1] != "[]\n" {
		t.Errorf("no rows: %q, want \"[]\\n\"", arrays[1])
	}
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// markdown is a GitHub table: pipes escaped, line breaks as <br>, the
// null display for NULL; tuples-only leaves the header out.
func TestMarkdownFormat(t *testing.T) {
	sh, out := jsonShell(t)
	script := "\\pset format markdown\nselect rows;\n\\pset null NULL\n\\t\nselect rows;\nselect none;\n"
	if err := sh.RunScript(context.Background(), strings.NewReader(script)); err != nil {
		t.Fatal(err)
	}
	want := "Output format is markdown.\n" +
		"| id | name | ok | x |\n|---|---|---|---|\n" +
		"| 1 | a \"q\" \\| b | t | 1.5 |\n| -2 |  | f | NaN |\n|  | line<br>break <&> |  | 1e+20 |\n" +
		"Null display is \"NULL\".\nTuples only is on.\n" +
		"| 1 | a \"q\" \\| b | t | 1.5 |\n| -2 | NULL | f | NaN |\n| NULL | line<br>break <&> | NULL | 1e+20 |\n"
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}
}

// Where the shell's \pset differs from psql's: json and markdown are
// formats, psql's latex, troff-ms and wrapped are not, nor are the
// unicode line style and locale-aware numbers.
func TestPsetBeyondPsql(t *testing.T) {
	tests := []struct{ line, out, err string }{
		{`\pset format j`, "Output format is json.\n", ""},
		{`\pset format MARK`, "Output format is markdown.\n", ""},
		{`\pset format wrapped`, "", "\\pset: allowed formats are aligned, asciidoc, csv, html, json, markdown, unaligned\n"},
		{`\pset format latex`, "", "\\pset: allowed formats are aligned, asciidoc, csv, html, json, markdown, unaligned\n"},
		{`\pset linestyle unicode`, "", "\\pset: only the ascii line style is supported\n"},
		{`\pset numericlocale`, "", "\\pset: numericlocale is not supported\n"},
		{`\pset numericlocale on`, "", "\\pset: numericlocale is not supported\n"},
	}
	for _, tt := range tests {
		var out, errOut strings.Builder
		sh := New(&fakeSession{}, &out, &errOut)
		_, err := sh.meta(context.Background(), tt.line)
		if (err != nil) != (tt.err != "") || out.String() != tt.out || errOut.String() != tt.err {
			t.Errorf("%s: err %v, out %q, stderr %q; want out %q, stderr %q", tt.line, err, out.String(), errOut.String(), tt.out, tt.err)
		}
	}
}
