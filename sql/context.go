package sql

import (
	"context"
	"time"
)

// StatementContext carries the statement-scoped values of stmt (its
// statement time, how it reads text, its subquery results) over to next,
// the context of a later call: rows streamed after Execute returned, or a
// cursor's FETCH, evaluate as the statement would have.
func StatementContext(stmt, next context.Context) context.Context {
	next = WithInputStyle(next, InputStyleOf(stmt))
	if t, ok := stmt.Value(stmtTimeKey{}).(time.Time); ok {
		next = WithStatementTime(next, t)
	}
	if c, ok := stmt.Value(subqueryCacheKey{}).(*subqueryCache); ok {
		next = context.WithValue(next, subqueryCacheKey{}, c)
	}
	if c, ok := stmt.Value(catalogKey{}).(Catalog); ok {
		next = WithCatalog(next, c)
	}
	if vals, ok := stmt.Value(outerRowKey{}).([]any); ok {
		next = WithOuterRow(next, vals)
	}
	return next
}
