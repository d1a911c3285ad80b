package bench

import (
	"encoding/json"
	"fmt"
)

// Line is the human-readable report of one case.
func (r Result) Line() string {
	floor := "floor n/a (metadata only)"
	if r.FloorMs > 0 {
		floor = fmt.Sprintf("floor %9.1f ms (%5.2fx floor)", r.FloorMs, r.OverFloor())
	}
	return fmt.Sprintf("%-30s %-6s storage %-5s rows %d deleted %-9d magmalake %9.1f ms  iceberg-go %9.1f ms (%5.2fx faster)  %s  cpu ms %.0f/%.0f/%.0f  peak heap %d MiB (iceberg-go %d MiB)  runs %d",
		r.Case, r.Mode, r.Storage, r.Rows, r.RowsDeleted, r.MagmalakeMs, r.IcebergoMs, r.Speedup(), floor,
		r.MagmalakeCPUMs, r.IcebergoCPUMs, r.FloorCPUMs, r.PeakHeapBytes>>20, r.IcebergoPeakHeapBytes>>20, r.Runs)
}

// JSON is the one-line JSON report of one case.
func (r Result) JSON() string {
	b, err := json.Marshal(r)
	if err != nil { // a struct of numbers and strings always marshals
		panic(err)
	}
	return string(b)
}
