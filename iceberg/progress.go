package iceberg

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	iceio "github.com/apache/iceberg-go/io"
	"github.com/apache/iceberg-go/table"
)

// Progress counts a running statement's work so far. The layers that plan,
// read and write files add to the one their context carries (WithProgress);
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

// ProgressCounts is one reading of a Progress.
type ProgressCounts struct {
	FilesPlanned, FilesDone int64
	BytesPlanned            int64 // the sizes of the planned reads
	Rows                    int64 // rows read from data files
	BytesRead               int64 // read of the planned files
	BytesSkipped            int64 // of planned reads that ended, what they did not need
	BytesWritten            int64
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
func (p *Progress) Counts() ProgressCounts {
	if p == nil {
		return ProgressCounts{}
	}
	return ProgressCounts{
		FilesPlanned: p.filesPlanned.Load(), FilesDone: p.filesDone.Load(),
		BytesPlanned: p.bytesPlanned.Load(), Rows: p.rows.Load(),
		BytesRead: p.bytesRead.Load(), BytesSkipped: p.bytesSkipped.Load(),
		BytesWritten: p.bytesWritten.Load(),
	}
}

// progressTable is tbl reading its files through an IO that counts what
// is read of the files expect plans.
func progressTable(tbl *table.Table, expect *fileSet) *table.Table {
	fsF := func(ctx context.Context) (iceio.IO, error) {
		fs, err := tbl.FS(ctx)
		if err != nil {
			return nil, err
		}
		return &progressIO{IO: fs, expect: expect}, nil
	}
	return table.New(tbl.Identifier(), tbl.Metadata(), tbl.MetadataLocation(), fsF, nil)
}

// fileSet is the reads a scan planned, by path; filled after planning,
// read while the scan opens files.
type fileSet struct {
	mu    sync.Mutex
	reads map[string]plannedRead
}

// plannedRead is a planned file: a data file's read ends when it is
// closed; a delete file's (read once, perhaps in several ranges, for many
// data files) when the scan ends.
type plannedRead struct {
	fr   *FileRead
	data bool
}

// plan counts the reads of tasks in p: each data file, and each delete
// file once (a deletion vector is one blob of its Puffin file).
func (s *fileSet) plan(p *Progress, tasks []table.FileScanTask) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.reads == nil {
		s.reads = map[string]plannedRead{}
	}
	for _, t := range tasks {
		s.reads[t.File.FilePath()] = plannedRead{fr: p.PlanRead(t.File.FileSizeBytes()), data: true}
	}
	deletes := map[string]int64{}
	blobs := map[string]bool{}
	for _, t := range tasks {
		for _, d := range slices.Concat(t.DeleteFiles, t.EqualityDeleteFiles) {
			deletes[d.FilePath()] = d.FileSizeBytes()
		}
		for _, d := range t.DeletionVectorFiles {
			blob := fmt.Sprintf("%s@%d", d.FilePath(), ptrValue(d.ContentOffset()))
			if !blobs[blob] {
				blobs[blob] = true
				deletes[d.FilePath()] += ptrValue(d.ContentSizeInBytes())
			}
		}
	}
	for path, size := range deletes {
		if _, isData := s.reads[path]; !isData {
			s.reads[path] = plannedRead{fr: p.PlanRead(size)}
		}
	}
}

func ptrValue(p *int64) int64 {
	if p == nil {
		return 0
	}
	return *p
}

// read is path's planned read, if any.
func (s *fileSet) read(path string) (plannedRead, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.reads[path]
	return r, ok
}

// end ends every planned read, when the scan ends.
func (s *fileSet) end() {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range s.reads {
		r.fr.Done()
	}
}

type progressIO struct {
	iceio.IO
	expect *fileSet
}

func (f *progressIO) Open(name string) (iceio.File, error) {
	file, err := f.IO.Open(name)
	return f.counted(name, file, err)
}

// openSized opens as the IO beneath does when it knows sizes (object
// storage: no request to ask), else as Open.
func (f *progressIO) openSized(name string, size int64) (iceio.File, error) {
	file, err := OpenSized(f.IO, name, size)
	return f.counted(name, file, err)
}

// counted wraps file, when its read is planned, to count what is read.
func (f *progressIO) counted(name string, file iceio.File, err error) (iceio.File, error) {
	if err != nil {
		return file, err
	}
	r, ok := f.expect.read(name)
	if !ok {
		return file, nil
	}
	return &progressFile{File: file, r: r}, nil
}

// progressFile counts what is read of one planned file.
type progressFile struct {
	iceio.File
	r plannedRead
}

func (f *progressFile) Read(b []byte) (int, error) {
	n, err := f.File.Read(b)
	f.r.fr.Add(int64(n))
	return n, err
}

func (f *progressFile) ReadAt(b []byte, off int64) (int, error) {
	n, err := f.File.ReadAt(b, off)
	f.r.fr.Add(int64(n))
	return n, err
}

// Prefetch passes on to the file: what it prefetches counts when read.
func (f *progressFile) Prefetch(ranges []ByteRange) { Prefetch(f.File, ranges) }

func (f *progressFile) Close() error {
	if f.r.data {
		f.r.fr.Done()
	}
	return f.File.Close()
}
