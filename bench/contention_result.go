package bench

import (
	"encoding/json"
	"fmt"
	"strings"
)

// ContentionResult is one scenario in one table mode.
type ContentionResult struct {
	Scenario string      `json:"scenario"`
	Mode     TableMode   `json:"mode"`
	Servers  int         `json:"servers"`
	Sessions int         `json:"sessions"`
	Seconds  float64     `json:"seconds"` // wall time of the workload
	Kinds    []KindStats `json:"kinds"`
	// Alone is the soak's kinds run by one session with the others idle,
	// before the soak: what the contended latencies compare with.
	Alone []KindStats `json:"alone,omitempty"`
	// AloneAfter is the same after the soak, on the table the soak left
	// (more, smaller files and a longer history): the contended latencies
	// fall between the two.
	AloneAfter []KindStats `json:"alone_after,omitempty"`
	// OKStatements counts the statements that succeeded, a committed
	// block's statements included; OKPerSecond is that over Seconds.
	OKStatements int         `json:"ok_statements"`
	OKPerSecond  float64     `json:"ok_per_second"`
	RowsBefore   int         `json:"rows_before"`
	Commits      CommitStats `json:"commits"`
	Check        ModelCheck  `json:"check"`
	// AutocommitMustSucceed makes any failed autocommit statement a
	// failure of the run (the deletes scenario), not just a figure.
	AutocommitMustSucceed bool `json:"-"`
}

// ModelCheck compares what the successful statements say happened with
// the table read back afterwards. Every count must be 0.
type ModelCheck struct {
	ModelRows int         `json:"model_rows"` // rows the model says remain
	Reads     []ReadCheck `json:"reads"`      // one per server, and iceberg-go's scan
	// DoubleDeleted: ids that more than one DELETE returned.
	DoubleDeleted int `json:"double_deleted"`
	// WrongReturns: ids a statement returned that it cannot have touched
	// (outside its predicate, never written, or returned twice by it).
	WrongReturns int `json:"wrong_returns"`
	// StaleReturns: ids an UPDATE or MERGE that started after a DELETE of
	// the id had committed still returned.
	StaleReturns int `json:"stale_returns"`
	// NotReturned (deletes): rows a successful DELETE's predicate matched
	// that no DELETE returned.
	NotReturned int `json:"not_returned"`
	// KeptByFailures (deletes): rows only failed DELETEs matched, which
	// therefore remain; 0 once every statement succeeds.
	KeptByFailures int `json:"kept_by_failures"`
	// Uncertain: statements without an answer (lost connection, client
	// timeout), whose effect the model cannot know.
	Uncertain int      `json:"uncertain"`
	Problems  []string `json:"problems,omitempty"` // the first examples
}

// ReadCheck is one reading of the table against the model.
type ReadCheck struct {
	Reader      string `json:"reader"`
	Rows        int    `json:"rows"`
	Lost        int    `json:"lost"`        // the model has it, the table not
	Resurrected int    `json:"resurrected"` // a DELETE removed it, the table has it
	Phantom     int    `json:"phantom"`     // the table has a row nothing wrote
	WrongValue  int    `json:"wrong_value"` // both have it, with other values
	Duplicate   int    `json:"duplicate"`   // ids read more than once
	Err         string `json:"error,omitempty"`
}

func (r ReadCheck) bad() int { return r.Lost + r.Resurrected + r.Phantom + r.WrongValue + r.Duplicate }

// problem keeps the first few examples of what went wrong.
func (c *ModelCheck) problem(format string, args ...any) {
	if len(c.Problems) < 12 {
		c.Problems = append(c.Problems, fmt.Sprintf(format, args...))
	}
}

// worst is the largest count of each kind over the reads.
func (c ModelCheck) worst() ReadCheck {
	var w ReadCheck
	for _, r := range c.Reads {
		w.Lost, w.Resurrected = max(w.Lost, r.Lost), max(w.Resurrected, r.Resurrected)
		w.Phantom, w.WrongValue, w.Duplicate = max(w.Phantom, r.Phantom), max(w.WrongValue, r.WrongValue), max(w.Duplicate, r.Duplicate)
	}
	return w
}

// Failures says what makes the run wrong; none means it passed.
func (r ContentionResult) Failures() []string {
	var out []string
	c := r.Check
	for _, rd := range c.Reads {
		if rd.Err != "" {
			out = append(out, fmt.Sprintf("read through %s: %s", rd.Reader, rd.Err))
		} else if rd.bad() > 0 || rd.Rows != c.ModelRows {
			out = append(out, fmt.Sprintf("%s read %d rows, model %d: %d lost, %d resurrected, %d phantom, %d wrong value, %d duplicate",
				rd.Reader, rd.Rows, c.ModelRows, rd.Lost, rd.Resurrected, rd.Phantom, rd.WrongValue, rd.Duplicate))
		}
	}
	for _, f := range []struct {
		n    int
		what string
	}{{c.DoubleDeleted, "ids deleted twice"}, {c.WrongReturns, "wrong ids returned"}, {c.StaleReturns, "ids returned after their DELETE committed"},
		{c.NotReturned, "matched rows no DELETE returned"}, {c.Uncertain, "statements with unknown outcome"}} {
		if f.n > 0 {
			out = append(out, fmt.Sprintf("%d %s", f.n, f.what))
		}
	}
	if r.Commits.Err != "" {
		out = append(out, "snapshots: "+r.Commits.Err)
	}
	if r.AutocommitMustSucceed {
		for _, k := range r.Kinds {
			if k.Failed() > 0 {
				out = append(out, fmt.Sprintf("%d of %d %s statements failed (%s)", k.Failed(), k.Count, k.Kind, errorList(k.Errors)))
			}
		}
	}
	return out
}

// Line is the human-readable report: a line per statement kind, then the result.
func (r ContentionResult) Line() string {
	var b strings.Builder
	prefix := fmt.Sprintf("contention %-7s %-6s", r.Scenario, r.Mode)
	for _, k := range r.Kinds {
		fmt.Fprintf(&b, "%s %-6s count %5d ok %5d errors %-14s p50 %8.1f ms  p99 %8.1f ms  max %8.1f ms\n",
			prefix, k.Kind, k.Count, k.OK, errorList(k.Errors), k.P50Ms, k.P99Ms, k.MaxMs)
		for code, e := range k.FirstErrors {
			fmt.Fprintf(&b, "%s %-6s first %s: %s\n", prefix, k.Kind, code, clip(e, 400))
		}
	}
	for _, a := range []struct {
		label string
		kinds []KindStats
	}{{"alone", r.Alone}, {"after", r.AloneAfter}} {
		for _, k := range a.kinds {
			fmt.Fprintf(&b, "%s %-6s %-5s %5d ok %5d errors %-14s p50 %8.1f ms  p99 %8.1f ms  max %8.1f ms%s\n",
				prefix, k.Kind, a.label, k.Count, k.OK, errorList(k.Errors), k.P50Ms, k.P99Ms, k.MaxMs, r.contendedRatio(k, a.label))
		}
	}
	w := r.Check.worst()
	fmt.Fprintf(&b, "%s result: %d servers, %d sessions, %.1f s, %d ok statements (%.1f/s)%s; rows %d before, %d by the model, %d reads: %d lost, %d resurrected, %d phantom, %d wrong value, %d duplicate; %d deleted twice, %d wrong returns, %d stale returns%s%s; %s",
		prefix, r.Servers, r.Sessions, r.Seconds, r.OKStatements, r.OKPerSecond, r.blocks(), r.RowsBefore, r.Check.ModelRows, len(r.Check.Reads),
		w.Lost, w.Resurrected, w.Phantom, w.WrongValue, w.Duplicate, r.Check.DoubleDeleted, r.Check.WrongReturns, r.Check.StaleReturns, r.deletesCounts(), r.Commits.line(), verdict(r.Failures()))
	for _, p := range r.Check.Problems {
		fmt.Fprintf(&b, "\n%s problem: %s", prefix, p)
	}
	return b.String()
}

// contendedRatio is "; contended p99 = N x <label> p50" for kind k, or "".
func (r ContentionResult) contendedRatio(alone KindStats, label string) string {
	for _, k := range r.Kinds {
		if k.Kind == alone.Kind && alone.P50Ms > 0 && k.OK > 0 {
			return fmt.Sprintf("; contended p99 = %.1f x %s p50", k.P99Ms/alone.P50Ms, label)
		}
	}
	return ""
}

// blocks is the soak's ", blocks committed 3/23", or "".
func (r ContentionResult) blocks() string {
	for _, k := range r.Kinds {
		if k.Kind == kindBlock {
			return fmt.Sprintf(", blocks committed %d/%d", k.OK, k.Count)
		}
	}
	return ""
}

func (r ContentionResult) deletesCounts() string {
	if r.Scenario != ScenarioDeletes {
		return ""
	}
	return fmt.Sprintf(", %d matched rows not returned, %d kept by failed statements", r.Check.NotReturned, r.Check.KeptByFailures)
}

func verdict(failures []string) string {
	if len(failures) == 0 {
		return "PASS"
	}
	return "FAIL: " + strings.Join(failures, "; ")
}

// JSON is the one-line JSON report.
func (r ContentionResult) JSON() string {
	b, err := json.Marshal(r)
	if err != nil { // numbers, strings and maps of them always marshal
		panic(err)
	}
	return string(b)
}

// ContentionSummary is one line per scenario over its modes.
func ContentionSummary(results []ContentionResult) []string {
	var out []string
	for _, sc := range []string{ScenarioDeletes, ScenarioSoak} {
		var modes, stmts, ok, failed int
		errs := map[string]int{}
		var fails []string
		for _, r := range results {
			if r.Scenario != sc {
				continue
			}
			modes++
			for _, k := range r.Kinds {
				stmts, ok, failed = stmts+k.Count, ok+k.OK, failed+k.Failed()
				for c, n := range k.Errors {
					errs[c] += n
				}
			}
			for _, f := range r.Failures() {
				fails = append(fails, string(r.Mode)+": "+f)
			}
		}
		if modes > 0 {
			out = append(out, fmt.Sprintf("contention %s summary: %d modes, %d statements and blocks, %d ok, %d failed (%s); %s",
				sc, modes, stmts, ok, failed, errorList(errs), verdict(fails)))
		}
	}
	return out
}
