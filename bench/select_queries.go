package bench

import (
	"fmt"
	"strings"
)

// selectQuery is one query of `bench select`, in SQL that magmalake,
// PostgreSQL 15 and DuckDB all accept. Every query orders its result
// totally, so the three answers compare row by row.
type selectQuery struct {
	name string
	sql  string // {fact} stands for the fact table's name
	// what it exercises, for the report
	what string
}

// Query names.
const (
	qCount     = "count"
	qPoint     = "point-lookup"
	qLowGroup  = "group-low-card"
	qHighGroup = "group-high-card"
	qJoin      = "join-dim"
	qWindow    = "window"
	qTopN      = "top-n"
)

// selectQueries are the queries over a fact table of rows rows; the point
// lookup asks for an id in the middle, so file statistics on id (ascending
// with the row number) leave one file of 40 to read.
func selectQueries(rows int64) []selectQuery {
	return []selectQuery{
		{qCount, "SELECT count(*) FROM {fact}", "row count"},
		{qPoint, fmt.Sprintf("SELECT * FROM {fact} WHERE id = %d", pointID(rows)), "clustered-column filter"},
		{qLowGroup, "SELECT grp, count(*) AS n, sum(price) AS total, avg(amount) AS avg_amount, count(DISTINCT name) AS names " +
			"FROM {fact} GROUP BY grp ORDER BY grp", "10 groups"},
		{qHighGroup, "SELECT name, count(*) AS n, sum(price) AS total FROM {fact} GROUP BY name ORDER BY n DESC, name LIMIT 10",
			"100,001 groups"},
		{qJoin, "SELECT d.d_region, count(*) AS n, sum(f.price) AS total, avg(f.amount) AS avg_amount " +
			"FROM {fact} f JOIN dim d ON f.k = d.d_key WHERE d.d_weight < 50 GROUP BY d.d_region ORDER BY d.d_region",
			"hash join on k, 10,000-row build side"},
		{qWindow, "SELECT grp, id, price, rn FROM (SELECT grp, id, price, " +
			"row_number() OVER (PARTITION BY grp ORDER BY price DESC, id) AS rn FROM {fact}) w " +
			"WHERE rn <= 3 ORDER BY grp, rn", "row_number over 10 partitions"},
		{qTopN, "SELECT id, price, name FROM {fact} ORDER BY price DESC, id LIMIT 10", "top 10"},
	}
}

// pointID is a row in the middle of the table.
func pointID(rows int64) int64 { return rows/2 + 17 }

// text is the query over the named fact table.
func (q selectQuery) text(fact string) string { return strings.ReplaceAll(q.sql, "{fact}", fact) }
