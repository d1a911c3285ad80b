// Package progress counts a running statement's work so far: the files
// and bytes it plans to read, what it has read, skipped and written. The
// Iceberg layer and the delete engine add to the counter a statement's
// context carries; the session reads it for the shell's progress line and
// the wire's progress NOTICEs. It imports nothing of magmalake, so the
// clients' side can name a report without linking the layers that count.
package progress

import (
	"context"
	"sync/atomic"
)

// Progress counts a running statement's work so far. The layers that plan,
// read and write files add to the one their context carries (With);
// the session reads it from another goroutine to show a progress line. A
// nil *Progress counts nothing, so callers need no checks.
//
// Bytes read count against the reads planned: each planned read of a file
// (PlanRead) adds the file's size to the total, and what is read of it
// counts up to that size. A read that ends having needed less (columns
// not selected, row groups pruned, a file known from its metadata) counts
// the rest as skipped: the total is then covered, read or skipped, and the
// bytes read never pass it. A file read twice (planned, then rewritten) is
// planned twice.
type Progress struct {
	filesPlanned, filesDone atomic.Int64
	bytesPlanned            atomic.Int64
	rows                    atomic.Int64
	bytesRead, bytesSkipped atomic.Int64
	bytesWritten            atomic.Int64
}

// Counts is one reading of a Progress.
type Counts struct {
	FilesPlanned, FilesDone int64
	BytesPlanned            int64 // the sizes of the planned reads
	Rows                    int64 // rows read from data files
	BytesRead               int64 // read of the planned files
	BytesSkipped            int64 // of planned reads that ended, what they did not need
	BytesWritten            int64
}

type progressKey struct{}

// With returns a context under which work is counted in p.
func With(ctx context.Context, p *Progress) context.Context {
	return context.WithValue(ctx, progressKey{}, p)
}

// Of is the Progress ctx carries, or nil.
func Of(ctx context.Context) *Progress {
	p, _ := ctx.Value(progressKey{}).(*Progress)
	return p
}

// PlanRead counts a read of size bytes about to happen and returns what
// counts its progress; nil (which counts nothing) when p is nil.
func (p *Progress) PlanRead(size int64) *FileRead {
	if p == nil {
		return nil
	}
	p.filesPlanned.Add(1)
	p.bytesPlanned.Add(size)
	return &FileRead{p: p, size: size}
}

// FileRead is one planned read of a file.
type FileRead struct {
	p    *Progress
	size int64
	read atomic.Int64
	done atomic.Bool
}

// Add counts n bytes read, up to the planned size; nothing once done.
func (f *FileRead) Add(n int64) {
	if f == nil || n <= 0 || f.done.Load() {
		return
	}
	for {
		cur := f.read.Load()
		take := min(n, f.size-cur)
		if take <= 0 {
			return
		}
		if f.read.CompareAndSwap(cur, cur+take) {
			f.p.bytesRead.Add(take)
			return
		}
	}
}

// Done ends the read: what it did not read counts as skipped. Only the
// first call counts.
func (f *FileRead) Done() {
	if f == nil || f.done.Swap(true) {
		return
	}
	f.p.bytesSkipped.Add(f.size - f.read.Load())
	f.p.filesDone.Add(1)
}

// AddRows counts rows read.
func (p *Progress) AddRows(n int64) {
	if p != nil {
		p.rows.Add(n)
	}
}

// AddWritten counts bytes written to new files.
func (p *Progress) AddWritten(n int64) {
	if p != nil {
		p.bytesWritten.Add(n)
	}
}

// Counts reads the counters; each is exact, together they are a moment's
// approximate picture.
func (p *Progress) Counts() Counts {
	if p == nil {
		return Counts{}
	}
	return Counts{
		FilesPlanned: p.filesPlanned.Load(), FilesDone: p.filesDone.Load(),
		BytesPlanned: p.bytesPlanned.Load(), Rows: p.rows.Load(),
		BytesRead: p.bytesRead.Load(), BytesSkipped: p.bytesSkipped.Load(),
		BytesWritten: p.bytesWritten.Load(),
	}
}
