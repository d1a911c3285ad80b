package repl

import (
	"context"
	"fmt"
	"strings"
)

// metaCatalog runs \l, \du, \dt+, \df and \conninfo; handled is false for
// other commands.
func (sh *Shell) metaCatalog(ctx context.Context, cmd string, args []string) (handled bool, err error) {
	if isFunctionsCommand(cmd) {
		return true, sh.listFunctions(ctx, cmd, args)
	}
	var stmt, title string
	switch cmd {
	case `\conninfo`:
		fmt.Fprintln(sh.pr.out, sh.ConnInfo)
		return true, nil
	case `\l`, `\list`:
		stmt, title = `SELECT datname AS "Name", pg_get_userbyid(datdba) AS "Owner", pg_encoding_to_char(encoding) AS "Encoding", `+
			`datcollate AS "Collate", datctype AS "Ctype", '' AS "Access privileges" FROM pg_database ORDER BY 1`, "List of databases"
	case `\du`, `\dg`:
		stmt, title = `SELECT rolname AS "Role name", CASE WHEN rolsuper THEN 'Superuser' ELSE '' END AS "Attributes" `+
			`FROM pg_roles ORDER BY 1`, "List of roles"
	case `\dt+`:
		return true, sh.tablesPlus(ctx, args)
	default:
		return false, nil
	}
	if err := sh.execute(ctx, stmt, resultStyle{title: title}); err != nil {
		sh.pr.printError(err, stmt)
		return true, ErrFailed
	}
	return true, nil
}

// tablesPlus is \dt+: the table list with each table's size (its live
// data and delete files) and live rows.
func (sh *Shell) tablesPlus(ctx context.Context, args []string) error {
	stmt := "SHOW TABLES"
	if len(args) > 0 {
		stmt += " FROM " + strings.TrimSuffix(strings.TrimSuffix(args[0], "*"), ".")
	}
	rows, err := sh.queryText(ctx, stmt)
	if err != nil {
		sh.pr.printError(err, stmt)
		return ErrFailed
	}
	if len(rows) == 0 {
		fmt.Fprintln(sh.pr.errOut, "Did not find any relations.")
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
	if err := sh.execute(ctx, q, resultStyle{title: "List of relations"}); err != nil {
		sh.pr.printError(err, q)
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
