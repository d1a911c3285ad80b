package repl

import (
	"context"
	"strings"
)

// listViews is \dv [SCHEMA.*]: psql's list of views, from pg_class.
func (cat *catalog) listViews(ctx context.Context, args []string) error {
	where := "pg_catalog.pg_table_is_visible(c.oid)"
	pattern := ""
	if len(args) > 0 {
		pattern = args[0]
		where = "n.nspname = " + quoteLiteral(strings.TrimSuffix(strings.TrimSuffix(args[0], "*"), "."))
	}
	q := `SELECT n.nspname AS "Schema", c.relname AS "Name", 'view' AS "Type", pg_catalog.pg_get_userbyid(c.relowner) AS "Owner" ` +
		`FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace ` +
		`WHERE c.relkind = 'v' AND ` + where + ` ORDER BY 1, 2`
	if err := cat.listRelations(ctx, q, pattern, resultStyle{title: "List of relations"}); err != nil {
		cat.pr.printError(err, q)
		return ErrFailed
	}
	return nil
}
