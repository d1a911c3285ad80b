package repl

import (
	"context"
	"strings"
	"testing"

	"github.com/magmalake/magmalake/sql"
	"github.com/magmalake/magmalake/stmt"
)

// \dt and \d with no table to list print psql's message on standard error
// and nothing on standard output, and do not fail (psql goes on under
// ON_ERROR_STOP), as psql 15 does on an empty database.
func TestEmptyListMatchesPsql(t *testing.T) {
	pg := requirePG(t)
	tables := []stmt.Column{{Name: "Schema", Type: sql.Text}, {Name: "Name", Type: sql.Text}}
	f := &fakeSession{answers: map[string]func(context.Context) (*stmt.Result, error){
		"SHOW TABLES":           answer(rowsResult(tables, "SHOW")),
		"SHOW TABLES FROM xmen": answer(rowsResult(tables, "SHOW")),
	}}
	script := "\\dt\n\\d\n\\dt xmen.*\n"
	want, wantErr := pg.psql(t, script, "-v", "ON_ERROR_STOP=1", "-f", "-")
	wantErr = psqlLogPrefix.ReplaceAllString(wantErr, "")
	var out, errOut strings.Builder
	if err := New(f, &out, &errOut).RunScript(context.Background(), strings.NewReader(script)); err != nil {
		t.Fatalf("RunScript: %v", err)
	}
	if out.String() != want || errOut.String() != wantErr {
		t.Errorf("stdout %q stderr %q, want %q and %q", out.String(), errOut.String(), want, wantErr)
	}
	if wantErr == "" {
		t.Error("psql printed nothing: the database is not empty")
	}
}
