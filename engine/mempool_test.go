package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/magmalake/magmalake/internal/testenv"
	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql"
)

// aggQuery concatenates n numbers: string_agg holds its text (about 7n
// bytes charged) and does not spill, so past the server's memory it waits
// or fails.
func aggQuery(n int) string {
	return fmt.Sprintf("SELECT length(string_agg(CAST(g AS text), ',')) FROM generate_series(1, %d) AS x(g)", n)
}

// aggModel is aggQuery's answer.
func aggModel(n int) string {
	total := n - 1 // the separators
	for g := 1; g <= n; g++ {
		total += len(fmt.Sprint(g))
	}
	return fmt.Sprint(total)
}

// statementIn starts a statement of acct's under ctx, as the session does.
func statementIn(ctx context.Context, acct *MemAccount) (context.Context, func()) {
	return WithMemAccount(ctx, acct), acct.Enter(ctx)
}

// runIn runs q as a statement of acct's under work_mem and renders its
// rows as text; it may run on a goroutine other than the test's.
func runIn(ctx context.Context, acct *MemAccount, q string, workMem int64) (string, error) {
	ctx, leave := statementIn(ctx, acct)
	defer leave()
	stmts, err := sql.Parse(q)
	if err != nil {
		return "", err
	}
	pq, err := Plan(ctx, &Env{Options: Options{WorkMem: workMem}}, stmts[0].(*sql.Select), nil)
	if err != nil {
		return "", err
	}
	rows, err := pq.Run(ctx, nil)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	var out []string
	for {
		b, err := rows.Next(ctx)
		if errors.Is(err, io.EOF) {
			return strings.Join(out, "\n"), nil
		}
		if err != nil {
			return "", err
		}
		for r := 0; r < int(b.NumRows()); r++ {
			var row []string
			for c := 0; c < int(b.NumCols()); c++ {
				row = append(row, datumText(sql.DatumAt(b.Column(c), sql.TypeFromArrow(b.Column(c).DataType()), r)))
			}
			out = append(out, strings.Join(row, " "))
		}
	}
}

// sortHolding starts ORDER BY over n rows as a statement of acct's and
// reads its first batch: the sort then holds all its rows in memory.
func sortHolding(t *testing.T, acct *MemAccount, n int) func() {
	t.Helper()
	ctx, leave := statementIn(context.Background(), acct)
	defer leave()
	tmp := t.TempDir()
	rows := openSorted(t, ctx, spillQuery(n), 64<<20, 1024, tmp)
	if _, err := rows.Next(ctx); err != nil {
		t.Fatal(err)
	}
	if files := spillFiles(t, tmp); len(files) > 0 {
		t.Fatalf("the holding sort spilled %d runs", len(files))
	}
	return func() { rows.Close() }
}

type result struct {
	text string
	err  error
}

// startIn runs q on its own goroutine as a statement of acct's.
func startIn(ctx context.Context, acct *MemAccount, q string) <-chan result {
	done := make(chan result, 1)
	go func() {
		text, err := runIn(ctx, acct, q, 64<<20)
		done <- result{text, err}
	}()
	return done
}

func wantEmptyPool(t *testing.T, p *MemPool) {
	t.Helper()
	if used := p.Used(); used != 0 {
		t.Fatalf("the pool holds %d bytes after every statement ended", used)
	}
}

func isOutOfMemory(err error, detail string) bool {
	var pe *pgerr.Error
	return errors.As(err, &pe) && pe.Code == pgerr.OutOfMemory && strings.Contains(pe.Detail, detail)
}

// TestPoolStatementWaitsForAnother: two statements whose work together
// exceeds the server's memory both finish with the right answers: the one
// that does not spill waits until the other gives its memory back.
func TestPoolStatementWaitsForAnother(t *testing.T) {
	const sortRows, aggRows = 40000, 400000
	pool := NewMemPool(MemPoolOptions{Limit: 4 << 20})
	a, b := pool.Open("session a"), pool.Open("session b")
	closeSort := sortHolding(t, a, sortRows)
	if held := a.Held(); held < 1<<20 {
		t.Fatalf("the sort holds %d bytes: too little for the test", held)
	}
	done := startIn(context.Background(), b, aggQuery(aggRows))
	testenv.WaitFor(t, 30*time.Second, "string_agg waiting for memory", func() bool { return pool.Waiting() == 1 })
	closeSort()
	a.Close()
	r := <-done
	if r.err != nil || r.text != aggModel(aggRows) {
		t.Fatalf("string_agg after waiting: %q, %v; want %s", r.text, r.err, aggModel(aggRows))
	}
	b.Close()
	wantEmptyPool(t, pool)
}

// TestPoolWaitCancelled: a statement waiting for memory ends with 57014
// when it is cancelled, and gives back what it held.
func TestPoolWaitCancelled(t *testing.T) {
	pool := NewMemPool(MemPoolOptions{Limit: 4 << 20})
	a, b := pool.Open("session a"), pool.Open("session b")
	closeSort := sortHolding(t, a, 40000)
	ctx, cancel := context.WithCancel(context.Background())
	done := startIn(ctx, b, aggQuery(400000))
	testenv.WaitFor(t, 30*time.Second, "string_agg waiting for memory", func() bool { return pool.Waiting() == 1 })
	cancel()
	if r := <-done; !isCanceled(r.err) {
		t.Fatalf("cancelled while waiting for memory: %q, %v; want 57014", r.text, r.err)
	}
	b.Close()
	closeSort()
	a.Close()
	wantEmptyPool(t, pool)
}

// TestPoolLoneStatementFails: a statement that needs more than the server
// has fails with 53200 naming the server's limit, rather than wait for
// memory nobody will give back: when it is alone, and when the only other
// holder is of its own session (a cursor it left open cannot go on while
// it waits).
func TestPoolLoneStatementFails(t *testing.T) {
	pool := NewMemPool(MemPoolOptions{Limit: 1 << 20})
	b := pool.Open("session")
	if _, err := runIn(context.Background(), b, aggQuery(400000), 64<<20); !isOutOfMemory(err, "--memory-limit 1MB") {
		t.Fatalf("alone past the server's memory: %v, want 53200 naming --memory-limit 1MB", err)
	}
	b.Close()
	wantEmptyPool(t, pool)

	pool = NewMemPool(MemPoolOptions{Limit: 4 << 20})
	cursor, b := pool.Open("session"), pool.Open("session")
	closeSort := sortHolding(t, cursor, 40000)
	if _, err := runIn(context.Background(), b, aggQuery(400000), 64<<20); !isOutOfMemory(err, "--memory-limit 4MB") {
		t.Fatalf("beside its own session's cursor: %v, want 53200", err)
	}
	b.Close()
	// Within the server's memory the same statement runs.
	closeSort()
	cursor.Close()
	c := pool.Open("session")
	if got, err := runIn(context.Background(), c, aggQuery(400000), 64<<20); err != nil || got != aggModel(400000) {
		t.Fatalf("within the server's memory: %q, %v", got, err)
	}
	c.Close()
	wantEmptyPool(t, pool)
}

// TestPoolWaitersDoNotDeadlock: when every holder would wait, the one
// that would complete the circle fails and the other is served once it
// has ended.
func TestPoolWaitersDoNotDeadlock(t *testing.T) {
	pool := NewMemPool(MemPoolOptions{Limit: 4 << 20})
	a, b := pool.Open("a"), pool.Open("b")
	if _, err := a.draw(3<<20, 0, true, "test"); err != nil {
		t.Fatal(err)
	}
	if _, err := b.draw(1<<20, 0, true, "test"); err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() {
		_, err := a.draw(1<<20, 0, true, "a's operator")
		served <- err
	}()
	testenv.WaitFor(t, 30*time.Second, "a waiting for memory", func() bool { return pool.Waiting() == 1 })
	if _, err := b.draw(1<<20, 0, true, "b's operator"); !isOutOfMemory(err, "b's operator") {
		t.Fatalf("b, needing memory while a waits for b's: %v, want 53200", err)
	}
	b.Close()
	if err := <-served; err != nil {
		t.Fatalf("a, once b ended: %v", err)
	}
	if held := a.Held(); held != 4<<20 {
		t.Fatalf("a holds %d bytes, want 4MB", held)
	}
	a.Close()
	wantEmptyPool(t, pool)
}

// TestPoolShortSortSpills: an ORDER BY well within work_mem spills its
// runs when the server's memory cannot hold it, with the model's order.
func TestPoolShortSortSpills(t *testing.T) {
	const n = 20000
	for _, limit := range []int64{0, 256 << 10} {
		pool := NewMemPool(MemPoolOptions{Limit: limit})
		acct := pool.Open("session")
		ctx, leave := statementIn(context.Background(), acct)
		tmp := t.TempDir()
		rows := openSorted(t, ctx, spillQuery(n), 64<<20, 1024, tmp)
		if spilled := len(spillFiles(t, tmp)) > 0; spilled != (limit > 0) {
			t.Fatalf("server memory %d: spilled %v", limit, spilled)
		}
		var got []int64
		for {
			b, err := rows.Next(ctx)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			for r := 0; r < int(b.NumRows()); r++ {
				got = append(got, toInt64(t, sql.DatumAt(b.Column(0), sql.Type{Kind: sql.KindInt64}, r)))
			}
		}
		rows.Close()
		leave()
		if !slices.Equal(got, spillModel(n)) {
			t.Fatalf("server memory %d: order differs from the model", limit)
		}
		acct.Close()
		wantEmptyPool(t, pool)
		emptyDir(t, tmp)
	}
}

// TestPoolReturnsMemoryAfterLargeStatements: the end of a statement that
// held at least ReturnAfter gives memory back to the system, a smaller
// one's does not.
func TestPoolReturnsMemoryAfterLargeStatements(t *testing.T) {
	returned := make(chan struct{}, 4)
	pool := NewMemPool(MemPoolOptions{Limit: 64 << 20, ReturnAfter: 2 << 20,
		ReturnMemory: func() { returned <- struct{}{} }})
	small := pool.Open("s")
	if _, err := small.draw(1<<20, 0, true, "test"); err != nil {
		t.Fatal(err)
	}
	small.Close()
	large := pool.Open("s")
	if _, err := large.draw(3<<20, 0, true, "test"); err != nil {
		t.Fatal(err)
	}
	large.Close()
	<-returned
	if len(returned) != 0 {
		t.Fatalf("%d more returns of memory", len(returned))
	}
	wantEmptyPool(t, pool)
}

// TestPoolReturnsMemoryWhenQuiet: memory goes back only once no statement
// runs: a large statement's end while another is open schedules nothing
// until that one ends too, and the return waits for ReturnQuiet after the
// last statement's end, so statements that follow each other keep the
// memory the ones before faulted in.
func TestPoolReturnsMemoryWhenQuiet(t *testing.T) {
	returned := make(chan struct{}, 4)
	pool := NewMemPool(MemPoolOptions{Limit: 64 << 20, ReturnAfter: 2 << 20,
		ReturnMemory: func() { returned <- struct{}{} }})
	due := func() bool {
		pool.mu.Lock()
		defer pool.mu.Unlock()
		return pool.returnDue
	}
	idle := pool.Open("cursor") // an open cursor's statement holding nothing
	large := pool.Open("s")
	if _, err := large.draw(3<<20, 0, true, "test"); err != nil {
		t.Fatal(err)
	}
	large.Close()
	if due() || len(returned) > 0 {
		t.Fatal("memory is given back while a statement is open")
	}
	idle.Close()
	<-returned

	pool.opts.ReturnQuiet = time.Hour
	next := pool.Open("s")
	if _, err := next.draw(3<<20, 0, true, "test"); err != nil {
		t.Fatal(err)
	}
	next.Close()
	pool.mu.Lock()
	wait := pool.returnDelayLocked()
	pool.mu.Unlock()
	if !due() || wait < 59*time.Minute {
		t.Fatalf("the return is due %v, in %v: want it scheduled an hour after the last statement", due(), wait)
	}
	wantEmptyPool(t, pool)
}

// TestPoolHashJoinSpills: a hash join whose build side the server's memory
// cannot hold partitions both sides to disk, as past work_mem, rather than
// wait or fail, and joins the same rows.
func TestPoolHashJoinSpills(t *testing.T) {
	q := "SELECT count(*), sum(a.g) FROM generate_series(1, 200000) AS a(g) JOIN (SELECT g * 2 AS k FROM generate_series(1, 200000) AS b(g)) AS b ON a.g = b.k"
	want, err := runIn(context.Background(), NewMemPool(MemPoolOptions{}).Open("s"), q, 64<<20)
	if err != nil {
		t.Fatal(err)
	}
	if want != "100000 10000100000" {
		t.Fatalf("the join in memory: %q", want)
	}
	// Another session's statement holds memory it would give back: an
	// operator that does not spill would wait for it.
	pool := NewMemPool(MemPoolOptions{Limit: 1 << 20})
	other, acct := pool.Open("other"), pool.Open("s")
	if _, err := other.draw(256<<10, 0, true, "test"); err != nil {
		t.Fatal(err)
	}
	done := startIn(context.Background(), acct, q)
	testenv.WaitFor(t, time.Minute, "the join to end or wait", func() bool { return len(done) > 0 || pool.Waiting() > 0 })
	if pool.Waiting() > 0 {
		other.Close()
		t.Fatalf("the join waits for memory: %v", <-done)
	}
	if r := <-done; r.err != nil || r.text != want {
		t.Fatalf("the join past the server's memory: %q, %v; want %q", r.text, r.err, want)
	}
	other.Close()
	acct.Close()
	wantEmptyPool(t, pool)
}

// TestPoolSubqueryRunsGiveBack: a correlated subquery's runs give back
// what they drew when each run ends: the statement holds one run's
// memory, not the sum of all runs'.
func TestPoolSubqueryRunsGiveBack(t *testing.T) {
	q := "SELECT sum((SELECT length(string_agg(CAST(y AS text), ',' ORDER BY y DESC)) FROM generate_series(1, x) AS b(y))) FROM generate_series(1, 400) AS a(x)"
	want := 0
	for x := 1; x <= 400; x++ {
		n, _ := strconv.Atoi(aggModel(x))
		want += n
	}
	pool := NewMemPool(MemPoolOptions{Limit: 4 << 20})
	acct := pool.Open("s")
	if got, err := runIn(context.Background(), acct, q, 64<<20); err != nil || got != fmt.Sprint(want) {
		t.Fatalf("400 runs of a subquery under 4MB: %q, %v; want %d", got, err, want)
	}
	if held := acct.Held(); held != 0 {
		t.Fatalf("the statement still holds %d bytes after its subquery's runs ended", held)
	}
	acct.Close()
	wantEmptyPool(t, pool)
}
