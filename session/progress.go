package session

import (
	"context"
	"io"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/magmalake/magmalake/internal/progress"
	"github.com/magmalake/magmalake/stmt"
)

// progressDelay is how long a statement runs before its first progress
// report: quick statements never show one.
const progressDelay = time.Second

// progressWatch is what WatchProgress registered.
type progressWatch struct {
	every time.Duration
	f     func(stmt.ProgressReport)
	// ticks starts a statement's clock: the first tick after the delay,
	// then one per every; stop releases it. Tests drive it by hand.
	ticks func(delay, every time.Duration) (<-chan time.Time, func())
}

// WatchProgress asks for reports on statements that run past a second,
// every interval after that, while the setting magmalake.progress is on;
// f runs on another goroutine, its last call (Done) before the statement's
// Execute, last Rows.Next or COPY load returns.
func (s *Session) WatchProgress(every time.Duration, f func(stmt.ProgressReport)) {
	s.progress = &progressWatch{every: every, f: f, ticks: realTicks}
}

func realTicks(delay, every time.Duration) (<-chan time.Time, func()) {
	ch := make(chan time.Time, 1)
	stop := make(chan struct{})
	go func() {
		t := time.NewTimer(delay)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case now := <-t.C:
				select {
				case ch <- now:
				default: // the reader is behind: skip this tick
				}
				t.Reset(every)
			}
		}
	}()
	return ch, func() { close(stop) }
}

// progressRun is one statement's progress: its counters and the goroutine
// that reports them.
type progressRun struct {
	p     progress.Progress
	start time.Time
	stop  chan struct{}
	ended chan struct{}
	once  sync.Once
}

// start begins counting a statement's work when someone watches
// and magmalake.progress is on; nil otherwise.
func (w *progressWatch) start(settings *Settings) *progressRun {
	if w == nil {
		return nil
	}
	if v, _ := settings.Get("magmalake.progress"); v != "on" {
		return nil
	}
	r := &progressRun{start: time.Now(), stop: make(chan struct{}), ended: make(chan struct{})}
	ticks, release := w.ticks(progressDelay, w.every)
	go r.report(w.f, ticks, release)
	return r
}

func (r *progressRun) report(f func(stmt.ProgressReport), ticks <-chan time.Time, release func()) {
	defer close(r.ended)
	defer release()
	reported := false
	for {
		// A due tick goes first: a statement ending as it comes still
		// shows it, then the last report.
		select {
		case <-ticks:
			f(r.reading(false))
			reported = true
			continue
		default:
		}
		select {
		case <-r.stop:
			if reported {
				f(r.reading(true))
			}
			return
		case <-ticks:
			f(r.reading(false))
			reported = true
		}
	}
}

func (r *progressRun) reading(done bool) stmt.ProgressReport {
	return stmt.ProgressReport{Elapsed: time.Since(r.start), Counts: r.p.Counts(), Done: done}
}

// attach makes the layers below count into r.
func (r *progressRun) attach(ctx context.Context) context.Context {
	if r == nil {
		return ctx
	}
	return progress.With(ctx, &r.p)
}

// end stops the reports and waits for the last one.
func (r *progressRun) end() {
	if r == nil {
		return
	}
	r.once.Do(func() { close(r.stop) })
	<-r.ended
}

// follow keeps r running while the statement's rows or COPY data flow,
// and ends it otherwise.
func (r *progressRun) follow(res *stmt.Result, err error) (*stmt.Result, error) {
	if r == nil {
		return res, err
	}
	switch {
	case err != nil:
		r.end()
	case res.Rows != nil:
		res.Rows = &progressRows{Rows: res.Rows, r: r}
	case res.CopyIn != nil:
		load := res.CopyIn.Load
		res.CopyIn.Load = func(ctx context.Context, in io.Reader) (int64, error) {
			defer r.end()
			return load(r.attach(ctx), in)
		}
	default:
		r.end()
	}
	return res, err
}

// progressRows counts a streamed result's work until it ends.
type progressRows struct {
	stmt.Rows
	r *progressRun
}

func (p *progressRows) Next(ctx context.Context) (arrow.RecordBatch, error) {
	b, err := p.Rows.Next(p.r.attach(ctx))
	if err != nil { // io.EOF too: the rows ended
		p.r.end()
	}
	return b, err
}

func (p *progressRows) Close() error {
	p.r.end()
	return p.Rows.Close()
}
