package engine

import (
	"time"

	"github.com/magmalake/magmalake/sql"
	"github.com/magmalake/magmalake/stmt"
)

// ResultColumns is the row description of the engine's columns, as the
// session and the statement packages answer it.
func ResultColumns(in []sql.Column) []stmt.Column {
	out := make([]stmt.Column, len(in))
	for i, c := range in {
		out[i] = stmt.Column{Name: c.Name, Type: c.Type}
	}
	return out
}

// ElapsedMs is the milliseconds since start, as EXPLAIN ANALYZE shows them.
func ElapsedMs(start time.Time) float64 {
	return float64(time.Since(start).Microseconds()) / 1000
}
