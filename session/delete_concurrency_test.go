package session

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/stmt"
)

// delConcWorker is one goroutine's series of deletes and what they reported.
type delConcWorker struct {
	s       *Session
	wheres  []string
	deleted int
	err     error
}

// run executes the deletes in order. Each is autocommit, so it must never
// fail for a conflict: it re-plans against the new head itself.
func (w *delConcWorker) run(ctx context.Context) {
	for _, where := range w.wheres {
		r, err := w.s.query(ctx, "DELETE FROM t WHERE "+where)
		if err != nil {
			w.err = fmt.Errorf("DELETE WHERE %s: %w", where, err)
			return
		}
		n, err := strconv.Atoi(strings.TrimPrefix(r.tag, "DELETE "))
		if err != nil {
			w.err = fmt.Errorf("tag %q: %w", r.tag, err)
			return
		}
		w.deleted += n
	}
}

// delConcWheres are per-worker delete series: each statement touches every
// data file (grp spreads over all of them), so concurrent statements collide.
func delConcWheres(pred string) []string {
	var out []string
	for _, g := range []string{"grp < 2", "grp BETWEEN 2 AND 4", "grp > 4"} {
		out = append(out, fmt.Sprintf("%s AND %s", pred, g))
	}
	return out
}

// runConcurrentDeletes runs two workers at once and checks the outcome
// against the model: the union of their matches is gone, nothing else is,
// and every deleted row was counted by exactly one of them.
func runConcurrentDeletes(t *testing.T, a, b *Session, check *delSQLEnv, model []delSQLRow, predA, predB string, delA, delB func(delSQLRow) bool) {
	t.Helper()
	ws := []*delConcWorker{{s: a, wheres: delConcWheres(predA)}, {s: b, wheres: delConcWheres(predB)}}
	var wg sync.WaitGroup
	for _, w := range ws {
		wg.Go(func() { w.run(context.Background()) })
	}
	wg.Wait()
	for _, w := range ws {
		if w.err != nil {
			t.Fatal(w.err)
		}
	}
	kept, removed := delSQLSplit(model, func(r delSQLRow) bool { return delA(r) || delB(r) })
	if got := ws[0].deleted + ws[1].deleted; got != len(removed) {
		t.Fatalf("workers reported %d + %d deleted rows, %d rows match", ws[0].deleted, ws[1].deleted, len(removed))
	}
	check.assertContents(t, kept)
	checkOneVectorPerFile(t, check)
}

// checkOneVectorPerFile reads the plan through iceberg-go: a data file may
// have at most one deletion vector.
func checkOneVectorPerFile(t *testing.T, e *delSQLEnv) {
	t.Helper()
	tbl := e.table(t)
	tasks, err := tbl.Scan().PlanFiles(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, task := range tasks {
		if len(task.DeletionVectorFiles) > 1 {
			t.Fatalf("%s has %d deletion vectors", task.File.FilePath(), len(task.DeletionVectorFiles))
		}
	}
}

func TestDeleteConcurrentSessionsOneEngine(t *testing.T) {
	for _, m := range delSQLModes {
		t.Run(m.mode+"/v"+m.version, func(t *testing.T) {
			for _, c := range delConcCases {
				t.Run(c.name, func(t *testing.T) {
					e := newDelSQLEnv(t)
					model := e.createModelTable(t, m.mode, m.version, 2, 21)
					other := e.eng.NewSession(stmt.SessionInfo{User: "other", Database: "db"})
					t.Cleanup(other.Close)
					runConcurrentDeletes(t, e.s, other, e, model, c.predA, c.predB, c.delA, c.delB)
				})
			}
		})
	}
}

func TestDeleteConcurrentEnginesSharedDataDir(t *testing.T) {
	for _, m := range delSQLModes {
		t.Run(m.mode+"/v"+m.version, func(t *testing.T) {
			for _, c := range delConcCases {
				t.Run(c.name, func(t *testing.T) {
					e := newDelSQLEnv(t)
					model := e.createModelTable(t, m.mode, m.version, 2, 21)
					other := testEngine(t, e.dir).NewSession(stmt.SessionInfo{User: "other", Database: "db"})
					t.Cleanup(other.Close)
					runConcurrentDeletes(t, e.s, other, e, model, c.predA, c.predB, c.delA, c.delB)
				})
			}
		})
	}
}

var delConcCases = []struct {
	name         string
	predA, predB string
	delA, delB   func(delSQLRow) bool
}{
	{"overlapping", "id % 2 = 0", "id % 3 = 0",
		func(r delSQLRow) bool { return r.id%2 == 0 }, func(r delSQLRow) bool { return r.id%3 == 0 }},
	{"disjoint", "id <= 20", "id > 25",
		func(r delSQLRow) bool { return r.id <= 20 }, func(r delSQLRow) bool { return r.id > 25 }},
	{"same rows", "s = 's1'", "s = 's1'",
		func(r delSQLRow) bool { return r.s == "s1" }, func(r delSQLRow) bool { return r.s == "s1" }},
}

// countdownCtx is a context that cancels itself after it has been asked
// whether it is done a given number of times, so a test can cancel a
// statement at each point where it checks for cancellation, without timing.
type countdownCtx struct {
	context.Context
	mu   sync.Mutex
	left int
	done chan struct{}
}

func newCountdownCtx(n int) *countdownCtx {
	return &countdownCtx{Context: context.Background(), left: n, done: make(chan struct{})}
}

func (c *countdownCtx) tick() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.left == 0 {
		return
	}
	c.left--
	if c.left == 0 {
		close(c.done)
	}
}

func (c *countdownCtx) Done() <-chan struct{} { c.tick(); return c.done }

func (c *countdownCtx) Err() error {
	c.tick()
	select {
	case <-c.done:
		return context.Canceled
	default:
		return nil
	}
}

// TestDeleteCancelled cancels the same DELETE at the 1st, 2nd, ... check of
// its context (every one early on, then sparser) until it completes: every
// cancelled run must report 57014 and leave the table and its directory
// exactly as they were.
func TestDeleteCancelled(t *testing.T) {
	forEachDelMode(t, 2, 15, func(t *testing.T, e *delSQLEnv, model []delSQLRow, mode, version string) {
		mustTag(t, e.s, "DELETE FROM t WHERE grp = 0", 4) // existing deletes to carry over
		model, _ = delSQLSplit(model, func(r delSQLRow) bool { return r.grp == 0 })
		snaps, files := e.snapshotCount(t), e.files(t)
		const q = "DELETE FROM t WHERE grp = 1 OR (bo AND id < 10)"
		for n := 1; ; n += 1 + n/16 {
			if n > 2000 {
				t.Fatal("the DELETE never completed")
			}
			_, err := e.s.query(newCountdownCtx(n), q)
			if err == nil {
				break
			}
			var se *pgerr.Error
			if !errors.As(err, &se) || se.Code != pgerr.QueryCanceled {
				t.Fatalf("cancelled at check %d: %v", n, err)
			}
			if e.snapshotCount(t) != snaps || !slices.Equal(e.files(t), files) {
				t.Fatalf("cancelled at check %d: table or files changed\nbefore %v\nafter  %v", n, files, e.files(t))
			}
			e.assertContents(t, model)
		}
		model, _ = delSQLSplit(model, func(r delSQLRow) bool { return r.grp == 1 || (r.bo && r.id < 10) })
		e.assertContents(t, model)
		if e.snapshotCount(t) != snaps+1 {
			t.Fatalf("%d snapshots after the completed DELETE, want %d", e.snapshotCount(t), snaps+1)
		}
	})
}
