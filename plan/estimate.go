package plan

import (
	"github.com/magmalake/magmalake/lake"
	"github.com/magmalake/magmalake/sql"
)

// unknownRows is the guess for a relation nothing tells the size of (a
// file read, a series): large enough that it is not taken for a small
// dimension table.
const unknownRows = 1000

// EstimateRows is the rows n is expected to give: a table's from its
// snapshot summary, the others derived from their inputs with the
// selectivities below. It orders joins; it is never used for correctness.
func EstimateRows(n Node) float64 {
	switch x := n.(type) {
	case *Scan:
		rows, _, ok := lake.SnapshotRecords(x.Table.Table, x.SnapshotID)
		if !ok {
			return unknownRows
		}
		return float64(rows)
	case *Rows:
		var rows int64
		for _, b := range x.Data {
			rows += b.NumRows()
		}
		return float64(rows)
	case OneRow:
		return 1
	case *Pick:
		return EstimateRows(x.Input)
	case *Rename:
		return EstimateRows(x.Input)
	case *Using:
		return EstimateRows(x.Input)
	case *Derived:
		return estimateQuery(x.Query)
	case *Join:
		return estimateJoin(x)
	case *Lateral:
		return EstimateRows(x.Left)
	case *Filter:
		return max(EstimateRows(x.Input)*Selectivity(x.Cond), 1)
	case *SetOp:
		return estimateSet(x.Root)
	case *Series:
		return estimateSeries(x)
	}
	return unknownRows
}

// estimateSeries counts an integer generate_series with constant bounds
// and step; any other is unknownRows.
func estimateSeries(s *Series) float64 {
	var v [3]int64
	v[2] = 1
	if len(s.Args) < 2 || len(s.Args) > 3 {
		return unknownRows
	}
	for i, a := range s.Args {
		c, ok := a.(*sql.Const)
		if !ok {
			return unknownRows
		}
		if v[i], ok = c.Value.(int64); !ok {
			return unknownRows
		}
	}
	if v[2] == 0 {
		return unknownRows
	}
	return max(float64((v[1]-v[0])/v[2]+1), 1)
}

// estimateQuery is a query level's rows: its input's, filtered, grouped
// and limited.
func estimateQuery(q *Query) float64 {
	return EstimateLevel(q).Out
}

// LevelEstimate is the rows each step of a query level is expected to
// give (EXPLAIN shows them per operator).
type LevelEstimate struct {
	Input    float64 // the FROM's
	Filtered float64 // what WHERE keeps
	Grouped  float64 // the groups (Filtered without GROUP BY or aggregates)
	Out      float64 // what LIMIT keeps of them
}

// EstimateLevel is q's estimate, step by step.
func EstimateLevel(q *Query) LevelEstimate {
	var e LevelEstimate
	e.Input = EstimateRows(q.From)
	e.Filtered = e.Input * Selectivity(q.Where)
	e.Grouped = e.Filtered
	if q.Agg != nil {
		e.Grouped = 1
		if len(q.Agg.GroupBy) > 0 {
			e.Grouped = max(e.Filtered/10, 1)
		}
	}
	e.Out = e.Grouped
	if c, ok := q.Limit.(*sql.Const); ok {
		if n, ok := c.Value.(int64); ok && float64(n) < e.Out {
			e.Out = float64(n)
		}
	}
	return e
}

func estimateSet(t *SetTree) float64 {
	if t.Leaf != nil {
		return estimateQuery(t.Leaf)
	}
	return estimateSet(t.Left) + estimateSet(t.Right)
}

// estimateJoin is a join's rows: each equi-join key taken to be unique on
// the side whose table is smaller (a key joined to a foreign key), the
// other conditions as filters.
func estimateJoin(j *Join) float64 {
	l, r := EstimateRows(j.Left), EstimateRows(j.Right)
	rows := l * r
	if len(j.LKeys) > 0 {
		rows /= max(min(l, r), 1)
	}
	rows *= Selectivity(j.Residual) * Selectivity(j.LFilter) * Selectivity(j.RFilter)
	switch j.Kind {
	case JoinSemi:
		// Each left row once at most; a right side smaller than half the
		// left one keeps about as many rows as it has, each key finding
		// its rows (TPC-H Q20: partsupp IN a few parts' keys).
		lf, rf := l*Selectivity(j.LFilter), r*Selectivity(j.RFilter)
		return max(min(lf/2, rf), 1)
	case JoinAnti:
		return max(l/2, 1)
	case JoinLeft:
		rows = max(rows, l)
	case JoinRight:
		rows = max(rows, r)
	case JoinFull:
		rows = max(rows, l+r)
	}
	return rows
}

// Selectivity is the fraction of rows cond lets through (nil: all), from
// the shape of each conjunct alone: PostgreSQL's default guesses where it
// has no statistics.
func Selectivity(cond sql.Expr) float64 {
	if cond == nil {
		return 1
	}
	s := 1.0
	for _, c := range Conjuncts(cond) {
		s *= conjunctSelectivity(c)
	}
	return s
}

func conjunctSelectivity(e sql.Expr) float64 {
	switch x := e.(type) {
	case *sql.Compare:
		if x.Op == sql.OpEQ {
			return 0.005
		}
		if x.Op == sql.OpNE {
			return 0.995
		}
		return 1.0 / 3
	case *sql.Logic:
		if x.And {
			return Selectivity(x)
		}
		miss := 1.0
		for _, a := range x.Args {
			miss *= 1 - conjunctSelectivity(a)
		}
		return 1 - miss
	case *sql.Not:
		return 1 - conjunctSelectivity(x.X)
	case *sql.IsNull:
		if x.Not {
			return 0.995
		}
		return 0.005
	case *sql.InList:
		s := min(0.005*float64(len(x.List)), 0.5)
		if x.Not {
			return 1 - s
		}
		return s
	case *sql.Like:
		if x.Not {
			return 0.95
		}
		return 0.05
	case *sql.Const:
		if b, ok := x.Value.(bool); ok && b {
			return 1
		}
	}
	return 1.0 / 3
}
