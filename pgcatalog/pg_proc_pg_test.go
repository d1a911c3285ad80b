package pgcatalog_test

import (
	"context"
	"flag"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/magmalake/magmalake/internal/pgtest"
	"github.com/magmalake/magmalake/pgcatalog"
	"github.com/magmalake/magmalake/sql"
)

var updateProcs = flag.Bool("update", false, "rewrite pg_proc.tsv from PostgreSQL 15 and the engine")

// pgProcQuery reads PostgreSQL's pg_catalog functions: pg_proc.tsv's
// columns in PostgreSQL's text output (the body psql's \df+ shows, which
// magmalake keeps in prosrc: its pg_get_function_sqlbody answers NULL),
// then what the probe needs: result and argument type names, and the
// aggregate kind.
const pgProcQuery = `SELECT p.oid, p.proname, p.prolang, p.procost, p.prorows, p.provariadic::int8, p.prokind,
	p.prosecdef, p.proleakproof, p.proisstrict, p.proretset, p.provolatile, p.proparallel, p.pronargs,
	p.pronargdefaults, p.prorettype::int8, p.proargtypes, p.proallargtypes, p.proargmodes, p.proargnames,
	coalesce(pg_get_function_sqlbody(p.oid), p.prosrc), obj_description(p.oid, 'pg_proc'),
	format_type(p.prorettype, NULL),
	array_to_string(array(SELECT format_type(x, NULL) FROM unnest(p.proargtypes) WITH ORDINALITY u(x, n) ORDER BY n), '|'),
	coalesce(a.aggkind::text, '')
FROM pg_proc p LEFT JOIN pg_aggregate a ON a.aggfnoid = p.oid
WHERE p.pronamespace = 'pg_catalog'::regnamespace ORDER BY p.oid`

// pgProc is one PostgreSQL function: its pg_proc.tsv fields and its call.
type pgProc struct {
	fields   []*string
	name     string
	kind     string
	retset   bool
	variadic bool
	ret      string   // result type name
	args     []string // argument type names
	aggkind  string
	outArgs  bool // OUT, INOUT or TABLE arguments: a record result
}

// TestProcRows: pg_proc.tsv holds PostgreSQL 15's rows for exactly the
// signatures sql's function registry lists, plus the support functions
// pg_type and pg_am name; the registry lists exactly the functions whose
// calls the engine prepares with PostgreSQL's argument types and answers
// with PostgreSQL's result type; and what magmalake's catalog says of them
// (format_type of every type they name, pg_type's support functions,
// regproc and regprocedure text) is PostgreSQL's. -update rewrites the
// file.
func TestProcRows(t *testing.T) {
	ctx := context.Background()
	pgConn := pgtest.Start(t).Connect(t, "postgres")
	ours := connectMagmalake(t)
	res, perr := pgtest.Exec(t, pgConn, pgProcQuery)
	if perr != nil {
		t.Fatal(perr)
	}
	support := map[string]bool{}
	for _, n := range pgcatalog.SupportProcNames() {
		support[n] = true
	}
	declared := registrySignatures()
	var kept []pgProc
	answered := map[string]bool{}
	for _, row := range pgtest.Text(res[0]) {
		p := newPgProc(row)
		if !support[p.name] && probeProc(ctx, ours, p) {
			answered[p.signature()] = true
		}
		if support[p.name] || declared[p.signature()] {
			kept = append(kept, p)
		}
	}
	checkDeclared(t, declared, answered)
	tsv := procTSV(kept)
	if *updateProcs {
		if err := os.WriteFile("pg_proc.tsv", []byte(tsv), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote pg_proc.tsv: %d functions", len(kept))
	} else if tsv != pgcatalog.ProcTSV {
		t.Errorf("pg_proc.tsv is not PostgreSQL's rows for the registry's signatures (%d functions now); run go test ./pgcatalog -run TestProcRows -update\n%s",
			len(kept), lineDiff(pgcatalog.ProcTSV, tsv))
	}
	checkProcCatalog(t, pgConn, ours, kept)
}

// registrySignatures are the registry's signatures, name(argument types).
func registrySignatures() map[string]bool {
	out := map[string]bool{}
	for _, f := range sql.Functions() {
		for _, args := range f.Signatures {
			out[f.Name+"("+args+")"] = true
		}
	}
	return out
}

// checkDeclared compares the signatures the registry declares with those
// the engine answers as PostgreSQL does.
func checkDeclared(t *testing.T, declared, answered map[string]bool) {
	t.Helper()
	var missing, extra []string
	for s := range answered {
		if !declared[s] {
			missing = append(missing, s)
		}
	}
	for s := range declared {
		if !answered[s] {
			extra = append(extra, s)
		}
	}
	sort.Strings(missing)
	sort.Strings(extra)
	for _, s := range missing {
		t.Errorf("the engine answers %s as PostgreSQL does, but no registry entry lists that signature", s)
	}
	for _, s := range extra {
		t.Errorf("the registry lists %s, but the engine does not answer it as PostgreSQL does (or PostgreSQL has no such function)", s)
	}
}

func newPgProc(row []*string) pgProc {
	s := func(i int) string {
		if row[i] == nil {
			return ""
		}
		return *row[i]
	}
	p := pgProc{fields: row[:22], name: s(1), kind: s(6), retset: s(10) == "t", variadic: s(5) != "0",
		ret: s(22), aggkind: s(24), outArgs: strings.ContainsAny(s(18), "obt")}
	if a := s(23); a != "" {
		p.args = strings.Split(a, "|")
	}
	return p
}

// signature is name(argument types) as the registry writes it.
func (p pgProc) signature() string {
	return p.name + "(" + strings.Join(p.args, ",") + ")"
}

// polymorphic are the pseudo-types a probe calls with integer arguments.
var polymorphic = map[string]string{
	"anyelement": "integer", "anycompatible": "integer", "anynonarray": "integer", `"any"`: "integer",
	"anyarray": "integer[]", "anycompatiblearray": "integer[]",
}

// probeProc reports whether the engine prepares a call of p, its
// arguments NULLs of p's types (polymorphic ones as integer; a variadic
// one with one element, then two), and answers with p's result type.
func probeProc(ctx context.Context, conn *pgx.Conn, p pgProc) bool {
	if p.kind == "p" || p.aggkind == "o" || p.aggkind == "h" || p.outArgs {
		return false // procedures, ordered-set aggregates, record results
	}
	args := make([]string, len(p.args))
	for i, a := range p.args {
		if v, ok := polymorphic[a]; ok {
			a = v
		}
		if p.variadic && i == len(p.args)-1 {
			a = strings.TrimSuffix(a, "[]")
		}
		args[i] = "NULL::" + a
	}
	want := p.ret
	if v, ok := polymorphic[want]; ok {
		want = v
	}
	tries := [][]string{args}
	if p.variadic {
		tries = append(tries, append(args[:len(args):len(args)], args[len(args)-1]))
	}
	for _, a := range tries {
		if got, ok := preparedType(ctx, conn, probeQuery(p, a)); ok && sameResult(got, want) {
			return true
		}
	}
	return false
}

func probeQuery(p pgProc, args []string) string {
	call := p.name + "(" + strings.Join(args, ", ") + ")"
	switch {
	case p.name == "count" && len(args) == 0:
		call = "count(*)"
	case p.kind == "w":
		call += " OVER ()"
	}
	if p.retset {
		return "SELECT * FROM " + call
	}
	return "SELECT " + call
}

// preparedType is the type name of the one column q would return.
func preparedType(ctx context.Context, conn *pgx.Conn, q string) (string, bool) {
	sd, err := conn.Prepare(ctx, "", q)
	if err != nil || len(sd.Fields) != 1 {
		return "", false
	}
	var name string
	if err := conn.QueryRow(ctx, "SELECT format_type($1::oid, NULL)", sd.Fields[0].DataTypeOID).Scan(&name); err != nil {
		return "", false
	}
	return name, true
}

// sameResult compares result types; magmalake carries name as text.
func sameResult(got, want string) bool {
	return got == want || got == "text" && want == "name" || got == "text[]" && want == "name[]"
}

// procTSV renders the rows as pg_proc.tsv.
func procTSV(ps []pgProc) string {
	var b strings.Builder
	b.WriteString("# PostgreSQL 15's pg_proc rows for the functions magmalake implements; generated by\n")
	b.WriteString("# go test ./pgcatalog -run TestProcRows -update (see pg_proc.go). Do not edit.\n")
	b.WriteString(pgcatalog.ProcColumns + "\n")
	for _, p := range ps {
		for i, f := range p.fields {
			if i > 0 {
				b.WriteByte('\t')
			}
			if f == nil {
				b.WriteString(`\N`)
				continue
			}
			b.WriteString(strings.NewReplacer(`\`, `\\`, "\n", `\n`, "\t", `\t`, "\r", `\r`).Replace(*f))
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// checkProcCatalog compares what both catalogs say of the kept functions.
func checkProcCatalog(t *testing.T, pg, ours *pgx.Conn, kept []pgProc) {
	var oids, types []string
	seen := map[string]bool{}
	for _, p := range kept {
		oids = append(oids, *p.fields[0])
		for _, typ := range append(strings.Fields(*p.fields[16]), *p.fields[15]) {
			if !seen[typ] {
				seen[typ] = true
				types = append(types, "("+typ+"::oid)")
			}
		}
	}
	list := strings.Join(oids, ",")
	for _, q := range []string{
		// every type the functions name, as format_type spells it
		`SELECT t, format_type(t, NULL) FROM (VALUES ` + strings.Join(types, ", ") + `) v(t) ORDER BY 1`,
		`SELECT oid, typinput::text, typoutput::text, typreceive::text, typsend::text FROM pg_type WHERE oid IN (` + typeOIDs(t, ours) + `) ORDER BY 1`,
		`SELECT oid, oid::regprocedure::text, oid::regprocedure::text::regprocedure::oid FROM pg_proc WHERE oid IN (` + list + `) ORDER BY 1`,
	} {
		want, got := queryLines(t, pg, q), queryLines(t, ours, q)
		if want != got {
			t.Errorf("%s\ndiffers from PostgreSQL:\n%s", q, lineDiff(want, got))
		}
	}
	// regproc qualifies a name that names several functions: here, of
	// magmalake's rows, not PostgreSQL's.
	overloads := map[string]int{}
	for _, p := range kept {
		overloads[p.name]++
	}
	var want strings.Builder
	for _, p := range kept {
		name := sql.QuoteIdent(p.name)
		if overloads[p.name] > 1 {
			name = "pg_catalog." + name
		}
		fmt.Fprintf(&want, "%s|%s\n", *p.fields[0], name)
	}
	q := `SELECT oid, oid::regproc::text FROM pg_proc ORDER BY 1`
	if got := queryLines(t, ours, q); got != want.String() {
		t.Errorf("%s:\n%s", q, lineDiff(want.String(), got))
	}
}

// typeOIDs lists magmalake's pg_type OIDs.
func typeOIDs(t *testing.T, ours *pgx.Conn) string {
	return strings.ReplaceAll(strings.TrimSpace(queryLines(t, ours, "SELECT oid FROM pg_type ORDER BY 1")), "\n", ",")
}

// queryLines runs q and prints its rows, one a line, fields joined by |.
func queryLines(t *testing.T, conn *pgx.Conn, q string) string {
	t.Helper()
	res, err := pgtest.Run(context.Background(), conn, q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	var b strings.Builder
	for _, row := range pgtest.Text(res[0]) {
		for i, v := range row {
			if i > 0 {
				b.WriteByte('|')
			}
			if v != nil {
				b.WriteString(*v)
			}
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// lineDiff lists the lines only one side has.
func lineDiff(want, got string) string {
	count := map[string]int{}
	for _, l := range strings.Split(want, "\n") {
		count[l]++
	}
	for _, l := range strings.Split(got, "\n") {
		count[l]--
	}
	var out []string
	for l, n := range count {
		switch {
		case n > 0:
			out = append(out, "- "+l)
		case n < 0:
			out = append(out, "+ "+l)
		}
	}
	sort.Strings(out)
	if len(out) > 40 {
		out = append(out[:40], fmt.Sprintf("... %d more", len(out)-40))
	}
	return strings.Join(out, "\n")
}

// connectMagmalake serves an empty warehouse and connects to it.
func connectMagmalake(t *testing.T) *pgx.Conn {
	t.Helper()
	cfg, err := pgx.ParseConfig("postgres://postgres@" + startMagmalake(t) + "/cat?sslmode=disable")
	if err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.ConnectConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}
