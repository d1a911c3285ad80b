package iceberg

import (
	"context"
	"sync"
	"sync/atomic"

	iceio "github.com/apache/iceberg-go/io"
	"github.com/apache/iceberg-go/table"
)

// Progress counts a running statement's work so far. The layers that plan,
// read and write files add to the one their context carries (WithProgress);
// the session reads it from another goroutine to show a progress line. A
// nil *Progress counts nothing, so callers need no checks.
type Progress struct {
	filesPlanned, filesDone atomic.Int64
	bytesPlanned            atomic.Int64
	rows                    atomic.Int64
	bytesRead, bytesWritten atomic.Int64
}

// ProgressCounts is one reading of a Progress.
type ProgressCounts struct {
	FilesPlanned, FilesDone int64
	BytesPlanned            int64 // the planned files' sizes
	Rows                    int64 // rows read from data files
	BytesRead, BytesWritten int64
}

type progressKey struct{}

// WithProgress returns a context under which work is counted in p.
func WithProgress(ctx context.Context, p *Progress) context.Context {
	return context.WithValue(ctx, progressKey{}, p)
}

// ProgressOf is the Progress ctx carries, or nil.
func ProgressOf(ctx context.Context) *Progress {
	p, _ := ctx.Value(progressKey{}).(*Progress)
	return p
}

// Plan counts files about to be read and their total size.
func (p *Progress) Plan(files int, bytes int64) {
	if p != nil {
		p.filesPlanned.Add(int64(files))
		p.bytesPlanned.Add(bytes)
	}
}

// FileDone counts a planned file read to its end.
func (p *Progress) FileDone() {
	if p != nil {
		p.filesDone.Add(1)
	}
}

// AddRows counts rows read.
func (p *Progress) AddRows(n int64) {
	if p != nil {
		p.rows.Add(n)
	}
}

// AddRead counts bytes read from data files.
func (p *Progress) AddRead(n int64) {
	if p != nil {
		p.bytesRead.Add(n)
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
func (p *Progress) Counts() ProgressCounts {
	if p == nil {
		return ProgressCounts{}
	}
	return ProgressCounts{
		FilesPlanned: p.filesPlanned.Load(), FilesDone: p.filesDone.Load(),
		BytesPlanned: p.bytesPlanned.Load(), Rows: p.rows.Load(),
		BytesRead: p.bytesRead.Load(), BytesWritten: p.bytesWritten.Load(),
	}
}

// progressTable is tbl reading its data files through an IO that counts
// the bytes read from the files expect names, and each one closed, in p.
func progressTable(tbl *table.Table, p *Progress, expect *fileSet) *table.Table {
	fsF := func(ctx context.Context) (iceio.IO, error) {
		fs, err := tbl.FS(ctx)
		if err != nil {
			return nil, err
		}
		return &progressIO{IO: fs, p: p, expect: expect}, nil
	}
	return table.New(tbl.Identifier(), tbl.Metadata(), tbl.MetadataLocation(), fsF, nil)
}

// fileSet is the data files a scan planned; filled after planning, read
// while the scan opens files.
type fileSet struct {
	mu    sync.Mutex
	paths map[string]bool
}

func (s *fileSet) add(tasks []table.FileScanTask) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.paths == nil {
		s.paths = map[string]bool{}
	}
	for _, t := range tasks {
		s.paths[t.File.FilePath()] = true
	}
}

func (s *fileSet) has(path string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.paths[path]
}

type progressIO struct {
	iceio.IO
	p      *Progress
	expect *fileSet
}

func (f *progressIO) Open(name string) (iceio.File, error) {
	file, err := f.IO.Open(name)
	if err != nil || !f.expect.has(name) {
		return file, err
	}
	return &progressFile{File: file, p: f.p}, nil
}

// progressFile counts what is read of one data file.
type progressFile struct {
	iceio.File
	p    *Progress
	done atomic.Bool
}

func (f *progressFile) Read(b []byte) (int, error) {
	n, err := f.File.Read(b)
	f.p.AddRead(int64(n))
	return n, err
}

func (f *progressFile) ReadAt(b []byte, off int64) (int, error) {
	n, err := f.File.ReadAt(b, off)
	f.p.AddRead(int64(n))
	return n, err
}

func (f *progressFile) Close() error {
	if !f.done.Swap(true) {
		f.p.FileDone()
	}
	return f.File.Close()
}

// planned counts tasks in p and expects their files.
func planned(p *Progress, expect *fileSet, tasks []table.FileScanTask) {
	var bytes int64
	for _, t := range tasks {
		bytes += t.File.FileSizeBytes()
	}
	p.Plan(len(tasks), bytes)
	expect.add(tasks)
}
