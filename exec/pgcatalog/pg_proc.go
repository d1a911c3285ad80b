package pgcatalog

import (
	_ "embed"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql"
)

// pg_proc's rows are PostgreSQL 15's own rows (OIDs, signatures, flags,
// descriptions) for the functions magmalake runs: every pg_catalog function
// whose call the engine prepares with PostgreSQL's argument types and
// answers with PostgreSQL's result type, and the type input/output and
// access method handler functions pg_type and pg_am name. pg_proc.tsv is
// generated from both systems by TestProcRows (go test ./exec/pgcatalog
// -run TestProcRows -update), so the engine's binder stays the one list of
// implemented functions; the test fails when the file falls behind it.
//
//go:embed pg_proc.tsv
var procTSV string

// proc is one pg_proc row, as PostgreSQL prints its columns.
type proc struct {
	oid                 int64
	name                string
	lang                int64
	cost, rows          float64
	variadic            int64
	kind                string
	secdef, leakproof   bool
	strict, retset      bool
	volatile, parallel  string
	nargs, nargdefaults int64
	rettype             int64
	argtypes            []int64
	allargtypes         any // oid[] text or nil
	argmodes, argnames  any // char[] / text[] text or nil
	src                 string
	description         string
	hasDescription      bool
}

// procs are pg_proc's rows in OID order; built once, never changed.
var procs = mustParseProcs(procTSV)

func mustParseProcs(tsv string) []proc {
	ps, err := parseProcs(tsv)
	if err != nil {
		panic(fmt.Sprintf("pg_proc.tsv: %v", err)) // the embedded file is generated; a bad one is a build mistake
	}
	return ps
}

// procColumns are pg_proc.tsv's columns, as its header line names them.
const procColumns = "oid\tproname\tprolang\tprocost\tprorows\tprovariadic\tprokind\tprosecdef\tproleakproof\tproisstrict\tproretset\t" +
	"provolatile\tproparallel\tpronargs\tpronargdefaults\tprorettype\tproargtypes\tproallargtypes\tproargmodes\tproargnames\tprosrc\tdescription"

// parseProcs reads pg_proc.tsv: '#' comment lines, the header, then one row
// a line in COPY's text format (\N for NULL).
func parseProcs(tsv string) ([]proc, error) {
	var out []proc
	header := false
	for n, line := range strings.Split(strings.TrimRight(tsv, "\n"), "\n") {
		if strings.HasPrefix(line, "#") {
			continue
		}
		if !header {
			if line != procColumns {
				return nil, fmt.Errorf("line %d: header %q, want %q", n+1, line, procColumns)
			}
			header = true
			continue
		}
		p, err := parseProc(strings.Split(line, "\t"))
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", n+1, err)
		}
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].oid < out[j].oid })
	return out, nil
}

func parseProc(f []string) (proc, error) {
	if len(f) != strings.Count(procColumns, "\t")+1 {
		return proc{}, fmt.Errorf("%d fields", len(f))
	}
	var errs []error
	num := func(s string) int64 {
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			errs = append(errs, err)
		}
		return v
	}
	float := func(s string) float64 {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			errs = append(errs, err)
		}
		return v
	}
	p := proc{oid: num(f[0]), name: f[1], lang: num(f[2]), cost: float(f[3]), rows: float(f[4]), variadic: num(f[5]),
		kind: f[6], secdef: f[7] == "t", leakproof: f[8] == "t", strict: f[9] == "t", retset: f[10] == "t",
		volatile: f[11], parallel: f[12], nargs: num(f[13]), nargdefaults: num(f[14]), rettype: num(f[15]),
		allargtypes: nullable(f[17]), argmodes: nullable(f[18]), argnames: nullable(f[19]), src: unescapeCopy(f[20])}
	for _, a := range strings.Fields(f[16]) {
		p.argtypes = append(p.argtypes, num(a))
	}
	if f[21] != `\N` {
		p.description, p.hasDescription = unescapeCopy(f[21]), true
	}
	if len(errs) > 0 {
		return proc{}, errs[0]
	}
	return p, nil
}

func nullable(s string) any {
	if s == `\N` {
		return nil
	}
	return unescapeCopy(s)
}

// unescapeCopy undoes COPY text format's backslash escapes.
func unescapeCopy(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		i++
		switch s[i] {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

// supportProcNames are the functions pg_type and pg_am rows name: each
// type's input, output, receive and send function (PostgreSQL names the
// last two after the first: int4in, int4recv; date_in, date_recv), the
// array types' and the access methods' handlers. Only those PostgreSQL has
// become rows (anyelement has no receive function).
func supportProcNames() []string {
	names := []string{"array_in", "array_out", "array_recv", "array_send", "heap_tableam_handler", "bthandler"}
	for _, t := range pgTypes {
		names = append(names, t.input, t.output, t.receive(), t.send())
	}
	return names
}

func (t *pgType) receive() string { return strings.TrimSuffix(t.input, "in") + "recv" }
func (t *pgType) send() string    { return strings.TrimSuffix(t.input, "in") + "send" }

func procRows(*snapshot) [][]any {
	out := make([][]any, 0, len(procs))
	for i := range procs {
		p := &procs[i]
		out = append(out, []any{p.oid, p.name, oidPgCatalog, oidSuperuser, p.lang,
			p.cost, p.rows, p.variadic, int64(0), p.kind, p.secdef,
			p.leakproof, p.strict, p.retset, p.volatile, p.parallel,
			p.nargs, p.nargdefaults, p.rettype, oidArrayText(p.argtypes),
			p.allargtypes, p.argmodes, p.argnames, nil,
			nil, p.src, nil, nil, nil,
			nil})
	}
	return out
}

// procDescriptionRows are pg_description's rows: the functions' comments,
// which psql's \df+ shows.
func procDescriptionRows(*snapshot) [][]any {
	var out [][]any
	for i := range procs {
		if p := &procs[i]; p.hasDescription {
			out = append(out, []any{p.oid, int64(1255), int64(0), p.description})
		}
	}
	return out
}

func oidArrayText(oids []int64) string {
	parts := make([]string, len(oids))
	for i, o := range oids {
		parts[i] = strconv.FormatInt(o, 10)
	}
	return "{" + strings.Join(parts, ",") + "}"
}

func procByOID(oid int64) *proc {
	i := sort.Search(len(procs), func(i int) bool { return procs[i].oid >= oid })
	if i < len(procs) && procs[i].oid == oid {
		return &procs[i]
	}
	return nil
}

// procsNamed are the rows of one function name, overloads in OID order.
func procsNamed(name string) []*proc {
	var out []*proc
	for i := range procs {
		if procs[i].name == name {
			out = append(out, &procs[i])
		}
	}
	return out
}

// procByName is the OID of the function of that name (pg_type's and
// pg_am's support functions have one each), 0 (regproc's "-") for none.
func procByName(name string) int64 {
	if ps := procsNamed(name); len(ps) > 0 {
		return ps[0].oid
	}
	return 0
}

// procName prints an OID as regproc does (the name, qualified when the
// name alone would be ambiguous; "-" for 0) or as regprocedure does (the
// name and argument types).
func procName(kind sql.RegKind, oid int64) string {
	if oid == 0 {
		return "-"
	}
	p := procByOID(oid)
	if p == nil {
		return strconv.FormatInt(oid, 10)
	}
	if kind != sql.RegProcedure {
		if len(procsNamed(p.name)) > 1 {
			return "pg_catalog." + sql.QuoteIdent(p.name)
		}
		return sql.QuoteIdent(p.name)
	}
	args := make([]string, len(p.argtypes))
	for i, t := range p.argtypes {
		args[i] = formatType(t, -1)
	}
	return sql.QuoteIdent(p.name) + "(" + strings.Join(args, ",") + ")"
}

// procOID reads regproc ("name", which must name one function: 42725
// otherwise) or regprocedure ("name(type, ...)") input; a function outside
// pg_catalog is none here (42883).
func procOID(kind sql.RegKind, in string) (int64, error) {
	name, args, hasArgs := strings.Cut(in, "(")
	if kind == sql.RegProcedure && !hasArgs {
		return 0, pgerr.Errorf(pgerr.InvalidTextRepresentation, "expected a left parenthesis")
	}
	if kind == sql.RegProcedure && !strings.HasSuffix(strings.TrimSpace(args), ")") {
		return 0, sql.UndefinedReg(kind, in)
	}
	schema, fn := sql.SplitQualifiedName(strings.TrimSpace(name))
	if schema != "" && schema != "pg_catalog" {
		return 0, sql.UndefinedReg(kind, in)
	}
	cands := procsNamed(fn)
	if kind != sql.RegProcedure {
		switch {
		case len(cands) > 1:
			return 0, pgerr.Errorf(pgerr.AmbiguousFunction, "more than one function named %q", in)
		case len(cands) == 1:
			return cands[0].oid, nil
		}
		return 0, sql.UndefinedReg(kind, in)
	}
	want, ok := argTypeOIDs(strings.TrimSuffix(strings.TrimSpace(args), ")"))
	if ok {
		for _, p := range cands {
			if equalOIDs(p.argtypes, want) {
				return p.oid, nil
			}
		}
	}
	return 0, sql.UndefinedReg(kind, in)
}

// argTypeOIDs resolves regprocedure's comma-separated argument types.
func argTypeOIDs(list string) ([]int64, bool) {
	if strings.TrimSpace(list) == "" {
		return nil, true
	}
	var out []int64
	for _, a := range strings.Split(list, ",") {
		a = strings.TrimSpace(a)
		if elem, ok := strings.CutSuffix(a, "[]"); ok {
			t := typeByDisplay(elem)
			if t == nil {
				t = typeByName(elem)
			}
			if t == nil || t.array == 0 {
				return nil, false
			}
			out = append(out, t.array)
			continue
		}
		t := typeByDisplay(a) // "char" and "any", quoted, are not char and any
		if t == nil {
			t = typeByName(a)
		}
		if t == nil {
			return nil, false
		}
		out = append(out, t.oid)
	}
	return out, true
}

// typeByDisplay finds a type by format_type's spelling.
func typeByDisplay(name string) *pgType {
	for i := range pgTypes {
		if pgTypes[i].display == name {
			return &pgTypes[i]
		}
	}
	return nil
}

func equalOIDs(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
