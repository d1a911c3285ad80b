package engine

import (
	"os"
	"sort"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
)

// windowSpool holds one window partition while a pass over sorted rows
// reads to its end, for the calls that need the whole partition (its size,
// rows after the current one): in memory up to work_mem, then in a
// temporary Arrow IPC file, as PostgreSQL's WindowAgg keeps its partition
// in a tuplestore. The rows are then read back in order (the replay) and
// looked up by row (lead, last_value, ...), a batch at a time.
type windowSpool struct {
	mem      *memBudget // the partition's own work_mem
	tempRoot string     // "": os.TempDir()
	schema   *arrow.Schema
	held     []arrow.RecordBatch // in memory, until the spill
	bytes    int64               // what held is charged
	starts   []int64             // each batch's first row
	n        int64
	file     *os.File // the spill, once there is one
	w        *ipc.FileWriter
	r        *ipc.FileReader
	cache    [spoolCached]cachedBatch // batches read back lately
	tick     int
}

// spoolCached is how many batches read back from the file are kept: the
// replay's, and those lookups land in (the partition's first and last,
// lead's rows ahead).
const spoolCached = 4

type cachedBatch struct {
	i, used int
	b       arrow.RecordBatch
}

func newWindowSpool(mem *memBudget, tempRoot string) *windowSpool {
	s := &windowSpool{mem: mem, tempRoot: tempRoot}
	for i := range s.cache {
		s.cache[i].i = -1
	}
	return s
}

// add appends b's rows (the spool takes b over); past work_mem the rows
// held so far and all that follow go to the file.
func (s *windowSpool) add(b arrow.RecordBatch) error {
	if s.schema == nil {
		s.schema = b.Schema()
	}
	s.starts = append(s.starts, s.n)
	s.n += b.NumRows()
	size := BatchBytes(b)
	if s.w == nil && s.mem.fits(size) {
		s.held = append(s.held, b)
		s.bytes += size
		s.mem.hold(size)
		return nil
	}
	defer b.Release()
	if s.w == nil {
		if err := s.spill(); err != nil {
			return err
		}
	}
	return s.write(b)
}

// spill moves the held rows to a new file.
func (s *windowSpool) spill() error {
	f, err := os.CreateTemp(s.tempRoot, "magmalake-window-")
	if err != nil {
		return spillError(err)
	}
	s.file = f
	if s.w, err = ipc.NewFileWriter(f, ipc.WithSchema(s.schema)); err != nil {
		return spillError(err)
	}
	held := s.held
	s.held = nil
	defer func() {
		ReleaseAll(held)
		s.mem.release(s.bytes)
		s.bytes = 0
	}()
	for _, b := range held {
		if err := s.write(b); err != nil {
			return err
		}
	}
	return nil
}

func (s *windowSpool) write(b arrow.RecordBatch) error {
	if !b.Schema().Equal(s.schema) {
		// Batches may name or type a column alike but not equally; the
		// file has one schema.
		b = array.NewRecordBatch(s.schema, b.Columns(), b.NumRows())
		defer b.Release()
	}
	if err := s.w.Write(b); err != nil {
		return spillError(err)
	}
	return nil
}

// finish ends the writing: the rows can be read back.
func (s *windowSpool) finish() error {
	if s.w == nil {
		return nil
	}
	if err := s.w.Close(); err != nil {
		return spillError(err)
	}
	s.mem.spilledFiles(s.file.Name())
	r, err := ipc.NewFileReader(s.file)
	if err != nil {
		return spillError(err)
	}
	s.r = r
	return nil
}

// batches is how many batches the partition has.
func (s *windowSpool) batches() int { return len(s.starts) }

// batch is batch i, held by the spool (the caller retains what it keeps
// past the next call).
func (s *windowSpool) batch(i int) (arrow.RecordBatch, error) {
	if s.r == nil {
		return s.held[i], nil
	}
	s.tick++
	old := 0
	for c := range s.cache {
		if s.cache[c].i == i {
			s.cache[c].used = s.tick
			return s.cache[c].b, nil
		}
		if s.cache[c].used < s.cache[old].used {
			old = c
		}
	}
	read, err := s.r.RecordBatchAt(i)
	if err != nil {
		return nil, spillError(err)
	}
	b := restoreTypes(s.schema, read)
	read.Release()
	if s.cache[old].b != nil {
		s.cache[old].b.Release()
	}
	s.cache[old] = cachedBatch{i: i, used: s.tick, b: b}
	return b, nil
}

// at is the batch holding the partition's row and the row's place in it.
func (s *windowSpool) at(row int64) (arrow.RecordBatch, int, error) {
	i := sort.Search(len(s.starts), func(i int) bool { return s.starts[i] > row }) - 1
	b, err := s.batch(i)
	if err != nil {
		return nil, 0, err
	}
	return b, int(row - s.starts[i]), nil
}

// close lets go of the rows, in memory and on disk.
func (s *windowSpool) close() {
	ReleaseAll(s.held)
	s.mem.release(s.bytes)
	s.held, s.bytes = nil, 0
	for c := range s.cache {
		if s.cache[c].b != nil {
			s.cache[c].b.Release()
		}
		s.cache[c] = cachedBatch{i: -1}
	}
	if s.file != nil {
		s.file.Close()
		os.Remove(s.file.Name())
		s.file, s.w, s.r = nil, nil, nil
	}
}
