package bench

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// KindStats sums up one kind of statement (or of BEGIN … COMMIT block).
type KindStats struct {
	Kind   string         `json:"kind"`
	Count  int            `json:"count"`
	OK     int            `json:"ok"`
	Errors map[string]int `json:"errors,omitempty"` // by SQLSTATE ("unknown": no SQLSTATE)
	// Latencies of the statements that succeeded: what a client waits for
	// an answer it can use.
	P50Ms float64 `json:"p50_ms"`
	P99Ms float64 `json:"p99_ms"`
	MaxMs float64 `json:"max_ms"`
	// FirstErrors is the first error of each SQLSTATE with its statement,
	// for the report.
	FirstErrors map[string]string `json:"first_errors,omitempty"`
}

// Failed is how many ended in an error.
func (k KindStats) Failed() int { return k.Count - k.OK }

// tally collects the outcomes of one kind in one session.
type tally struct {
	ok    []time.Duration
	errs  map[string]int
	first map[string]string
}

// tallies are a session's outcomes by kind; sessions merge theirs at the end.
type tallies map[string]*tally

func (t tallies) add(kind string, o outcome) {
	k := t[kind]
	if k == nil {
		k = &tally{errs: map[string]int{}, first: map[string]string{}}
		t[kind] = k
	}
	if o.ok() {
		k.ok = append(k.ok, o.end.Sub(o.start))
		return
	}
	k.errs[o.code]++
	if _, seen := k.first[o.code]; !seen {
		k.first[o.code] = fmt.Sprintf("%v [%s]", o.err, clip(o.sql, 200))
	}
}

func (t tallies) merge(o tallies) {
	for kind, src := range o {
		k := t[kind]
		if k == nil {
			t[kind] = src
			continue
		}
		k.ok = append(k.ok, src.ok...)
		for c, n := range src.errs {
			k.errs[c] += n
		}
		for c, e := range src.first {
			if _, seen := k.first[c]; !seen {
				k.first[c] = e
			}
		}
	}
}

// stats lists the kinds in order (those that never ran are left out).
func (t tallies) stats(order []string) []KindStats {
	var out []KindStats
	for _, kind := range order {
		k := t[kind]
		if k == nil {
			continue
		}
		s := KindStats{Kind: kind, OK: len(k.ok), Errors: k.errs, FirstErrors: k.first}
		s.Count = s.OK
		for _, n := range k.errs {
			s.Count += n
		}
		slices.Sort(k.ok)
		s.P50Ms, s.P99Ms = ms(quantile(k.ok, 0.50)), ms(quantile(k.ok, 0.99))
		if len(k.ok) > 0 {
			s.MaxMs = ms(k.ok[len(k.ok)-1])
		}
		out = append(out, s)
	}
	return out
}

// quantile of sorted durations (nearest rank); 0 when there are none.
func quantile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(q*float64(len(sorted))+0.5) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

// errorList is "40001:23 XX000:1", by SQLSTATE, or "none".
func errorList(errs map[string]int) string {
	if len(errs) == 0 {
		return "none"
	}
	var parts []string
	for _, c := range slices.Sorted(maps.Keys(errs)) {
		parts = append(parts, fmt.Sprintf("%s:%d", c, errs[c]))
	}
	return strings.Join(parts, " ")
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
