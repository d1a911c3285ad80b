package bench

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Line is the human-readable report of one query: the three median times
// and magmalake's over each reference (below 1: magmalake is faster).
func (r SelectResult) Line() string {
	head := fmt.Sprintf("%-16s %-10s storage %-5s rows %-9d", r.Query, r.Table, r.Storage, r.Rows)
	if r.Error != "" {
		return fmt.Sprintf("%s magmalake FAILED: %s  postgres %s  duckdb %s", head, r.Error,
			msOr(r.PostgresMs, r.PostgresError), msOr(r.DuckDBMs, r.DuckDBError))
	}
	return fmt.Sprintf("%s magmalake %9.1f ms (cpu %7.1f)  postgres %s (%6.2fx)  duckdb %s (%6.2fx, cpu %7.1f)  heap %4d MiB  read %7.1f MiB  rows %d  agree %s  runs %d",
		head, r.MagmalakeMs, r.MagmalakeCPUMs, msOr(r.PostgresMs, r.PostgresError), r.VsPostgres(),
		msOr(r.DuckDBMs, r.DuckDBError), r.VsDuckDB(), r.DuckDBCPUMs, r.PeakHeapBytes>>20, float64(r.ReadBytes)/(1<<20),
		r.ResultRows, strings.Join(r.Agree, ","), r.Runs)
}

func msOr(v float64, errText string) string {
	if errText != "" {
		return "FAILED (" + errText + ")"
	}
	if v <= 0 {
		return "      n/a"
	}
	return fmt.Sprintf("%9.1f ms", v)
}

// Lines is the whole report as text: one line per query, then the count(*)
// probe, the peak heap and the versions.
func (rep *SelectReport) Lines() []string {
	var out []string
	for _, r := range rep.Results {
		out = append(out, r.Line())
	}
	out = append(out, fmt.Sprintf("count(*) metadata only: %v (%s)", rep.CountMetadataOnly, rep.CountProbe))
	for _, l := range rep.CountExplain {
		out = append(out, "  "+l)
	}
	out = append(out, fmt.Sprintf("magmalake peak Go heap: %d MiB; PostgreSQL %s; DuckDB %s",
		rep.PeakHeapBytes>>20, rep.PostgresVersion, rep.DuckDBVersion))
	for _, m := range rep.Mismatches {
		out = append(out, "MISMATCH "+m)
	}
	return out
}

// JSON is the report as one JSON object, ratios included.
func (rep *SelectReport) JSON() string {
	type withRatios struct {
		SelectResult
		VsPostgres float64 `json:"magmalake_over_postgres"`
		VsDuckDB   float64 `json:"magmalake_over_duckdb"`
	}
	out := struct {
		*SelectReport
		Results []withRatios `json:"results"`
	}{SelectReport: rep}
	for _, r := range rep.Results {
		out.Results = append(out.Results, withRatios{r, r.VsPostgres(), r.VsDuckDB()})
	}
	b, err := json.Marshal(out)
	if err != nil { // numbers and strings always marshal
		panic(err)
	}
	return string(b)
}
