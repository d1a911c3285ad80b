package plan

import "github.com/magmalake/magmalake/sql"

// existsTargets is an EXISTS subquery with its select list replaced by a
// constant, as PostgreSQL's simplify_EXISTS_query does: only whether a row
// comes back matters, so `SELECT *` must not make the scan below read
// every column (TPC-H Q4, Q21 and Q22 read all of lineitem's or orders'
// columns, comments included, to test a key). A select list that decides
// the number of rows (aggregates, set-returning functions, windows,
// grouping) or a LIMIT/OFFSET keeps the query as written. So does one
// whose items could fail to bind (a column, t.*): PostgreSQL reports those
// errors, and dropping the items would hide them; `SELECT *` and
// `SELECT 1` are what EXISTS is written with.
func existsTargets(st *sql.Select) *sql.Select {
	if st.SetOperation() != nil || st.OtherForm() || len(st.GroupBy) > 0 || st.GroupingSets != nil || st.Having != nil ||
		st.Limit != nil || st.Offset != nil || st.DistinctOn != nil || len(st.OrderBy) > 0 {
		return st
	}
	for _, it := range st.Items {
		if it.Star && (it.StarQualifier != "" || st.From == nil) || !it.Star && !sql.IsLiteral(it.Expr) {
			return st
		}
	}
	simple := *st
	simple.Items = []sql.SelectItem{{Expr: sql.OneSyntax(), Alias: "exists"}}
	simple.Distinct = false
	return &simple
}
