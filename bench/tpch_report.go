package bench

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
)

// TPCHReport is a whole `bench tpch` run.
type TPCHReport struct {
	SF       float64          `json:"sf"`
	WorkMem  string           `json:"work_mem"` // magmalake's, as SHOW work_mem says
	TimeoutS float64          `json:"timeout_s"`
	Rows     map[string]int64 `json:"rows"` // per table
	// Seconds to generate the data and to load it into each system
	// (PostgreSQL's with its keys, indexes and VACUUM ANALYZE).
	GenerateS      float64 `json:"generate_s"`
	MagmalakeLoadS float64 `json:"magmalake_load_s"`
	PostgresLoadS  float64 `json:"postgres_load_s"`
	// magmalake's server's resident set high-water marks: during the
	// load, and the highest of the queries'.
	LoadPeakRSS     uint64       `json:"magmalake_load_peak_rss_bytes"`
	PeakRSSBytes    uint64       `json:"magmalake_peak_rss_bytes"`
	PostgresVersion string       `json:"postgres_version"`
	DuckDBVersion   string       `json:"duckdb_version"`
	Results         []TPCHResult `json:"results"`
}

// NotOK lists magmalake's queries that failed or answered wrongly.
func (rep *TPCHReport) NotOK() []string {
	out := []string{} // [] in JSON when all is well
	for _, r := range rep.Results {
		switch r.Status {
		case statusOK, statusUnchecked:
		case statusWrong:
			out = append(out, fmt.Sprintf("%s: wrong answer: %s", r.Query, r.Diff))
		default:
			out = append(out, fmt.Sprintf("%s: %s: %s", r.Query, r.Status, r.Magmalake.Error))
		}
	}
	return out
}

// TPCHRatios are magmalake's figures over another system's (below 1:
// magmalake used less).
type TPCHRatios struct {
	CPUVsPostgres  float64 `json:"cpu_over_postgres"`
	CPUVsDuckDB    float64 `json:"cpu_over_duckdb"`
	WallVsPostgres float64 `json:"wall_over_postgres"`
	WallVsDuckDB   float64 `json:"wall_over_duckdb"`
}

// Ratios of one query; 0 where a system has no figure.
func (r TPCHResult) Ratios() TPCHRatios {
	return TPCHRatios{
		CPUVsPostgres: ratio(r.Magmalake.CPUMs, r.Postgres.CPUMs), CPUVsDuckDB: ratio(r.Magmalake.CPUMs, r.DuckDB.CPUMs),
		WallVsPostgres: ratio(r.Magmalake.Ms, r.Postgres.Ms), WallVsDuckDB: ratio(r.Magmalake.Ms, r.DuckDB.Ms),
	}
}

// finishedEverywhere: magmalake answered right (or unchecked) and every
// system that ran finished.
func (r TPCHResult) finishedEverywhere() bool {
	done := func(run TPCHRun) bool { return run.Status == "" || run.Status == statusOK }
	return (r.Status == statusOK || r.Status == statusUnchecked) && done(r.Postgres) && done(r.DuckDB)
}

// Geomeans are the geometric means of the ratios over the queries every
// system finished (a ratio with a zero side is left out), and how many
// queries that was.
func (rep *TPCHReport) Geomeans() (TPCHRatios, int) {
	var logs [4]float64
	var counts [4]int
	n := 0
	for _, r := range rep.Results {
		if !r.finishedEverywhere() {
			continue
		}
		n++
		q := r.Ratios()
		for i, v := range []float64{q.CPUVsPostgres, q.CPUVsDuckDB, q.WallVsPostgres, q.WallVsDuckDB} {
			if v > 0 {
				logs[i] += math.Log(v)
				counts[i]++
			}
		}
	}
	g := func(i int) float64 {
		if counts[i] == 0 {
			return 0
		}
		return math.Exp(logs[i] / float64(counts[i]))
	}
	return TPCHRatios{CPUVsPostgres: g(0), CPUVsDuckDB: g(1), WallVsPostgres: g(2), WallVsDuckDB: g(3)}, n
}

// Lines is the report as a text table, then the geometric means, memory,
// versions and what went wrong.
func (rep *TPCHReport) Lines() []string {
	out := []string{
		fmt.Sprintf("TPC-H SF %g: generate %.1f s; load magmalake %.1f s, postgres %.1f s; lineitem %d rows",
			rep.SF, rep.GenerateS, rep.MagmalakeLoadS, rep.PostgresLoadS, rep.Rows["lineitem"]),
		fmt.Sprintf("%-4s %-9s %6s  %21s  %21s  %21s  %8s %8s %8s %8s %7s",
			"", "magmalake", "rows", "magmalake ms (cpu)", "postgres ms (cpu)", "duckdb ms (cpu)",
			"cpu/pg", "cpu/duck", "wall/pg", "wall/duck", "rss MiB"),
	}
	for _, r := range rep.Results {
		q := r.Ratios()
		out = append(out, fmt.Sprintf("%-4s %-9s %6d  %21s  %21s  %21s  %8s %8s %8s %8s %7d",
			r.Query, r.Status, r.ResultRows, runCell(r.Magmalake), runCell(r.Postgres), runCell(r.DuckDB),
			ratioCell(q.CPUVsPostgres), ratioCell(q.CPUVsDuckDB), ratioCell(q.WallVsPostgres), ratioCell(q.WallVsDuckDB),
			r.PeakRSSBytes>>20))
	}
	g, n := rep.Geomeans()
	out = append(out, fmt.Sprintf("geometric mean over the %d queries every system finished: cpu/pg %s, cpu/duck %s, wall/pg %s, wall/duck %s",
		n, ratioCell(g.CPUVsPostgres), ratioCell(g.CPUVsDuckDB), ratioCell(g.WallVsPostgres), ratioCell(g.WallVsDuckDB)))
	out = append(out, fmt.Sprintf("magmalake server peak RSS: load %d MiB, queries %d MiB; work_mem %s; PostgreSQL %s; DuckDB %s",
		rep.LoadPeakRSS>>20, rep.PeakRSSBytes>>20, rep.WorkMem, rep.PostgresVersion, rep.DuckDBVersion))
	for _, r := range rep.Results {
		for _, s := range []struct {
			sys string
			run TPCHRun
		}{{sysMagmalake, r.Magmalake}, {sysPostgres, r.Postgres}, {sysDuckDB, r.DuckDB}} {
			if s.run.Error != "" {
				out = append(out, fmt.Sprintf("%s %s %s [%s]: %s", r.Query, s.sys, s.run.Status, s.run.SQLState, s.run.Error))
			}
		}
		if r.Diff != "" {
			out = append(out, fmt.Sprintf("%s magmalake WRONG against postgres: %s", r.Query, r.Diff))
		}
		if r.DuckDBDiff != "" {
			out = append(out, fmt.Sprintf("%s duckdb differs from postgres: %s", r.Query, r.DuckDBDiff))
		}
	}
	return out
}

func runCell(r TPCHRun) string {
	switch r.Status {
	case "":
		return "-"
	case statusOK:
		return fmt.Sprintf("%9.1f (%9.1f)", r.Ms, r.CPUMs)
	case statusError:
		return "error " + r.SQLState
	default:
		return r.Status
	}
}

func ratioCell(v float64) string {
	if v <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", v)
}

// JSON is the report as one JSON object, each query's ratios and the
// geometric means included.
func (rep *TPCHReport) JSON() string {
	type withRatios struct {
		TPCHResult
		Ratios TPCHRatios `json:"ratios"`
	}
	g, n := rep.Geomeans()
	out := struct {
		*TPCHReport
		Results  []withRatios `json:"results"`
		Geomeans TPCHRatios   `json:"geomeans"`
		// GeomeanQueries is how many queries the geometric means are over.
		GeomeanQueries int      `json:"geomean_queries"`
		NotOK          []string `json:"not_ok"`
	}{TPCHReport: rep, Geomeans: g, GeomeanQueries: n, NotOK: rep.NotOK()}
	for _, r := range rep.Results {
		out.Results = append(out.Results, withRatios{r, r.Ratios()})
	}
	b, err := json.Marshal(out)
	if err != nil { // numbers and strings always marshal
		panic(err)
	}
	return strings.TrimSpace(string(b))
}
