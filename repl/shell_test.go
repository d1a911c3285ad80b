package repl

import (
	"context"
	"errors"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql"
	"github.com/magmalake/magmalake/stmt"
)

// The whole shell, fed a script, prints what psql prints for the same
// script against the same (PostgreSQL) results: tables, tags, RETURNING
// tags, \x switching, multi-line and several-per-line statements.
func TestScriptMatchesPsql(t *testing.T) {
	pg := requirePG(t)
	script := `select 1 as a, 'x' as b;
create temp table t (id int8, name text, ok bool);
insert into t values (1, 'one', true), (2, null, false);
insert into t values (3, 'three', null) returning id, name;
\x
select * from t order by id;
\x off
update t set name = 'uno' where id = 1;
select id,
       name -- a comment; not the end
  from t where id > 1 order by id;
select 'a;b' as semi; select 2 as two;
delete from t where id = 2 returning *;
begin;
select count(*) from t;
commit;
\x on
select * from t where false;
select E'multi\nline' as m, 42 as n
`
	want, wantErr := pg.psql(t, script, "-v", "ON_ERROR_STOP=1", "-f", "-")
	if wantErr != "" {
		t.Fatalf("psql failed: %s", wantErr)
	}
	var out, errOut strings.Builder
	sh := New(&pgSession{c: pg.connect(t)}, &out, &errOut)
	if err := sh.RunScript(context.Background(), strings.NewReader(script)); err != nil {
		t.Fatalf("RunScript: %v\n%s", err, errOut.String())
	}
	if out.String() != want {
		t.Errorf("shell output differs from psql\n got:\n%s\nwant:\n%s", out.String(), want)
	}
}

var psqlInputPrefix = regexp.MustCompile(`(?m)^psql:<stdin>:\d+: `)

// A failing statement stops the script, as with ON_ERROR_STOP: same output
// as psql up to the error, the same error text, and no later statement.
func TestScriptStopsAtErrorLikePsql(t *testing.T) {
	pg := requirePG(t)
	script := "select 1 as one;\nselect *\n  from nosuch;\nselect 2 as two;\n"
	want, wantErr := pg.psql(t, script, "-v", "ON_ERROR_STOP=1", "-f", "-")
	var out, errOut strings.Builder
	sh := New(&pgSession{c: pg.connect(t)}, &out, &errOut)
	err := sh.RunScript(context.Background(), strings.NewReader(script))
	if !errors.Is(err, ErrFailed) {
		t.Fatalf("RunScript error = %v, want ErrFailed", err)
	}
	if out.String() != want {
		t.Errorf("stdout\n got:\n%s\nwant:\n%s", out.String(), want)
	}
	if w := psqlInputPrefix.ReplaceAllString(wantErr, ""); errOut.String() != w {
		t.Errorf("stderr\n got:\n%s\nwant:\n%s", errOut.String(), w)
	}
}

var idCol = []stmt.Column{{Name: "id", Type: sql.Int64}}

func answer(r *stmt.Result) func(context.Context) (*stmt.Result, error) {
	return func(context.Context) (*stmt.Result, error) { return r, nil }
}

func TestScriptStopsAtFirstError(t *testing.T) {
	f := &fakeSession{answers: map[string]func(context.Context) (*stmt.Result, error){
		"select 1": answer(rowsResult(idCol, "SELECT 1", []*string{str("1")})),
		"select 2": answer(rowsResult(idCol, "SELECT 1", []*string{str("2")})),
		"select broken": func(context.Context) (*stmt.Result, error) {
			return nil, &pgerr.Error{Code: pgerr.UndefinedColumn, Message: `column "broken" does not exist`, Position: 8}
		},
	}}
	var out, errOut strings.Builder
	sh := New(f, &out, &errOut)
	err := sh.RunScript(context.Background(), strings.NewReader("select 1;\nselect broken; select 2;\nselect 2;\n"))
	if !errors.Is(err, ErrFailed) {
		t.Fatalf("error = %v, want ErrFailed", err)
	}
	if want := []string{"select 1", "select broken"}; !slices.Equal(f.prepared, want) {
		t.Errorf("prepared %q, want %q", f.prepared, want)
	}
	wantErr := "ERROR:  column \"broken\" does not exist\nLINE 1: select broken;\n               ^\n"
	if errOut.String() != wantErr {
		t.Errorf("stderr %q, want %q", errOut.String(), wantErr)
	}
	if want := " id \n----\n  1\n(1 row)\n\n"; out.String() != want {
		t.Errorf("stdout %q, want %q", out.String(), want)
	}
}

func TestScriptRunsUnterminatedLastStatement(t *testing.T) {
	f := &fakeSession{answers: map[string]func(context.Context) (*stmt.Result, error){
		"create schema s":  answer(&stmt.Result{Tag: "CREATE SCHEMA"}),
		"drop schema s":    answer(&stmt.Result{Tag: "DROP SCHEMA"}),
		"select\n  1 -- x": answer(rowsResult(idCol, "SELECT 1", []*string{nil})),
	}}
	var out, errOut strings.Builder
	err := New(f, &out, &errOut).RunScript(context.Background(), strings.NewReader("create schema s;;\ndrop schema s;\n\nselect\n  1 -- x"))
	if err != nil {
		t.Fatalf("RunScript: %v (%s)", err, errOut.String())
	}
	want := "CREATE SCHEMA\nDROP SCHEMA\n id \n----\n   \n(1 row)\n\n"
	if out.String() != want {
		t.Errorf("stdout %q, want %q", out.String(), want)
	}
}

func TestRunCommand(t *testing.T) {
	schemas := []stmt.Column{{Name: "name", Type: sql.Text}}
	f := &fakeSession{answers: map[string]func(context.Context) (*stmt.Result, error){
		"select 1":     answer(rowsResult(idCol, "SELECT 1", []*string{str("1")})),
		"SHOW SCHEMAS": answer(rowsResult(schemas, "SHOW", []*string{str("public")}, []*string{str("xmen")})),
	}}
	var out, errOut strings.Builder
	sh := New(f, &out, &errOut)
	if err := sh.RunCommand(context.Background(), "select 1"); err != nil {
		t.Fatal(err)
	}
	if err := sh.RunCommand(context.Background(), `\dn`); err != nil {
		t.Fatal(err)
	}
	want := " id \n----\n  1\n(1 row)\n\nList of schemas\n  name  \n--------\n public\n xmen\n(2 rows)\n\n"
	if out.String() != want {
		t.Errorf("stdout %q, want %q", out.String(), want)
	}
}

func TestMetaCommands(t *testing.T) {
	desc := []stmt.Column{{Name: "Column", Type: sql.Text}, {Name: "Type", Type: sql.Text}}
	tables := []stmt.Column{{Name: "Schema", Type: sql.Text}, {Name: "Name", Type: sql.Text}}
	f := &fakeSession{answers: map[string]func(context.Context) (*stmt.Result, error){
		"DESCRIBE xmen.characters": answer(rowsResult(desc, "SHOW", []*string{str("id"), str("bigint")})),
		"SHOW CREATE TABLE xmen.characters": answer(rowsResult([]stmt.Column{{Name: "createtab_stmt", Type: sql.Text}}, "SHOW",
			[]*string{str("CREATE TABLE xmen.characters (\n  id bigint\n)\nPARTITIONED BY (active)\n-- location: file:///w/xmen.db/characters")})),
		`SELECT key, value FROM xmen."characters$properties" ORDER BY key`: answer(rowsResult(tables, "SELECT 1",
			[]*string{str("format-version"), str("2")})),
		"SHOW TABLES":           answer(rowsResult(tables, "SHOW", []*string{str("xmen"), str("characters")})),
		"SHOW TABLES FROM xmen": answer(rowsResult(tables, "SHOW", []*string{str("xmen"), str("characters")})),
	}}
	tests := []struct {
		line, out, errOut string
		prepared          string
		fails             bool
	}{
		{line: `\d xmen.characters`, prepared: "SHOW CREATE TABLE xmen.characters", // a view or a table
			out: "Table \"xmen.characters\"\n Column |  Type  \n--------+--------\n id     | bigint\n" +
				"Partition spec: active\nFormat version: 2\nDelete mode: copy-on-write\nLocation: file:///w/xmen.db/characters\n\n"},
		{line: `\dt`, prepared: "SHOW TABLES",
			out: "  List of relations\n Schema |    Name    \n--------+------------\n xmen   | characters\n(1 row)\n\n"},
		{line: `\dt xmen.*`, prepared: "SHOW TABLES FROM xmen",
			out: "  List of relations\n Schema |    Name    \n--------+------------\n xmen   | characters\n(1 row)\n\n"},
		{line: `\d`, prepared: "SHOW TABLES",
			out: "  List of relations\n Schema |    Name    \n--------+------------\n xmen   | characters\n(1 row)\n\n"},
		{line: `\dt x%`, fails: true, errOut: "\\dt: only a SCHEMA.* pattern is supported, not \"x%\"\n"},
		{line: `\x`, out: "Expanded display is on.\n"},
		{line: `\timing on`, out: "Timing is on.\n"},
		{line: `\timing maybe`, fails: true, errOut: "unrecognized value \"maybe\" for \"timing\": Boolean expected\n"},
		{line: `\bogus`, fails: true, errOut: "invalid command \\bogus\n"},
		{line: `\set VERBOSITY verbose`},
		{line: `\set ECHO all`},
		{line: `\set ECHO loud`, fails: true, errOut: "unrecognized value \"loud\" for \"ECHO\"\nAvailable values are: none, errors, queries, all.\n"},
		{line: `\set ON_ERROR_STOP maybe`, fails: true, errOut: "unrecognized value \"maybe\" for \"ON_ERROR_STOP\": Boolean expected\n"},
	}
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			f.prepared = nil
			var out, errOut strings.Builder
			_, err := New(f, &out, &errOut).meta(context.Background(), tt.line)
			if (err != nil) != tt.fails {
				t.Fatalf("error = %v, want failure %v", err, tt.fails)
			}
			if out.String() != tt.out || errOut.String() != tt.errOut {
				t.Errorf("out %q err %q, want out %q err %q", out.String(), errOut.String(), tt.out, tt.errOut)
			}
			if tt.prepared != "" && (len(f.prepared) == 0 || f.prepared[0] != tt.prepared) {
				t.Errorf("prepared %q, want %q first", f.prepared, tt.prepared)
			}
		})
	}
}

func TestQuitStopsScript(t *testing.T) {
	f := &fakeSession{answers: map[string]func(context.Context) (*stmt.Result, error){
		"select 1": answer(rowsResult(idCol, "SELECT 1", []*string{str("1")})),
	}}
	var out, errOut strings.Builder
	if err := New(f, &out, &errOut).RunScript(context.Background(), strings.NewReader("select 1;\n\\q\nselect 2;\n")); err != nil {
		t.Fatal(err)
	}
	if len(f.prepared) != 1 {
		t.Errorf("prepared %q after \\q", f.prepared)
	}
}

// Cancelling the context (what Ctrl-C does) ends a running statement with
// psql's "canceling statement" error and fails the script.
func TestCancelRunningStatement(t *testing.T) {
	started := make(chan struct{})
	f := &fakeSession{answers: map[string]func(context.Context) (*stmt.Result, error){
		"select slow": func(ctx context.Context) (*stmt.Result, error) {
			close(started)
			<-ctx.Done()
			return nil, ctx.Err()
		},
	}}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-started; cancel() }()
	var out, errOut strings.Builder
	err := New(f, &out, &errOut).RunScript(ctx, strings.NewReader("select slow;\n"))
	if !errors.Is(err, ErrFailed) {
		t.Fatalf("error = %v, want ErrFailed", err)
	}
	if want := "ERROR:  canceling statement due to user request\n"; errOut.String() != want {
		t.Errorf("stderr %q, want %q", errOut.String(), want)
	}
}

func TestTimingAndVerbosity(t *testing.T) {
	f := &fakeSession{answers: map[string]func(context.Context) (*stmt.Result, error){
		"create table t (a int)": answer(&stmt.Result{Tag: "CREATE TABLE", Notices: []stmt.Notice{{Severity: "NOTICE", Code: pgerr.SuccessfulCompletion, Message: "hello"}}}),
	}}
	var out, errOut strings.Builder
	sh := New(f, &out, &errOut)
	sh.StopOnError = false
	clock := time.Unix(0, 0)
	sh.Now = func() time.Time { clock = clock.Add(1500 * time.Microsecond); return clock }
	ctx := context.Background()
	for _, line := range []string{`\timing`, "create table t (a int);", `\set VERBOSITY verbose`, "select nope;"} {
		sh.feedLine(ctx, line)
	}
	if want := "Timing is on.\nCREATE TABLE\nTime: 1.500 ms\n"; out.String() != want {
		t.Errorf("stdout %q, want %q", out.String(), want)
	}
	wantErr := "NOTICE:  hello\nERROR:  " + string(pgerr.SyntaxError) + ": fake cannot parse \"select nope\"\nLINE 1: select nope;\n        ^\n"
	if errOut.String() != wantErr {
		t.Errorf("stderr %q, want %q", errOut.String(), wantErr)
	}
}

func TestPrompt(t *testing.T) {
	f := &fakeSession{}
	sh := New(f, &strings.Builder{}, &strings.Builder{})
	tests := []struct {
		pending string
		tx      byte
		want    string
	}{
		{"", stmt.TxIdle, "magmalake=> "},
		{"", stmt.TxActive, "magmalake=*> "},
		{"", stmt.TxFailed, "magmalake=!> "},
		{"select 1\n", stmt.TxIdle, "magmalake-> "},
		{"select 'a\n", stmt.TxIdle, "magmalake'> "},
		{"select \"a\n", stmt.TxActive, "magmalake\"*> "},
		{"select (1,\n", stmt.TxIdle, "magmalake(> "},
		{"select $$\n", stmt.TxIdle, "magmalake$> "},
		{"/* \n", stmt.TxIdle, "magmalake*> "},
	}
	for _, tt := range tests {
		sh.pending.reset()
		sh.pending.add(tt.pending)
		f.tx = tt.tx
		if got := sh.Prompt(); got != tt.want {
			t.Errorf("Prompt(%q, %c) = %q, want %q", tt.pending, tt.tx, got, tt.want)
		}
	}
}

// A backslash inside an open literal is text, not a command.
func TestBackslashInsideLiteralIsSQL(t *testing.T) {
	q := "select 'a\n\\x\n'"
	f := &fakeSession{answers: map[string]func(context.Context) (*stmt.Result, error){
		q: answer(rowsResult([]stmt.Column{{Name: "t", Type: sql.Text}}, "SELECT 1", []*string{str("a\n\\x\n")})),
	}}
	var out, errOut strings.Builder
	if err := New(f, &out, &errOut).RunScript(context.Background(), strings.NewReader(q+";\n")); err != nil {
		t.Fatalf("%v: %s", err, errOut.String())
	}
	if !strings.Contains(out.String(), `\x`) || strings.Contains(out.String(), "Expanded") {
		t.Errorf("output %q", out.String())
	}
}
