package repl

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/magmalake/magmalake/internal/pgtest"
	"github.com/magmalake/magmalake/internal/testserver"
	"github.com/magmalake/magmalake/session"
	"github.com/magmalake/magmalake/stmt"
)

// userFunctions gives PostgreSQL functions of every shape \df prints:
// named, quoted and defaulted arguments, VARIADIC, OUT and INOUT, TABLE and
// SETOF results, a procedure, a trigger function, an aggregate, a comment
// and a SQL-standard body.
const userFunctions = `CREATE SCHEMA dftest;
CREATE FUNCTION dftest.f_defaults(a integer, "B c" text DEFAULT 'x,y', VARIADIC rest numeric[] DEFAULT '{}') RETURNS text LANGUAGE sql AS $$ SELECT 'a' $$;
CREATE FUNCTION dftest.f_out(IN x int, OUT y int, INOUT z text) LANGUAGE sql AS $$ SELECT 1, 'a' $$;
CREATE FUNCTION dftest.f_table(n int) RETURNS TABLE(k int, "V" text) LANGUAGE sql AS $$ SELECT 1, 'a' $$;
CREATE FUNCTION dftest.f_setof() RETURNS SETOF bigint LANGUAGE sql AS $$ SELECT 1::bigint $$;
CREATE FUNCTION dftest.f_body(a int) RETURNS int LANGUAGE sql BEGIN ATOMIC SELECT a + 1; END;
CREATE FUNCTION dftest."Upper"() RETURNS int LANGUAGE sql AS 'SELECT 1';
CREATE PROCEDURE dftest.p_proc(a int) LANGUAGE sql AS $$ SELECT 1 $$;
CREATE FUNCTION dftest.f_trig() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NEW; END $$;
CREATE AGGREGATE dftest.my_sum(int) (sfunc = int4pl, stype = int);
COMMENT ON FUNCTION dftest.f_setof() IS 'a comment';
`

// TestDescribeFunctionsMatchPsql: on PostgreSQL 15 itself the shell's \df
// prints what psql 15 prints, byte for byte, errors included: the filters
// of every letter, psql's pattern rules and every argument and result
// shape.
func TestDescribeFunctionsMatchPsql(t *testing.T) {
	pg := requirePG(t)
	conn := pg.connect(t)
	if _, perr := pgtest.Exec(t, conn, userFunctions); perr != nil {
		t.Fatal(perr)
	}
	t.Cleanup(func() { pgtest.Exec(t, conn, "DROP SCHEMA dftest CASCADE") })
	for _, cmd := range []string{
		`\df`, `\df+`, `\dfS abs`, `\df abs`, `\dfS lower`, `\dfS+ length`, `\dfS nosuch`, `\df nosuch*`,
		`\dfa`, `\dfn`, `\dfp`, `\dft`, `\dfw`, `\dfpt`, `\dfna`, `\dfa+S sum`, `\dfw rank`, `\dfan "Foo".b*r?`,
		`\df dftest.*`, `\df dftest.f_*`, `\df *.f_?ut`, `\df "Upper"`, `\df upper`, `\df DFTEST.F_BODY`,
		`\df pg_catalog.upper`, `\df postgres.dftest.f_out`, `\df a.b.c.d`, `\df other.pg_catalog.abs`,
		`\dfaz`, `\dfS+ generate_series`, `\df *.concat*`, `\dfS array_t?_string`, `\dfS "array_to_string"`,
		`\df dftest.`, `\df .abs`, `\df pg_catalog.(abs|sign)`, `\df+ dftest.f_body`,
	} {
		t.Run(cmd, func(t *testing.T) {
			want, wantErr, got, gotErr := runBoth(t, pg, cmd+"\n")
			if got != want || gotErr != wantErr {
				t.Errorf("shell differs from psql\n got:\n%s%s\nwant:\n%s%s", got, gotErr, want, wantErr)
			}
		})
	}
}

// TestDescribeFunctionsOnMagmalake: on magmalake's own catalog \df lists
// what psql 15 lists on PostgreSQL 15 for the functions both have. \df
// and \df+ (no user functions) and \dfS abs (magmalake has every abs) are
// byte for byte psql's; for the rest each row is psql's row for the
// same function and the rows are exactly PostgreSQL's rows of the
// signatures magmalake's pg_proc holds.
func TestDescribeFunctionsOnMagmalake(t *testing.T) {
	pg := requirePG(t)
	sess := magmalakeSession(t)
	oursSigs := functionSignatures(t, pg, sess)
	for _, cmd := range []string{`\df`, `\df+`, `\dfS abs`, `\df nosuch`, `\dfS lower`, `\dfS+ length`, `\dfS+ generate_series`,
		`\dfa sum`, `\dfwS`, `\dfS+ lpad`, `\df pg_catalog.concat*`, `\df count`, `\df *.array_*`} {
		t.Run(cmd, func(t *testing.T) {
			want, wantErr := pg.psql(t, cmd+"\n", "-f", "-")
			got, gotErr := runShell(t, sess, cmd+"\n")
			if gotErr != psqlLogPrefix.ReplaceAllString(wantErr, "") {
				t.Errorf("stderr %q, want %q", gotErr, wantErr)
			}
			w, g := parseListing(t, want), parseListing(t, got)
			if g.title != w.title || strings.Join(g.header, "|") != strings.Join(w.header, "|") {
				t.Fatalf("title or header differ\n got:\n%s\nwant:\n%s", got, want)
			}
			var expect [][]string
			for _, r := range w.rows {
				if oursSigs[r[1]+"("+r[3]+")"] {
					expect = append(expect, r)
				}
			}
			if strings.Join(flatten(g.rows), "\n") != strings.Join(flatten(expect), "\n") {
				t.Errorf("rows differ from PostgreSQL's rows of magmalake's functions\n got:\n%s\nwant rows of:\n%s", got, want)
			}
			if len(expect) == len(w.rows) && got != want {
				t.Errorf("same functions, output differs\n got:\n%s\nwant:\n%s", got, want)
			}
			if len(g.rows) == 0 && cmd != `\df` && cmd != `\df+` && cmd != `\df nosuch` {
				t.Errorf("magmalake lists no %s", cmd)
			}
		})
	}
}

// magmalakeSession is a session of an engine on an empty warehouse, as
// user postgres (psql's owner column names the bootstrap superuser).
func magmalakeSession(t *testing.T) *session.Session {
	t.Helper()
	s := testserver.Engine(t, t.TempDir()).NewSession(stmt.SessionInfo{User: "postgres", Database: "postgres"})
	t.Cleanup(s.Close)
	return s
}

// functionSignatures are magmalake's pg_proc rows as PostgreSQL names
// them: name(pg_get_function_arguments) for each OID magmalake lists.
func functionSignatures(t *testing.T, pg *pgHarness, sess *session.Session) map[string]bool {
	t.Helper()
	sh := New(sess, &strings.Builder{}, &strings.Builder{})
	oids, err := sh.cat.queryText(context.Background(), "SELECT oid FROM pg_catalog.pg_proc")
	if err != nil || len(oids) < 100 {
		t.Fatalf("magmalake's pg_proc: %d rows, %v", len(oids), err)
	}
	var list []string
	for _, r := range oids {
		list = append(list, r[0])
	}
	res, perr := pgtest.Exec(t, pg.connect(t), "SELECT proname || '(' || pg_get_function_arguments(oid) || ')' FROM pg_proc WHERE oid IN ("+strings.Join(list, ",")+")")
	if perr != nil {
		t.Fatal(perr)
	}
	sigs := map[string]bool{}
	for _, r := range pgtest.Text(res[0]) {
		sigs[*r[0]] = true
	}
	if len(sigs) != len(list) {
		t.Fatalf("PostgreSQL has %d of magmalake's %d pg_proc OIDs", len(sigs), len(list))
	}
	return sigs
}

// runShell runs script in a shell on sess (pager off, going on past
// errors, as runBoth's) and returns stdout and stderr.
func runShell(t *testing.T, sess Session, script string) (string, string) {
	t.Helper()
	var out, errOut strings.Builder
	sh := New(sess, &out, &errOut)
	sh.StopOnError = false
	applyFlags(t, sh, "-P", "pager=off")
	sh.RunScript(context.Background(), strings.NewReader(script))
	return out.String(), errOut.String()
}

// listing is an aligned table with a title, cut into trimmed cells.
type listing struct {
	title  string
	header []string
	rows   [][]string
}

var footerLine = regexp.MustCompile(`^\(\d+ rows?\)$`)

// parseListing reads one border-1 aligned table whose cells are one line
// each.
func parseListing(t *testing.T, out string) listing {
	t.Helper()
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) < 4 || !footerLine.MatchString(lines[len(lines)-1]) {
		t.Fatalf("not a titled table:\n%s", out)
	}
	cells := func(l string) []string {
		c := strings.Split(l, "|")
		for i := range c {
			c[i] = strings.TrimSpace(c[i])
		}
		return c
	}
	l := listing{title: strings.TrimSpace(lines[0]), header: cells(lines[1])}
	for _, r := range lines[3 : len(lines)-1] {
		l.rows = append(l.rows, cells(r))
	}
	return l
}

func flatten(rows [][]string) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = strings.Join(r, "|")
	}
	return out
}
