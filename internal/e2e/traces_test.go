package e2e

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// allowed is one deliberate difference from PostgreSQL 15 in a trace: the
// answer to client messages containing Trigger (in the named trace) may have
// another shape. An entry that no longer matches a difference fails the test,
// so the list never outlives what it excuses.
//
// A type entry (PGOID set) excuses only that RowDescription fields PostgreSQL
// types PGOID are typed OurOID here, in every trace; the rest of the answer
// must still match.
type allowed struct {
	Trace   string // file name
	Trigger string // substring of the client messages the answer is to
	Reason  string
	PGOID   uint32
	OurOID  uint32
}

// traceAllowList names every place where magmalake answers a traced client
// differently from PostgreSQL 15, and why.
var traceAllowList = []allowed{
	// sql.Type has no "char" or regclass kinds: catalog columns and
	// functions of those types (relkind, c.oid::regclass) are text.
	// Clients read them as strings either way.
	{Reason: `"char" is reported as text`, PGOID: 18, OurOID: 25},
	{Reason: "regclass is reported as text", PGOID: 2205, OurOID: 25},
	// Iceberg tables have no unique constraints (the trace's t has a primary
	// key): the duplicate INSERT of pgjdbc's batch succeeds instead of 23505.
	{Trace: "pgjdbc-errors.jsonl", Trigger: "Bind; Describe; Execute; Bind; Describe; Execute; Bind; Describe; Execute; Sync",
		Reason: "no unique constraints, so no 23505"},
	// Iceberg tables have no indexes: \d t lists no primary key index.
	{Trace: "psql-describe-t.jsonl", Trigger: "pg_catalog.pg_index i", Reason: "no indexes"},
	// pg_sleep is not implemented (42883); cancellation of a running
	// statement is covered by wire's and internal/e2e's own cancel tests.
	{Trace: "pgx-cancel.jsonl", Trigger: "pg_sleep", Reason: "no pg_sleep"},
	{Trace: "psql-cancel.jsonl", Trigger: "pg_sleep", Reason: "no pg_sleep"},
}

type allowList struct {
	entries []allowed
	used    []bool
}

// retype applies the type entries to PostgreSQL's answer.
func (a *allowList) retype(want []string) []string {
	out := make([]string, len(want))
	for k, w := range want {
		out[k] = w
		if !strings.HasPrefix(w, "RowDescription ") {
			continue
		}
		for i, e := range a.entries {
			if e.PGOID == 0 {
				continue
			}
			from, to := fmt.Sprintf(":%d:", e.PGOID), fmt.Sprintf(":%d:", e.OurOID)
			if strings.Contains(out[k], from) {
				out[k] = strings.ReplaceAll(out[k], from, to)
				a.used[i] = true
			}
		}
	}
	return out
}

func (a *allowList) covers(trace, trigger string) (string, bool) {
	for i, e := range a.entries {
		if e.PGOID == 0 && e.Trace == trace && strings.Contains(trigger, e.Trigger) {
			a.used[i] = true
			return e.Reason, true
		}
	}
	return "", false
}

// TestTraces replays every golden trace of real clients against PostgreSQL
// 15 (internal/e2e/testdata/traces, from shared/design/traces) against magmalake and compares the shape of
// every answer: message types in order, command tags, row and parameter
// descriptions, transaction status, SQLSTATEs.
func TestTraces(t *testing.T) {
	dir := tracesDir(t)
	files, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no traces in %s (%v)", dir, err)
	}
	allow := &allowList{entries: traceAllowList, used: make([]bool, len(traceAllowList))}
	for _, f := range files {
		name := filepath.Base(f)
		t.Run(strings.TrimSuffix(name, ".jsonl"), func(t *testing.T) {
			lines, err := readTrace(f)
			if err != nil {
				t.Fatal(err)
			}
			srv, password, oid := startTraceServer(t, name)
			r := &replay{t: t, name: name, srv: srv, password: password, oid: oid, allow: allow,
				conns: map[int]*replayConn{}, traceKey: map[int32]int{}}
			r.run(lines)
		})
	}
	if t.Failed() {
		return
	}
	for i, e := range allow.entries {
		if !allow.used[i] {
			t.Errorf("allow-list entry no longer needed: %s %q (%s)", e.Trace, e.Trigger, e.Reason)
		}
	}
}
