package sql

import (
	"context"
	"flag"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/magmalake/magmalake/internal/pgtest"
	"github.com/magmalake/magmalake/pgerr"
)

// The scalar-function corpus tests: every generated expression runs through
// magmalake's front end (ParseExpr, Bind, Eval) and through PostgreSQL 15;
// the result type, the output text (or NULL) and an error's SQLSTATE must
// agree. Expressions are constant (SELECT without FROM); table-column
// arguments are covered by the per-row comparison at the end.

var corpusAll = flag.Bool("corpusall", false, "report every corpus difference, not the first 40")

// corpusTry is a PL/pgSQL wrapper that runs one expression and reports its
// type and output text, or its error, as one text value: a whole corpus then
// takes one round trip.
const corpusTry = `CREATE FUNCTION try_expr(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE ty text; v text;
BEGIN
	EXECUTE 'SELECT pg_typeof(x)::text, CASE WHEN x IS NULL THEN NULL ELSE format(''%s'', x) END FROM (SELECT (' || q || ') AS x) s' INTO ty, v;
	RETURN ty || '|' || coalesce('=' || v, 'NULL');
EXCEPTION WHEN others THEN
	RETURN 'ERROR ' || SQLSTATE || ' ' || SQLERRM;
END $$`

// startCorpusPG starts PostgreSQL 15 (C locale, UTC) with try_expr.
func startCorpusPG(t *testing.T) *pgx.Conn {
	t.Helper()
	conn := pgtest.Start(t).Connect(t, "postgres")
	if _, err := conn.Exec(context.Background(), corpusTry); err != nil {
		t.Fatal(err)
	}
	return conn
}

// corpusPG evaluates every expression in PostgreSQL, in order.
func corpusPG(t *testing.T, conn *pgx.Conn, exprs []string) []string {
	t.Helper()
	rows, err := conn.Query(context.Background(),
		"SELECT try_expr(q) FROM unnest($1::text[]) WITH ORDINALITY AS u(q, n) ORDER BY n", exprs)
	if err != nil {
		t.Fatal(err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// corpusOurs is try_expr's answer computed by magmalake.
func corpusOurs(expr string) string {
	e, err := corpusBind(expr)
	if err != nil {
		return corpusError(err)
	}
	t := e.Type()
	if t.Reg != RegNone {
		// The wire prints reg* values by name, through a cast to text
		// (the session's regNames), as PostgreSQL's output functions do.
		e = &Cast{X: e, T: Text}
	}
	arr, err := Eval(context.Background(), e, nil, nil)
	if err != nil {
		return corpusError(err)
	}
	defer arr.Release()
	t = valueType(t)
	// pg_typeof's text, like the messages, names no typmod
	if arr.IsNull(0) {
		return t.SigName() + "|NULL"
	}
	return t.SigName() + "|=" + string(AppendText(nil, valueType(e.Type()), arr, 0))
}

// valueType is the type a value prints as: untyped literals as text.
func valueType(t Type) Type {
	if t.Kind == KindUnknown {
		return Text
	}
	return t
}

func corpusBind(expr string) (Expr, error) {
	n, err := parseExpr(expr)
	if err != nil {
		return nil, err
	}
	return bindAST(n, &Scope{}, nil)
}

func corpusError(err error) string {
	if e, ok := err.(*pgerr.Error); ok {
		return "ERROR " + string(e.Code) + " " + e.Message
	}
	return "ERROR go " + err.Error()
}

// corpusCode is the comparable part of a try_expr answer: an error's
// SQLSTATE without its message, or the whole type|value.
func corpusCode(s string) string {
	if strings.HasPrefix(s, "ERROR ") {
		return s[:min(len(s), len("ERROR ")+5)] // "ERROR " and the five-character SQLSTATE
	}
	return s
}

// checkCorpus compares exprs with PostgreSQL; message differences (same
// SQLSTATE) are counted and a few are logged. Against a server older than
// 15.20 the expressions whose answers that minor release changed are left
// out: magmalake answers as 15.20 does.
func checkCorpus(t *testing.T, conn *pgx.Conn, exprs []string) {
	t.Helper()
	want := corpusPG(t, conn, exprs)
	old := serverVersionNum(t, conn) < 150020
	bad, msgs, skipped := 0, 0, 0
	for i, x := range exprs {
		got := corpusOurs(x)
		switch {
		case old && changedIn1520(x):
			skipped++
		case got == want[i]:
		case corpusCode(got) == corpusCode(want[i]):
			if msgs++; msgs <= 5 || *corpusAll {
				t.Logf("SELECT %s: message differs\n  ours        %s\n  PostgreSQL  %s", x, got, want[i])
			}
		default:
			if bad++; bad <= 40 || *corpusAll {
				t.Errorf("SELECT %s\n  ours        %s\n  PostgreSQL  %s", x, got, want[i])
			}
		}
	}
	if bad > 40 && !*corpusAll {
		t.Errorf("... %d differences in all", bad)
	}
	t.Logf("%d expressions compared: %d differ, %d differ in message only, %d left out (answered as 15.20 does)", len(exprs)-skipped, bad, msgs, skipped)
}

// serverVersionNum is the reference server's server_version_num.
func serverVersionNum(t *testing.T, conn *pgx.Conn) int {
	t.Helper()
	var v string
	if err := conn.QueryRow(context.Background(), "SHOW server_version_num").Scan(&v); err != nil {
		t.Fatal(err)
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		t.Fatalf("server_version_num %q: %v", v, err)
	}
	return n
}

// changedIn1520 reports the corpus expressions PostgreSQL 15.20 answers
// otherwise than 15.18: right() of a string by -2^31 characters (15.18:
// the whole string; 15.20: none of it), and to_char's V on an integer
// (15.18 let the scaled int4 wrap around; 15.20 says "integer out of
// range").
func changedIn1520(expr string) bool {
	if strings.HasPrefix(expr, "right(") {
		return strings.HasSuffix(expr, ", (-2147483647 - 1))")
	}
	if !strings.HasPrefix(expr, "to_char(") {
		return false
	}
	args := strings.TrimSuffix(strings.TrimPrefix(expr, "to_char("), ")")
	comma := strings.LastIndex(args, ", '")
	if comma < 0 || !strings.Contains(args[comma:], "V") {
		return false
	}
	num := args[:comma]
	if num == "(-2147483647 - 1)" {
		return true
	}
	_, err := strconv.ParseInt(num, 10, 32)
	return err == nil
}

// cross is every f(a, b, ...) for the argument lists given, one list per
// position: the corpus of one function.
func cross(f string, lists ...[]string) []string {
	out := []string{""}
	for k, l := range lists {
		var next []string
		for _, prefix := range out {
			for _, a := range l {
				if k > 0 {
					next = append(next, prefix+", "+a)
				} else {
					next = append(next, a)
				}
			}
		}
		out = next
	}
	for i, args := range out {
		out[i] = fmt.Sprintf("%s(%s)", f, args)
	}
	return out
}

// TestFunctionsMatchPostgres runs each family's generated corpus against
// one PostgreSQL cluster.
func TestFunctionsMatchPostgres(t *testing.T) {
	conn := startCorpusPG(t)
	for _, fam := range []struct {
		name   string
		corpus func() []string
	}{
		{"math", corpusMath},
		{"regex", corpusRegex},
		{"minmax", corpusMinMax},
		{"datetime parts", corpusDateTimeParts},
		{"string", corpusStringMore},
		{"to_char", corpusToChar},
		{"operators", corpusOperators},
	} {
		t.Run(fam.name, func(t *testing.T) { checkCorpus(t, conn, fam.corpus()) })
	}
	t.Run("signature messages", func(t *testing.T) {
		exprs := corpusSignatures()
		checkMessages(t, corpusPG(t, conn, exprs), exprs)
	})
	t.Run("columns", func(t *testing.T) { checkFunctionsOverColumns(t, conn) })
}
