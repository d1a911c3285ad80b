package bench

import (
	"encoding/json"
	"fmt"
	"strings"
)

// MaintenanceResult is one case: both rewrites and the queries' figures.
type MaintenanceResult struct {
	Case string `json:"case"` // mor-v2, mor-v3, small-files
	// Rows were generated or inserted; RowsDeleted went by the DELETEs;
	// LiveRows is what every state of the table holds.
	Rows        int64 `json:"rows"`
	RowsDeleted int64 `json:"rows_deleted"`
	LiveRows    int64 `json:"live_rows"`
	// The table before the rewrite and after each engine's.
	Before   FileFigures `json:"before"`
	After    FileFigures `json:"after"`
	Icebergo FileFigures `json:"icebergo_after"`
	Fresh    FileFigures `json:"fresh"`
	// Wall and process CPU time (user + system, every thread, GC included)
	// of OPTIMIZE through a session, and of iceberg-go's planning, rewrite
	// and commit: medians of the rounds, whose wall times follow.
	OptimizeMs     float64   `json:"optimize_ms"`
	OptimizeRunsMs []float64 `json:"optimize_runs_ms"`
	IcebergoRunsMs []float64 `json:"icebergo_runs_ms"`
	OptimizeCPUMs  float64   `json:"optimize_cpu_ms"`
	IcebergoMs     float64   `json:"icebergo_ms"`
	IcebergoCPUMs  float64   `json:"icebergo_cpu_ms"`
	IcebergoGroups int       `json:"icebergo_groups"` // compaction groups its planner made
	// Scan is the full scan, Selective the narrow id range.
	Scan      QueryFigures `json:"scan"`
	Selective QueryFigures `json:"selective"`
	Repeat    int          `json:"repeat"`
	// SplitTargetSize is the read.split.target-size the tables were given
	// (0: iceberg-go's default, 128 MiB).
	SplitTargetSize int64 `json:"split_target_size"`
}

// FileFigures is a table's live data and delete files.
type FileFigures struct {
	DataFiles   int   `json:"data_files"`
	DeleteFiles int   `json:"delete_files"`
	DataBytes   int64 `json:"data_bytes"`
}

// QueryFigures are one query's medians on each state of the table: time,
// and bytes the process read (rchar: data files, manifests, metadata and
// catalog, page cache hits included).
type QueryFigures struct {
	BeforeMs      float64 `json:"before_ms"`
	AfterMs       float64 `json:"after_ms"`
	FreshMs       float64 `json:"fresh_ms"`
	IcebergoMs    float64 `json:"icebergo_ms"` // on iceberg-go's rewrite
	BeforeBytes   int64   `json:"before_bytes"`
	AfterBytes    int64   `json:"after_bytes"`
	FreshBytes    int64   `json:"fresh_bytes"`
	IcebergoBytes int64   `json:"icebergo_bytes"`
}

// AfterOverFresh is the time after OPTIMIZE over the fresh table's.
func (q QueryFigures) AfterOverFresh() float64 { return ratio(q.AfterMs, q.FreshMs) }

// BytesAfterOverFresh is the bytes read after OPTIMIZE over the fresh table's.
func (q QueryFigures) BytesAfterOverFresh() float64 {
	return ratio(float64(q.AfterBytes), float64(q.FreshBytes))
}

// MeetsTarget says whether time and bytes after OPTIMIZE are within 10% of
// the fresh table's.
func (q QueryFigures) MeetsTarget() bool {
	return q.AfterOverFresh() <= maintFreshTarget && q.BytesAfterOverFresh() <= maintFreshTarget
}

// Speedup is iceberg-go's rewrite time over OPTIMIZE's.
func (r MaintenanceResult) Speedup() float64 { return ratio(r.IcebergoMs, r.OptimizeMs) }

// SpeedupMet says whether OPTIMIZE is at least 1.5x faster.
func (r MaintenanceResult) SpeedupMet() bool { return r.Speedup() >= maintSpeedupTarget }

func met(ok bool) string {
	if ok {
		return "met"
	}
	return "NOT met"
}

func (f FileFigures) String() string {
	return fmt.Sprintf("%d data + %d delete files, %.1f MiB", f.DataFiles, f.DeleteFiles, float64(f.DataBytes)/(1<<20))
}

func (q QueryFigures) line(name string) string {
	return fmt.Sprintf("%s ms before %.1f after %.1f fresh %.1f (iceberg-go's %.1f), KiB read %d / %d / %d (%d); after/fresh %.2fx time %.2fx bytes: target %s",
		name, q.BeforeMs, q.AfterMs, q.FreshMs, q.IcebergoMs, q.BeforeBytes>>10, q.AfterBytes>>10, q.FreshBytes>>10,
		q.IcebergoBytes>>10, q.AfterOverFresh(), q.BytesAfterOverFresh(), met(q.MeetsTarget()))
}

// Line is the human-readable report of one case.
func (r MaintenanceResult) Line() string {
	return fmt.Sprintf("%-11s rows %d deleted %d live %d  before: %s  optimize %.1f ms (cpu %.0f; rounds %s) -> %s  iceberg-go %.1f ms (cpu %.0f, %d groups; rounds %s) -> %s  %.2fx faster: target %s  fresh: %s  |  %s  |  %s  runs %d  read.split.target-size %s",
		r.Case, r.Rows, r.RowsDeleted, r.LiveRows, r.Before, r.OptimizeMs, r.OptimizeCPUMs, msList(r.OptimizeRunsMs), r.After,
		r.IcebergoMs, r.IcebergoCPUMs, r.IcebergoGroups, msList(r.IcebergoRunsMs), r.Icebergo, r.Speedup(), met(r.SpeedupMet()), r.Fresh,
		r.Scan.line("scan"), r.Selective.line("selective"), r.Repeat, splitText(r.SplitTargetSize))
}

// msList prints timings as 503/520/490.
func msList(v []float64) string {
	parts := make([]string, len(v))
	for i, x := range v {
		parts[i] = fmt.Sprintf("%.0f", x)
	}
	return strings.Join(parts, "/")
}

// JSON is the one-line JSON report of one case, with its ratios.
func (r MaintenanceResult) JSON() string {
	type withRatios struct {
		MaintenanceResult
		Speedup                      float64 `json:"speedup"`
		ScanAfterOverFresh           float64 `json:"scan_after_over_fresh"`
		ScanBytesAfterOverFresh      float64 `json:"scan_bytes_after_over_fresh"`
		SelectiveAfterOverFresh      float64 `json:"selective_after_over_fresh"`
		SelectiveBytesAfterOverFresh float64 `json:"selective_bytes_after_over_fresh"`
	}
	b, err := json.Marshal(withRatios{r, r.Speedup(), r.Scan.AfterOverFresh(), r.Scan.BytesAfterOverFresh(),
		r.Selective.AfterOverFresh(), r.Selective.BytesAfterOverFresh()})
	if err != nil { // numbers and strings always marshal
		panic(err)
	}
	return string(b)
}

func splitText(n int64) string {
	if n <= 0 {
		return "default"
	}
	return fmt.Sprint(n)
}
