package repl

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/magmalake/magmalake/sql"
)

// \df[anptwS+] [PATTERN] lists functions as psql 15's describeFunctions
// does: the same filters and pattern rules, the same columns and order.
// psql has the server print the result and argument types
// (pg_get_function_result, pg_get_function_arguments); the shell builds
// them from pg_proc's columns, as those functions do, so that they read
// the same on any server whose pg_proc holds the signatures.

const dfOptions = "anptwS+"

// isFunctionsCommand reports \df and its variants (\dfS+, \dfa, ...);
// psql dispatches on the letter after \df and checks the rest later.
func isFunctionsCommand(cmd string) bool {
	return strings.HasPrefix(cmd, `\df`) && (len(cmd) == 3 || strings.IndexByte(dfOptions, cmd[3]) >= 0)
}

// funcFilter is what \df's letters ask for.
type funcFilter struct {
	verbose, system                         bool
	agg, normal, proc, trigger, window, all bool
}

func parseFuncFilter(opts string) funcFilter {
	f := funcFilter{verbose: strings.Contains(opts, "+"), system: strings.Contains(opts, "S"),
		agg: strings.Contains(opts, "a"), normal: strings.Contains(opts, "n"), proc: strings.Contains(opts, "p"),
		trigger: strings.Contains(opts, "t"), window: strings.Contains(opts, "w")}
	if !f.agg && !f.normal && !f.proc && !f.trigger && !f.window {
		f.agg, f.normal, f.proc, f.trigger, f.window = true, true, true, true, true
	}
	f.all = f.agg && f.normal && f.proc && f.trigger && f.window
	return f
}

// kindClauses are describeFunctions' conditions on the function kind.
func (f funcFilter) kindClauses() []string {
	const trigger = "p.prorettype = 'pg_catalog.trigger'::pg_catalog.regtype"
	switch {
	case f.all:
		return nil
	case f.normal:
		var w []string
		if !f.agg {
			w = append(w, "p.prokind <> 'a'")
		}
		if !f.proc {
			w = append(w, "p.prokind <> 'p'")
		}
		if !f.trigger {
			w = append(w, "p.prorettype <> 'pg_catalog.trigger'::pg_catalog.regtype")
		}
		if !f.window {
			w = append(w, "p.prokind <> 'w'")
		}
		return w
	}
	var or []string
	for _, c := range []struct {
		on   bool
		cond string
	}{{f.agg, "p.prokind = 'a'"}, {f.trigger, trigger}, {f.proc, "p.prokind = 'p'"}, {f.window, "p.prokind = 'w'"}} {
		if c.on {
			or = append(or, c.cond)
		}
	}
	return []string{"(" + strings.Join(or, " OR ") + ")"}
}

// listFunctions runs \df.
func (cat *catalog) listFunctions(ctx context.Context, cmd string, args []string) error {
	opts := cmd[3:]
	if !allIn(opts, dfOptions) {
		// psql says so and goes on: the command does not fail.
		fmt.Fprintf(cat.pr.errOut, "\\df only takes [%s] as options\n", dfOptions)
		return nil
	}
	if len(args) > 1 {
		fmt.Fprintf(cat.pr.errOut, "%s: argument type patterns are not supported\n", cmd)
		return ErrFailed
	}
	f := parseFuncFilter(opts)
	q, err := cat.functionsQuery(ctx, f, args)
	if err != nil {
		return err
	}
	rows, err := cat.queryText(ctx, q)
	if err != nil {
		cat.pr.printError(err, q)
		return ErrFailed
	}
	t, err := cat.functionsTable(ctx, rows, f.verbose)
	if err != nil {
		cat.pr.printError(err, "")
		return ErrFailed
	}
	return cat.pr.printTable(t, resultStyle{title: "List of functions"})
}

func allIn(s, set string) bool {
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(set, s[i]) < 0 {
			return false
		}
	}
	return true
}

// functionsQuery reads the pg_proc rows \df lists, with the columns the
// result and argument types are built from.
func (cat *catalog) functionsQuery(ctx context.Context, f funcFilter, args []string) (string, error) {
	// The arrays come as text: oidvector's is "23 25", the others' {...}.
	cols := []string{"n.nspname", "p.proname", "p.prorettype", "p.proretset", "p.proargtypes::text", "p.proallargtypes::text",
		"p.proargmodes::text", "p.proargnames::text", "p.pronargs", "p.pronargdefaults", "pg_catalog.pg_get_expr(p.proargdefaults, 0)", "p.prokind"}
	from := "pg_catalog.pg_proc p\n     LEFT JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace"
	if f.verbose {
		cols = append(cols, "p.provolatile", "p.proparallel", "pg_catalog.pg_get_userbyid(p.proowner)", "p.prosecdef",
			"pg_catalog.array_to_string(p.proacl, E'\\n')", "l.lanname",
			"COALESCE(pg_catalog.pg_get_function_sqlbody(p.oid), p.prosrc)", "d.description")
		// obj_description(p.oid, 'pg_proc'), psql's, is this join.
		from += "\n     LEFT JOIN pg_catalog.pg_language l ON l.oid = p.prolang" +
			"\n     LEFT JOIN pg_catalog.pg_description d ON d.objoid = p.oid AND d.classoid = 'pg_catalog.pg_proc'::pg_catalog.regclass AND d.objsubid = 0"
	}
	where := f.kindClauses()
	pattern := ""
	if len(args) > 0 {
		pattern = args[0]
	}
	pw, err := cat.patternClauses(ctx, pattern, len(args) > 0, "n.nspname", "p.proname", "pg_catalog.pg_function_is_visible(p.oid)")
	if err != nil {
		return "", err
	}
	where = append(where, pw...)
	if !f.system && len(args) == 0 {
		where = append(where, "n.nspname <> 'pg_catalog'", "n.nspname <> 'information_schema'")
	}
	return "SELECT " + strings.Join(cols, ", ") + "\nFROM " + from + "\nWHERE " + strings.Join(where, "\n  AND "), nil
}

// funcRow is one pg_proc row as functionsQuery reads it.
type funcRow struct {
	schema, name   string
	rettype        string
	retset         bool
	argtypes       []string // the call's (proargtypes) or every argument's (proallargtypes)
	modes, names   []string
	nargs          int
	defaults       []string
	kind           string
	verbose        []string // \df+'s raw columns
	args, resultTy string
}

func parseFuncRow(r []string) funcRow {
	f := funcRow{schema: r[0], name: r[1], rettype: r[2], retset: r[3] == "t", kind: r[11],
		argtypes: oidList(r[4]), modes: arrayText(r[6]), names: arrayText(r[7]), defaults: splitDefaults(r[10])}
	fmt.Sscan(r[8], &f.nargs)
	if all := oidList(r[5]); len(all) > 0 {
		f.argtypes = all
	}
	if len(r) > 12 {
		f.verbose = r[12:]
	}
	return f
}

// oidList reads an oidvector ("23 25") or oid[] ("{23,25}").
func oidList(s string) []string {
	if strings.HasPrefix(s, "{") {
		return arrayText(s)
	}
	return strings.Fields(s)
}

func arrayText(s string) []string {
	if s == "" {
		return nil
	}
	elems, err := sql.ParseArrayText(s)
	if err != nil {
		return nil
	}
	out := make([]string, len(elems))
	for i, e := range elems {
		if e != nil {
			out[i] = *e
		}
	}
	return out
}

// splitDefaults splits pg_get_expr's list of default expressions at the
// commas outside quotes and parentheses.
func splitDefaults(s string) []string {
	if s == "" {
		return nil
	}
	var out []string
	depth, start := 0, 0
	var quote byte
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '(' || c == '[':
			depth++
		case c == ')' || c == ']':
			depth--
		case c == ',' && depth == 0:
			out = append(out, strings.TrimSpace(s[start:i]))
			start = i + 1
		}
	}
	return append(out, strings.TrimSpace(s[start:]))
}

// functionsTable formats the rows as psql shows them, in its order
// (schema, name, argument types).
func (cat *catalog) functionsTable(ctx context.Context, rows [][]string, verbose bool) (*table, error) {
	fs := make([]funcRow, len(rows))
	var oids []string
	for i, r := range rows {
		fs[i] = parseFuncRow(r)
		oids = append(append(oids, fs[i].rettype), fs[i].argtypes...)
	}
	types, err := cat.typeNames(ctx, oids)
	if err != nil {
		return nil, err
	}
	for i := range fs {
		fs[i].args = fs[i].arguments(types, false)
		fs[i].resultTy = fs[i].result(types)
	}
	sort.SliceStable(fs, func(i, j int) bool {
		a, b := &fs[i], &fs[j]
		if a.schema != b.schema {
			return a.schema < b.schema
		}
		if a.name != b.name {
			return a.name < b.name
		}
		return a.args < b.args
	})
	t := &table{headers: []string{"Schema", "Name", "Result data type", "Argument data types", "Type"}, footer: true}
	if verbose {
		t.headers = append(t.headers, "Volatility", "Parallel", "Owner", "Security", "Access privileges", "Language", "Source code", "Description")
	}
	t.right = make([]bool, len(t.headers))
	for _, f := range fs {
		row := []string{f.schema, f.name, f.resultTy, f.args, funcKind(f.kind)}
		if verbose {
			row = append(row, f.verboseCells()...)
		}
		t.rows = append(t.rows, row)
	}
	return t, nil
}

func funcKind(k string) string {
	switch k {
	case "a":
		return "agg"
	case "w":
		return "window"
	case "p":
		return "proc"
	}
	return "func"
}

// verboseCells are \df+'s columns from its raw ones.
func (f *funcRow) verboseCells() []string {
	v := f.verbose
	vol := map[string]string{"i": "immutable", "s": "stable", "v": "volatile"}[v[0]]
	par := map[string]string{"r": "restricted", "s": "safe", "u": "unsafe"}[v[1]]
	sec := "invoker"
	if v[3] == "t" {
		sec = "definer"
	}
	return []string{vol, par, v[2], sec, v[4], v[5], v[6], v[7]}
}

// typeNames is format_type(oid, NULL) of each oid.
func (cat *catalog) typeNames(ctx context.Context, oids []string) (map[string]string, error) {
	names := map[string]string{}
	var list []string
	for _, o := range oids {
		if _, ok := names[o]; !ok && o != "" {
			names[o] = ""
			list = append(list, o)
		}
	}
	for len(list) > 0 {
		n := min(len(list), 400)
		cols := make([]string, n)
		for i, o := range list[:n] {
			cols[i] = "pg_catalog.format_type(" + sqlString(o) + "::pg_catalog.oid, NULL)"
		}
		r, err := cat.queryText(ctx, "SELECT "+strings.Join(cols, ", "))
		if err != nil {
			return nil, err
		}
		if len(r) != 1 || len(r[0]) != n {
			return nil, fmt.Errorf("format_type answered %d rows", len(r))
		}
		for i, o := range list[:n] {
			names[o] = r[0][i]
		}
		list = list[n:]
	}
	return names, nil
}

// result is pg_get_function_result: TABLE(...) for a set of rows with
// TABLE arguments, SETOF type for another set, nothing for a procedure,
// else the type.
func (f *funcRow) result(types map[string]string) string {
	if f.kind == "p" {
		return ""
	}
	if f.retset {
		if tab := f.arguments(types, true); tab != "" {
			return "TABLE(" + tab + ")"
		}
		return "SETOF " + types[f.rettype]
	}
	return types[f.rettype]
}

// arguments is pg_get_function_arguments (table false) or the TABLE(...)
// columns (table true): each argument's mode, name, type and default.
func (f *funcRow) arguments(types map[string]string, table bool) string {
	var b strings.Builder
	input, printed := 0, 0
	lackDefaults := f.nargs - len(f.defaults)
	for i, t := range f.argtypes {
		mode := "i"
		if i < len(f.modes) {
			mode = f.modes[i]
		}
		prefix, isInput := map[string]string{"b": "INOUT ", "o": "OUT ", "v": "VARIADIC "}[mode], mode != "o" && mode != "t"
		if mode == "i" && f.kind == "p" {
			prefix = "IN " // as PostgreSQL marks a procedure's, for DROP PROCEDURE's syntax
		}
		if isInput {
			input++
		}
		if table != (mode == "t") {
			continue
		}
		if printed > 0 {
			b.WriteString(", ")
		}
		b.WriteString(prefix)
		if i < len(f.names) && f.names[i] != "" {
			b.WriteString(sql.QuoteIdent(f.names[i]) + " ")
		}
		b.WriteString(types[t])
		if isInput && input > lackDefaults && input-lackDefaults-1 < len(f.defaults) {
			b.WriteString(" DEFAULT " + f.defaults[input-lackDefaults-1])
		}
		printed++
	}
	return b.String()
}
