package session

import (
	"context"
	"errors"
	"github.com/magmalake/magmalake/stmt"
	"io"
	"strconv"
	"sync"
	"testing"
	"time"
)

// manualTicks is a progress clock the test advances: one tick per send.
type manualTicks struct {
	ch      chan time.Time
	started int // statements that started a clock
}

func (m *manualTicks) ticks(_, _ time.Duration) (<-chan time.Time, func()) {
	m.started++
	return m.ch, func() {}
}

// reportLog collects what WatchProgress delivers.
type reportLog struct {
	mu      sync.Mutex
	reports []stmt.ProgressReport
	got     chan stmt.ProgressReport
}

func (l *reportLog) add(r stmt.ProgressReport) {
	l.mu.Lock()
	l.reports = append(l.reports, r)
	l.mu.Unlock()
	l.got <- r
}

func watchManually(s *Session) (*manualTicks, *reportLog) {
	m := &manualTicks{ch: make(chan time.Time, 1)}
	log := &reportLog{got: make(chan stmt.ProgressReport, 16)}
	s.WatchProgress(time.Second, log.add)
	s.progress.ticks = m.ticks
	return m, log
}

func intOf(t *testing.T, s *Session, q string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(mustQuery(t, s, q).rows[0][0], 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestProgressCountsAScan: a streamed SELECT's reports count the files the
// scan planned with their sizes (as "t$files" lists them), and its last
// report, delivered before the rows end, every file and row read.
func TestProgressCountsAScan(t *testing.T) {
	s := testSession(t)
	mustQuery(t, s, "CREATE TABLE t (id bigint, s text)")
	for k := range 4 {
		mustQuery(t, s, "INSERT INTO t SELECT g, repeat('x', 50) FROM generate_series("+strconv.Itoa(k*5000)+", "+strconv.Itoa(k*5000+4999)+") g")
	}
	files := intOf(t, s, `SELECT count(*) FROM "t$files"`)
	bytes := intOf(t, s, `SELECT sum(file_size_in_bytes) FROM "t$files"`)

	m, log := watchManually(s)
	if mustQuery(t, s, "SELECT 1"); m.started != 0 {
		t.Fatalf("with magmalake.progress off a statement started the clock")
	}
	mustQuery(t, s, "SET magmalake.progress = on")
	ctx := context.Background()
	p, err := s.Prepare(ctx, "SELECT id, s FROM t", nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Execute(ctx, p, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := res.Rows.Next(ctx); err != nil {
		t.Fatal(err)
	}
	m.ch <- time.Now()
	first := <-log.got
	if first.Done || first.FilesPlanned != files || first.BytesPlanned != bytes || first.Rows == 0 {
		t.Errorf("first report %+v, want %d files of %d bytes planned and rows read", first, files, bytes)
	}
	for {
		_, err := res.Rows.Next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	select {
	case last := <-log.got:
		if !last.Done || last.FilesDone != files || last.Rows != 20000 || last.BytesRead <= 0 || last.BytesRead > 2*bytes {
			t.Errorf("last report %+v, want done, %d files, 20000 rows, up to %d bytes read", last, files, bytes)
		}
	default:
		t.Fatal("no report when the rows ended")
	}
	res.Rows.Close()
}

// TestProgressCountsWrites: an INSERT's report counts the bytes of the file
// it wrote, a merge-on-read DELETE the data files it read and the bytes of
// its delete file, a copy-on-write UPDATE the file it rewrote.
func TestProgressCountsWrites(t *testing.T) {
	s := testSession(t)
	mustQuery(t, s, "CREATE TABLE w (id bigint, s text) WITH ('format-version' = '2', 'write.delete.mode' = 'merge-on-read', 'write.update.mode' = 'copy-on-write')")
	m, log := watchManually(s)
	mustQuery(t, s, "SET magmalake.progress = on")
	// A tick waiting in the channel makes the statement report at once.
	run := func(q string) stmt.ProgressReport {
		t.Helper()
		m.ch <- time.Now()
		mustQuery(t, s, q)
		var last stmt.ProgressReport
		for range len(log.got) {
			last = <-log.got
		}
		if !last.Done {
			t.Fatalf("%s: no final report (%+v)", q, last)
		}
		return last
	}
	ins := run("INSERT INTO w SELECT g, 'v' || g FROM generate_series(1, 30000) g")
	size := intOf(t, s, `SELECT sum(file_size_in_bytes) FROM "w$files"`)
	if ins.BytesWritten != size {
		t.Errorf("INSERT wrote %d bytes, the data file has %d", ins.BytesWritten, size)
	}
	del := run("DELETE FROM w WHERE id % 7 = 0")
	delSize := intOf(t, s, `SELECT sum(file_size_in_bytes) FROM "w$delete_files"`)
	if del.FilesPlanned != 1 || del.FilesDone != 1 || del.Rows != 30000 || del.BytesRead <= 0 || del.BytesWritten != delSize {
		t.Errorf("DELETE report %+v, want 1 file and 30000 rows read, %d bytes written", del, delSize)
	}
	upd := run("UPDATE w SET s = 'u' WHERE id = 3")
	if upd.FilesDone < 1 || upd.BytesWritten <= 0 {
		t.Errorf("UPDATE report %+v, want the rewritten file counted", upd)
	}
}

// TestProgressText: the line's figures and fraction.
func TestProgressText(t *testing.T) {
	r := stmt.ProgressReport{Elapsed: 2 * time.Second}
	r.FilesPlanned, r.FilesDone, r.Rows = 12, 3, 1234567
	r.BytesRead, r.BytesPlanned, r.BytesWritten = 50<<20, 200<<20, 1536
	if got, want := r.String(), "3/12 files, 1,234,567 rows, 50.0 MB of 200.0 MB read, 1.5 kB written, 25.0 MB/s, 2.0 s"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	if f := r.Fraction(); f != 0.25 {
		t.Errorf("Fraction() = %v", f)
	}
	r.Done = true
	if r.Fraction() != 1 {
		t.Errorf("done: Fraction() = %v", r.Fraction())
	}
}

// TestProgressReadsWithinPlanned: a statement's bytes read count against
// the reads it planned (issue 48: "6.6 MB of 5.4 MB read"). A copy-on-write
// DELETE reads each file to plan and again to rewrite it, and plans both; a
// scan plans the delete files it reads; a scan of some columns ends with
// the rest of its files skipped. At the end every planned read is done and
// its bytes read or skipped. The model is the files' sizes in "t$files".
func TestProgressReadsWithinPlanned(t *testing.T) {
	s := testSession(t)
	mustQuery(t, s, "CREATE TABLE cw (id bigint, s text) WITH ('format-version' = '2', 'write.delete.mode' = 'copy-on-write')")
	mustQuery(t, s, "CREATE TABLE mr (id bigint, s text) WITH ('format-version' = '2', 'write.delete.mode' = 'merge-on-read')")
	for k := range 3 {
		for _, tbl := range []string{"cw", "mr"} {
			mustQuery(t, s, "INSERT INTO "+tbl+" SELECT g, repeat('x', 40) || g FROM generate_series("+strconv.Itoa(k*20000+1)+", "+strconv.Itoa(k*20000+20000)+") g")
		}
	}
	m, log := watchManually(s)
	mustQuery(t, s, "SET magmalake.progress = on")
	run := func(q string) stmt.ProgressReport {
		t.Helper()
		m.ch <- time.Now() // a tick waiting makes the statement report
		mustQuery(t, s, q)
		var last stmt.ProgressReport
		for range len(log.got) {
			last = <-log.got
		}
		if !last.Done {
			t.Fatalf("%s: no final report (%+v)", q, last)
		}
		if last.BytesRead > last.BytesPlanned || last.BytesRead+last.BytesSkipped != last.BytesPlanned || last.FilesDone != last.FilesPlanned {
			t.Errorf("%s: %s: %d read + %d skipped of %d planned, %d of %d files done",
				q, last, last.BytesRead, last.BytesSkipped, last.BytesPlanned, last.FilesDone, last.FilesPlanned)
		}
		return last
	}
	files := func(tbl string) (n, bytes int64) {
		r := mustQuery(t, s, `SELECT count(*), sum(file_size_in_bytes) FROM "`+tbl+`$files"`).rows[0]
		n, _ = strconv.ParseInt(r[0], 10, 64)
		bytes, _ = strconv.ParseInt(r[1], 10, 64)
		return n, bytes
	}
	want := func(q string, r stmt.ProgressReport, n, bytes int64) {
		t.Helper()
		if r.FilesPlanned != n || r.BytesPlanned != bytes {
			t.Errorf("%s: %d files of %d bytes planned, want %d of %d", q, r.FilesPlanned, r.BytesPlanned, n, bytes)
		}
	}
	n, bytes := files("cw")
	q := "DELETE FROM cw WHERE id % 7 = 0"
	want(q, run(q), 2*n, 2*bytes)
	mustQuery(t, s, "DELETE FROM mr WHERE id % 7 = 0")
	n, bytes = files("mr") // data and delete files
	q = "SELECT * FROM mr WHERE id > 0"
	want(q, run(q), n, bytes)
	q = "SELECT * FROM mr"
	want(q, run(q), n, bytes)
	q = "SELECT sum(id) FROM mr WHERE s <> ''"
	want(q, run(q), n, bytes)
	run("UPDATE mr SET s = 'u' WHERE id % 11 = 0")
	cn, cbytes := files("cw")
	n, bytes = files("mr")
	q = "SELECT count(*) FROM cw JOIN mr ON cw.id = mr.id WHERE mr.id > 0"
	if r := run(q); r.BytesSkipped == 0 {
		t.Errorf("%s: the join read only the id columns, yet nothing was skipped: %+v", q, r)
	} else {
		want(q, r, cn+n, cbytes+bytes)
	}
}
