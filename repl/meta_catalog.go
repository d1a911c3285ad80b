package repl

import (
	"context"
	"fmt"
	"strings"
)

// catalog is the informational backslash commands (\d, \dt, \dn, \dv,
// \df, \l, \du, \dt+, \debt) and tab completion's names: what it learns
// by querying the session, printed through the printer.
type catalog struct {
	sess Session
	pr   *printer
	// execute runs a statement and prints its result (Shell.execute).
	execute func(ctx context.Context, stmt string, style resultStyle) error
	// metaKinds are the metadata tables completion offers (Shell.MetadataKinds).
	metaKinds func() []string
}

// metaCatalog runs \l, \du, \dt+ and \df; handled is false for
// other commands.
func (cat *catalog) metaCatalog(ctx context.Context, cmd string, args []string) (handled bool, err error) {
	if isFunctionsCommand(cmd) {
		return true, cat.listFunctions(ctx, cmd, args)
	}
	var stmt, title string
	switch cmd {
	case `\l`, `\list`:
		stmt, title = `SELECT datname AS "Name", pg_get_userbyid(datdba) AS "Owner", pg_encoding_to_char(encoding) AS "Encoding", `+
			`datcollate AS "Collate", datctype AS "Ctype", '' AS "Access privileges" FROM pg_database ORDER BY 1`, "List of databases"
	case `\du`, `\dg`:
		stmt, title = `SELECT rolname AS "Role name", CASE WHEN rolsuper THEN 'Superuser' ELSE '' END AS "Attributes" `+
			`FROM pg_roles ORDER BY 1`, "List of roles"
	case `\dt+`:
		return true, cat.tablesPlus(ctx, args)
	default:
		return false, nil
	}
	if err := cat.execute(ctx, stmt, resultStyle{title: title}); err != nil {
		cat.pr.printError(err, stmt)
		return true, ErrFailed
	}
	return true, nil
}

// describe answers \d, \dt and \dn through the executor's SHOW TABLES,
// DESCRIBE and SHOW SCHEMAS, with psql's titles.
func (cat *catalog) describe(ctx context.Context, cmd string, args []string) error {
	var stmt string
	style := resultStyle{title: "List of relations"}
	switch {
	case cmd == `\dn`:
		stmt, style.title = "SHOW SCHEMAS", "List of schemas"
	case cmd == `\d` && len(args) > 0:
		stmt = "DESCRIBE " + args[0]
		style = resultStyle{title: fmt.Sprintf("Table %q", args[0]), noFooter: true}
	case len(args) == 0:
		stmt = "SHOW TABLES"
	case strings.HasSuffix(args[0], ".*") || strings.HasSuffix(args[0], "."):
		stmt = "SHOW TABLES FROM " + strings.TrimSuffix(strings.TrimSuffix(args[0], "*"), ".")
	default:
		fmt.Fprintf(cat.pr.errOut, "%s: only a SCHEMA.* pattern is supported, not %q\n", cmd, args[0])
		return ErrFailed
	}
	run := func() error { return cat.execute(ctx, stmt, style) }
	if cmd == `\dt` || cmd == `\d` && len(args) == 0 {
		// An empty list is psql's "Did not find any relations." instead.
		pattern := ""
		if len(args) > 0 {
			pattern = args[0]
		}
		run = func() error { return cat.listRelations(ctx, stmt, pattern, style) }
	}
	if err := run(); err != nil {
		cat.pr.printError(err, stmt)
		return ErrFailed
	}
	return nil
}

// listRelations runs a \dt or \d listing; none found is psql's message
// on standard error (pattern is what \dt was given, if anything), not an
// empty table.
func (cat *catalog) listRelations(ctx context.Context, stmt, pattern string, style resultStyle) error {
	p, err := cat.sess.Prepare(ctx, stmt, nil)
	if err != nil {
		return err
	}
	res, err := cat.sess.Execute(ctx, p, nil)
	if err != nil {
		return err
	}
	if res.Rows == nil {
		return fmt.Errorf("%s returned no rows", stmt)
	}
	defer res.Rows.Close()
	t, err := collectTable(ctx, res.Columns, res.Rows)
	switch {
	case err != nil:
		return err
	case len(t.rows) > 0:
		return cat.pr.printTable(t, style)
	case pattern != "":
		fmt.Fprintf(cat.pr.errOut, "Did not find any relation named \"%s\".\n", pattern)
	default:
		fmt.Fprintln(cat.pr.errOut, "Did not find any relations.")
	}
	return nil
}

// tablesPlus is \dt+: the table list with each table's size (its live
// data and delete files) and live rows.
func (cat *catalog) tablesPlus(ctx context.Context, args []string) error {
	stmt := "SHOW TABLES"
	if len(args) > 0 {
		stmt += " FROM " + strings.TrimSuffix(strings.TrimSuffix(args[0], "*"), ".")
	}
	rows, err := cat.queryText(ctx, stmt)
	if err != nil {
		cat.pr.printError(err, stmt)
		return ErrFailed
	}
	if len(rows) == 0 {
		fmt.Fprintln(cat.pr.errOut, "Did not find any relations.")
		return nil
	}
	var values []string
	for _, r := range rows {
		name := r[0] + "." + quoteIdentIfNeeded(r[1])
		values = append(values, fmt.Sprintf("(%s, %s, %s, %s, (SELECT pg_size_pretty(coalesce(sum(file_size_in_bytes), 0)::bigint) FROM %s), "+
			"(SELECT live_rows FROM %s))", quoteLiteral(r[0]), quoteLiteral(r[1]), quoteLiteral(r[2]), quoteLiteral(r[3]),
			metaName(name, "files"), metaName(name, "delete_debt_summary")))
	}
	q := `SELECT * FROM (VALUES ` + strings.Join(values, ", ") + `) AS t("Schema", "Name", "Type", "Owner", "Size", "Rows") ORDER BY 1, 2`
	if err := cat.execute(ctx, q, resultStyle{title: "List of relations"}); err != nil {
		cat.pr.printError(err, q)
		return ErrFailed
	}
	return nil
}

// quoteIdentIfNeeded quotes a name that is not a plain lower-case word.
func quoteIdentIfNeeded(n string) string {
	for i := 0; i < len(n); i++ {
		if c := n[i]; !(c == '_' || c >= 'a' && c <= 'z' || i > 0 && c >= '0' && c <= '9') {
			return `"` + strings.ReplaceAll(n, `"`, `""`) + `"`
		}
	}
	return n
}
