package session

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/stmt"
)

// The string functions, aggregates and boolean contexts against PostgreSQL
// 15 (issue 17, items 2-6 and 8): every call is run with each argument a
// column, an untyped literal or an untyped parameter, over rows holding
// NULLs and empty strings, in the four table modes; results and SQLSTATEs
// must be PostgreSQL's.

// fnTableModes are the four table modes (the data is read, never changed,
// but each mode writes its files its own way).
var fnTableModes = []string{
	"WITH ('format-version' = '2')",
	"WITH ('format-version' = '2', 'write.delete.mode' = 'merge-on-read')",
	"WITH ('format-version' = '3', 'write.delete.mode' = 'merge-on-read')",
	"WITH ('format-version' = '3')",
}

const fnColumns = "id int, s text, t text, n int, b boolean, x double precision"

// fnRows hold NULLs, empty strings and multi-byte text in every text column.
var fnRows = []string{
	"(1, 'banana', 'a', 2, true, 1.5)",
	"(2, NULL, 'an', -1, NULL, NULL)",
	"(3, '', '', 0, false, -0.25)",
	"(4, 'Hello World-foo_bar', 'o', 3, true, 1e10)",
	"(5, 'ünï çödé', 'ç', 1, false, 2)",
	"(6, 'a,b,,c', ',', NULL, NULL, 3)",
	"(7, 'x''y\\z', NULL, 5, true, -7)",
}

// fnCall is a function and the kinds of its arguments: c text column (s),
// d second text column (t), i integer column (n), and literals for each.
type fnCall struct {
	name string
	args []fnArg
}

type fnArg struct {
	col string   // column reference
	lit []string // literal values (PostgreSQL input syntax, unquoted)
}

var (
	fnText  = fnArg{col: "s", lit: []string{"abc", "", "a-b-c", "ÄbC dEf"}}
	fnText2 = fnArg{col: "t", lit: []string{"b", "", "-", "xyz"}}
	fnInt   = fnArg{col: "n", lit: []string{"2", "0", "-1", "7"}}
)

var fnCalls = []fnCall{
	{"replace", []fnArg{fnText, fnText2, fnText2}},
	{"concat", []fnArg{fnText, fnInt, fnText2}},
	{"concat_ws", []fnArg{fnText2, fnText, fnInt}},
	{"format", []fnArg{{lit: []string{"%s|%s", "%2$s-%1$L", "[%-6s]", "%I.%s"}}, fnText, fnText2}},
	{"quote_ident", []fnArg{fnText}},
	{"quote_literal", []fnArg{fnText}},
	{"reverse", []fnArg{fnText}},
	{"md5", []fnArg{fnText}},
	{"initcap", []fnArg{fnText}},
	{"ascii", []fnArg{fnText}},
	{"repeat", []fnArg{fnText, fnInt}},
	{"left", []fnArg{fnText, fnInt}},
	{"right", []fnArg{fnText, fnInt}},
	{"lpad", []fnArg{fnText, fnInt, fnText2}},
	{"rpad", []fnArg{fnText, fnInt}},
	{"strpos", []fnArg{fnText, fnText2}},
	{"split_part", []fnArg{fnText, fnText2, fnInt}},
	{"starts_with", []fnArg{fnText, fnText2}},
	{"lower", []fnArg{fnText}},
	{"upper", []fnArg{fnText}},
	{"length", []fnArg{fnText}},
	{"btrim", []fnArg{fnText, fnText2}},
	{"substring", []fnArg{fnText, fnInt, fnInt}},
	{"coalesce", []fnArg{fnText, fnText2}},
	{"nullif", []fnArg{fnText, fnText2}},
}

func TestFunctionsMatchPostgres(t *testing.T) {
	conn := connectTestPostgres(t)
	mustPG(t, conn, "CREATE TABLE f ("+fnColumns+")")
	mustPG(t, conn, "INSERT INTO f VALUES "+strings.Join(fnRows, ", "))
	for mi, mode := range fnTableModes {
		t.Run(fmt.Sprintf("mode%d", mi), func(t *testing.T) {
			s := testSession(t)
			mustQuery(t, s, "CREATE TABLE f ("+fnColumns+") "+mode)
			mustQuery(t, s, "INSERT INTO f VALUES "+strings.Join(fnRows, ", "))
			seed := uint64(mi + 1)
			rng := rand.New(rand.NewPCG(seed, 17))
			n := 0
			for _, fc := range fnCalls {
				// Every argument kind for every position: all columns,
				// then each position alone as a literal and as a parameter.
				for variant := 0; variant <= 2*len(fc.args); variant++ {
					q, pgq, params := fnQuery(rng, fc, variant)
					fnCompare(t, s, conn, q, pgq, params)
					n++
				}
			}
			t.Logf("seed %d: %d calls compared", seed, n)
		})
	}
}

// fnQuery renders one call: variant 0 uses columns everywhere; 2k+1 makes
// argument k a literal and 2k+2 a parameter ($1, with the literal as its
// value; PostgreSQL gets the literal, which it resolves as it resolves an
// untyped parameter).
func fnQuery(rng *rand.Rand, fc fnCall, variant int) (q, pgq string, params []stmt.Param) {
	args := make([]string, len(fc.args))
	pgArgs := make([]string, len(fc.args))
	for k, a := range fc.args {
		col := a.col
		if col == "" { // literal-only argument (format's pattern)
			col = sqlQuote(a.lit[rng.IntN(len(a.lit))])
		}
		args[k], pgArgs[k] = col, col
		if variant == 0 || (variant-1)/2 != k {
			continue
		}
		lit := a.lit[rng.IntN(len(a.lit))]
		args[k], pgArgs[k] = sqlQuote(lit), sqlQuote(lit)
		if variant%2 == 0 {
			args[k] = "$1"
			params = []stmt.Param{lit}
		}
	}
	call := fc.name + "(" + strings.Join(args, ", ") + ")"
	pgCall := fc.name + "(" + strings.Join(pgArgs, ", ") + ")"
	q = "SELECT id, " + call + " FROM f ORDER BY id"
	pgq = "SELECT id, " + pgCall + " FROM f ORDER BY id"
	return q, pgq, params
}

func sqlQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// fnCompare runs q on magmalake and pgq on PostgreSQL and requires the same
// rows, or the same SQLSTATE.
func fnCompare(t *testing.T, s *Session, conn *pgx.Conn, q, pgq string, params []stmt.Param) {
	t.Helper()
	want := pgExec(t, conn, pgq)
	got, err := s.query(context.Background(), q, params...)
	var se *pgerr.Error
	switch {
	case want.code != "":
		if !errors.As(err, &se) || string(se.Code) != want.code {
			t.Fatalf("%s %v: PostgreSQL fails with %s, magmalake: %v", q, params, want.code, err)
		}
	case err != nil:
		t.Fatalf("%s %v: %v (PostgreSQL: %v)", q, params, err, want.rows)
	default:
		if fmt.Sprint(got.rows) != fmt.Sprint(want.rows) {
			t.Fatalf("%s %v:\n magmalake  %v\n PostgreSQL %v", q, params, got.rows, want.rows)
		}
	}
}

// TestAggregatesAndConditionsMatchPostgres covers stddev/variance (the
// sample forms), the other statistics, bool_and/bool_or/every, string_agg,
// NULL as a condition, and the error codes of item 8.
func TestAggregatesAndConditionsMatchPostgres(t *testing.T) {
	conn := connectTestPostgres(t)
	mustPG(t, conn, "CREATE TABLE f ("+fnColumns+")")
	mustPG(t, conn, "INSERT INTO f VALUES "+strings.Join(fnRows, ", "))
	queries := []string{
		"SELECT stddev(x), variance(x), stddev_samp(x), stddev_pop(x), var_samp(x), var_pop(x) FROM f",
		"SELECT n, stddev(x), variance(x), var_pop(x) FROM f GROUP BY n ORDER BY n",
		"SELECT stddev(x) FROM f WHERE id = 1",
		"SELECT bool_and(b), bool_or(b), every(b), bool_and(n > 0), bool_or(NULL) FROM f",
		"SELECT n > 0, bool_and(b), bool_or(b) FROM f GROUP BY n > 0 ORDER BY 1",
		"SELECT string_agg(s, ','), string_agg(t, s) FROM f",
		"SELECT b, string_agg(s, '; ') FROM f WHERE id > 1 GROUP BY b ORDER BY b",
		"SELECT string_agg(s, ','), bool_and(b), stddev(x) FROM f WHERE id > 100",
		"SELECT id FROM f WHERE NULL",
		"SELECT count(*) FROM f HAVING NULL",
		"SELECT id, CASE WHEN NULL THEN 1 ELSE 0 END FROM f ORDER BY id",
		"SELECT id, concat(s, NULL), concat_ws(NULL, s), s || NULL FROM f ORDER BY id",
		"SELECT std(x) FROM f",
		"SELECT f.id FROM f g",
		"SELECT z.id FROM f",
		"SELECT variance(s) FROM f",
		"SELECT bool_and(n) FROM f",
		// A catalog function beside an operator PostgreSQL refuses.
		"SELECT current_schema(), DATE '2024-01-01' * 2",
		"SELECT current_schema(), '2.5'::numeric + 1 > 3",
	}
	for mi, mode := range fnTableModes {
		t.Run(fmt.Sprintf("mode%d", mi), func(t *testing.T) {
			s := testSession(t)
			mustQuery(t, s, "CREATE TABLE f ("+fnColumns+") "+mode)
			mustQuery(t, s, "INSERT INTO f VALUES "+strings.Join(fnRows, ", "))
			for _, q := range queries {
				fnCompare(t, s, conn, q, q, nil)
			}
			// DELETE with a table's own name behind an alias (42P01), and
			// WHERE NULL deleting nothing: checked on PostgreSQL's copy too.
			for _, q := range []string{"DELETE FROM f g WHERE f.id > 3", "DELETE FROM f WHERE NULL"} {
				pgWant := pgExecTx(t, conn, q)
				res, err := s.query(context.Background(), q)
				var se *pgerr.Error
				switch {
				case pgWant.code != "":
					if !errors.As(err, &se) || string(se.Code) != pgWant.code {
						t.Fatalf("%s: PostgreSQL fails with %s, magmalake: %v", q, pgWant.code, err)
					}
				case err != nil:
					t.Fatalf("%s: %v", q, err)
				case res.tag != pgWant.tag:
					t.Fatalf("%s: tag %q, PostgreSQL %q", q, res.tag, pgWant.tag)
				}
			}
		})
	}
}

// pgExecTx runs q inside a transaction that is rolled back, so PostgreSQL's
// copy of the table stays as it was.
func pgExecTx(t *testing.T, conn *pgx.Conn, q string) pgOutcome {
	t.Helper()
	mustPG(t, conn, "BEGIN")
	out := pgExec(t, conn, q)
	mustPG(t, conn, "ROLLBACK")
	return out
}
