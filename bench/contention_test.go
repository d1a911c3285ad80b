package bench

import (
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/magmalake/magmalake/pgerr"
)

// The model checks on made-up answers: a correct history passes, and each
// kind of wrong answer is counted where it belongs.

func okOutcome(start, end time.Time) outcome { return outcome{start: start, end: end} }

func readOf(rows map[int64][]int64) *tableRead {
	t := newTableRead("test")
	for id, v := range rows {
		t.add(id, v)
	}
	return t
}

func TestCheckDeletes(t *testing.T) {
	const rows = 40
	initial := deletesInitial(rows)
	even := delPred{sql: "id % 2 = 0", match: func(id int64) bool { return id%2 == 0 }}
	low := delPred{sql: "id <= 4", match: func(id int64) bool { return id <= 4 }}
	failed := outcome{code: string(pgerr.SerializationFailure), err: &pgconn.PgError{Code: string(pgerr.SerializationFailure)}}
	var evens []int64
	remaining := map[int64][]int64{}
	for id, v := range initial {
		switch {
		case id%2 == 0:
			evens = append(evens, id)
		case id > 4:
			remaining[id] = v
		}
	}
	now := time.Now()
	stmts := []deleteStmt{{pred: even, ids: evens, o: okOutcome(now, now)}, {pred: low, ids: []int64{1, 3}, o: okOutcome(now, now)}}
	if c := checkDeletes(rows, stmts, []*tableRead{readOf(remaining)}); len(resultOf(c).Failures()) > 0 {
		t.Fatalf("a correct history fails: %v %v", resultOf(c).Failures(), c.Problems)
	}

	// id 3 comes back, id 5 is lost, id 2 is returned twice.
	bad := map[int64][]int64{3: initial[3]}
	for id, v := range remaining {
		if id != 5 {
			bad[id] = v
		}
	}
	stmts[1].ids = []int64{1, 2, 3}
	c := checkDeletes(rows, stmts, []*tableRead{readOf(bad)})
	r := c.Reads[0]
	if r.Resurrected != 1 || r.Lost != 1 || c.DoubleDeleted != 1 || c.WrongReturns != 0 {
		t.Errorf("got %+v, double %d, wrong %d", r, c.DoubleDeleted, c.WrongReturns)
	}

	// A failed statement's rows stay, counted as kept, not as lost.
	stmts = []deleteStmt{{pred: even, ids: evens, o: okOutcome(now, now)}, {pred: low, o: failed}}
	withLow := map[int64][]int64{1: initial[1], 3: initial[3]}
	for id, v := range remaining {
		withLow[id] = v
	}
	c = checkDeletes(rows, stmts, []*tableRead{readOf(withLow)})
	if c.KeptByFailures != 2 || c.Reads[0].bad() != 0 {
		t.Errorf("kept %d, read %+v", c.KeptByFailures, c.Reads[0])
	}
}

func TestCheckSoak(t *testing.T) {
	const rows = 10
	t0 := time.Now()
	t1, t2 := t0.Add(time.Second), t0.Add(2*time.Second)
	del := soakEvent{kind: kindDelete, o: okOutcome(t0, t1), deleted: []int64{3}, mayDelete: func(id int64) bool { return id == 3 }}
	upd := soakEvent{kind: kindUpdate, o: okOutcome(t0, t1), updated: []int64{3, 4}}
	ins := soakEvent{kind: kindInsert, o: okOutcome(t0, t1), inserted: []int64{100}}
	lost := soakEvent{kind: kindInsert, o: outcome{code: codeUnknown, err: errors.New("connection reset")}}
	want := map[int64][]int64{4: {1}, 100: {0}}
	for id := int64(1); id <= rows; id++ {
		if id != 3 && id != 4 {
			want[id] = []int64{0}
		}
	}
	c := checkSoak(rows, []soakEvent{del, upd, ins}, []*tableRead{readOf(want)})
	if f := resultOf(c).Failures(); len(f) > 0 {
		t.Fatalf("a correct history fails: %v %v", f, c.Problems)
	}

	// An UPDATE that began after the DELETE answered returns id 3: stale;
	// the table shows it back; an unknown outcome is counted.
	late := soakEvent{kind: kindUpdate, o: okOutcome(t2, t2), updated: []int64{3}}
	back := map[int64][]int64{3: {2}}
	for id, v := range want {
		back[id] = v
	}
	c = checkSoak(rows, []soakEvent{del, upd, ins, late, lost}, []*tableRead{readOf(back)})
	if c.StaleReturns != 1 || c.Reads[0].Resurrected != 1 || c.Uncertain != 1 {
		t.Errorf("stale %d, read %+v, uncertain %d", c.StaleReturns, c.Reads[0], c.Uncertain)
	}
}

func resultOf(c ModelCheck) ContentionResult { return ContentionResult{Check: c} }

func TestQuantile(t *testing.T) {
	var d []time.Duration
	for i := 1; i <= 100; i++ {
		d = append(d, time.Duration(i)*time.Millisecond)
	}
	if q := quantile(d, 0.5); q != 50*time.Millisecond {
		t.Errorf("p50 %v", q)
	}
	if q := quantile(d, 0.99); q != 99*time.Millisecond {
		t.Errorf("p99 %v", q)
	}
	if quantile(nil, 0.5) != 0 {
		t.Error("quantile of nothing")
	}
}
