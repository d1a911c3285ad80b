package repl

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/magmalake/magmalake/internal/pgtest"
	"github.com/magmalake/magmalake/pgerr"
)

var errorQueries = []struct{ name, query string }{
	{"undefined table", `select * from nosuch`},
	{"at start", `nosuch`},
	{"syntax error at end", `select 1 +`},
	{"second line", "select 1,\n  nosuchcol\nfrom pg_class"},
	{"crlf lines", "select 1,\r\n 2,\r\n nosuchcol"},
	{"tab before error", "select\t1,\tnosuchcol"},
	{"wide characters before error", `select '日本語日本語', nosuchcol`},
	{"long line error early", `select nosuchcol, 1111111111, 2222222222, 3333333333, 4444444444, 5555555555, 6666666666, 7777777777`},
	{"long line error late", `select 1111111111, 2222222222, 3333333333, 4444444444, 5555555555, 6666666666, 7777777777, nosuchcol, 8`},
	{"long line error at end", `select 1111111111, 2222222222, 3333333333, 4444444444, 5555555555, 6666666666, 7777777777, nosuchcol`},
	{"long line error in middle", `select 1111111111, 2222222222, 3333333333, 4444444444, nosuchcol, 5555555555, 6666666666, 7777777777, 8888888888, 9999999999`},
	{"hint", `select nosuchfunc(1)`},
	{"detail", `select '{1,2'::int[]`},
	{"no position", `select 1/0`},
}

// pgSQLError is PostgreSQL's error as the shell's formatter takes it.
func pgSQLError(e *pgconn.PgError) *pgerr.Error {
	return &pgerr.Error{Code: pgerr.Code(e.Code), Message: e.Message, Detail: e.Detail, Hint: e.Hint, Position: int(e.Position), Severity: e.Severity}
}

var locationLine = regexp.MustCompile(`(?m)^LOCATION:  .*\n`)

func TestErrorMatchesPsql(t *testing.T) {
	pg := requirePG(t)
	conn := pg.connect(t)
	verbosities := []struct {
		name string
		v    Verbosity
	}{{"default", VerbosityDefault}, {"verbose", VerbosityVerbose}, {"terse", VerbosityTerse}}
	for _, q := range errorQueries {
		e := pgSQLError(pgtest.ExecErr(t, conn, q.query))
		for _, vb := range verbosities {
			t.Run(q.name+"/"+vb.name, func(t *testing.T) {
				_, want := pg.psql(t, "", "-v", "VERBOSITY="+vb.name, "-c", q.query)
				want = locationLine.ReplaceAllString(want, "") // we have no C source location
				if got := formatError(e, q.query, vb.v); got != want {
					t.Errorf("error display differs from psql\n got:\n%s\nwant:\n%s", got, want)
				}
			})
		}
	}
}

func TestAsSQLError(t *testing.T) {
	wrapped := fmt.Errorf("plan delete: %w", pgerr.Errorf(pgerr.UndefinedColumn, "column \"x\" does not exist"))
	tests := []struct {
		err  error
		code pgerr.Code
		msg  string
	}{
		{wrapped, pgerr.UndefinedColumn, `column "x" does not exist`},
		{fmt.Errorf("scan: %w", context.Canceled), pgerr.QueryCanceled, "canceling statement due to user request"},
		{errors.New("disk on fire"), pgerr.InternalError, "disk on fire"},
	}
	for _, tt := range tests {
		got := asSQLError(tt.err)
		if got.Code != tt.code || got.Message != tt.msg {
			t.Errorf("asSQLError(%v) = %s %q, want %s %q", tt.err, got.Code, got.Message, tt.code, tt.msg)
		}
	}
}

func TestFormatTiming(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want string
	}{
		{1234 * time.Microsecond, "Time: 1.234 ms"},
		{999999 * time.Microsecond, "Time: 999.999 ms"},
		{61500 * time.Millisecond, "Time: 61500.000 ms (01:01.500)"},
		{(2*3600+3*60+4)*time.Second + 5*time.Millisecond, "Time: 7384005.000 ms (02:03:04.005)"},
		{(50*3600 + 7) * time.Second, "Time: 180007000.000 ms (2 d 02:00:07.000)"},
	}
	for _, tt := range tests {
		if got := formatTiming(tt.d); got != tt.want {
			t.Errorf("formatTiming(%v) = %q, want %q", tt.d, got, tt.want)
		}
	}
}

// The caret must sit under the reported character even when the statement
// spans lines; checked here without PostgreSQL.
func TestErrorPositionCaretColumn(t *testing.T) {
	q := "select a,\n       bad_column\nfrom t"
	pos := strings.Index(q, "bad_column") + 1
	got := errorPosition(q, pos)
	want := "LINE 2:        bad_column\n" + strings.Repeat(" ", len("LINE 2: ")+7) + "^\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if got := errorPosition("select 1", 99); got != "" {
		t.Errorf("out-of-range position printed %q", got)
	}
}
