package lake

import (
	"context"
	"fmt"
	"github.com/magmalake/magmalake/internal/progress"
	"slices"
	"sync"

	iceio "github.com/apache/iceberg-go/io"
	"github.com/apache/iceberg-go/table"
)

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
	fr   *progress.FileRead
	data bool
}

// plan counts the reads of tasks in p: each data file, and each delete
// file once (a deletion vector is one blob of its Puffin file).
func (s *fileSet) plan(p *progress.Progress, tasks []table.FileScanTask) {
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
