package engine

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/plan"
	"github.com/magmalake/magmalake/stmt"
)

// An ORDER BY over more rows than work_mem holds sorts what fits, writes it
// to a temporary file as a sorted run (Arrow IPC), and goes on; at the end
// the runs are merged while the result streams out, as PostgreSQL's
// external sort does. The runs live in one directory per statement under
// the temp directory, removed when the result is closed (or the statement
// fails).

// mergeFanIn bounds the runs merged at once (open files, one batch of each
// in memory); more runs are merged in passes first.
const mergeFanIn = 64

// spillSort collects a statement's rows for ORDER BY, spilling sorted runs
// past work_mem.
type spillSort struct {
	keys      []plan.OrderKey
	batchSize int
	mem       *memBudget
	tempRoot  string // where the statement's directory goes; "": os.TempDir()
	dir       string // the statement's run directory, made at the first spill
	schema    *arrow.Schema
	held      []arrow.RecordBatch
	heldBytes int64
	runs      []string // run files in input order (ties keep it)
	// minRun is what is held before a spill even when work_mem is taken
	// by other operators (0: spill whenever it is): an operator that
	// shares work_mem would otherwise write a run per batch.
	minRun int64
}

// add takes a batch; past work_mem the held rows go to a run first.
func (s *spillSort) add(ctx context.Context, b arrow.RecordBatch) error {
	if s.schema == nil {
		s.schema = b.Schema()
	}
	size := BatchBytes(b)
	if !s.mem.fits(size) && len(s.held) > 0 && s.heldBytes >= s.minRun {
		if err := s.spill(ctx); err != nil {
			b.Release()
			return err
		}
	}
	s.held = append(s.held, b)
	s.heldBytes += size
	s.mem.hold(size)
	if !s.mem.fits(0) && s.heldBytes >= s.minRun {
		// Not even this batch fits beside what other operators hold: it
		// is a run of its own.
		return s.spill(ctx)
	}
	return nil
}

// spill sorts the held rows into a new run file and lets go of them.
func (s *spillSort) spill(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return pgerr.Canceled(err)
	}
	if s.dir == "" {
		dir, err := os.MkdirTemp(s.tempRoot, "magmalake-sort-")
		if err != nil {
			return spillError(err)
		}
		s.dir = dir
	}
	held, bytes := s.held, s.heldBytes
	s.held, s.heldBytes = nil, 0
	defer func() {
		ReleaseAll(held)
		s.mem.release(bytes)
	}()
	refs, err := sortRows(ctx, s.keyColumns(held), s.specs())
	if err != nil {
		return err
	}
	path := fmt.Sprintf("%s/run-%d.arrows", s.dir, len(s.runs))
	err = writeRun(path, s.schema, func(emit func(arrow.RecordBatch) error) error {
		for start := 0; start < len(refs); start += s.batchSize {
			if err := canceled(ctx); err != nil {
				return err
			}
			chunk, err := gatherChunk(memory.DefaultAllocator, s.schema, held, refs[start:min(start+s.batchSize, len(refs))])
			if err != nil {
				return err
			}
			err = emit(chunk)
			chunk.Release()
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	s.mem.spilledFiles(path)
	s.runs = append(s.runs, path)
	return nil
}

func (s *spillSort) specs() []plan.SortSpec {
	out := make([]plan.SortSpec, len(s.keys))
	for i, k := range s.keys {
		out[i] = k.Spec
	}
	return out
}

func (s *spillSort) keyColumns(batches []arrow.RecordBatch) [][]arrow.Array {
	cols := make([][]arrow.Array, len(batches))
	for b, rb := range batches {
		for _, k := range s.keys {
			cols[b] = append(cols[b], rb.Column(k.Col))
		}
	}
	return cols
}

// spilled reports whether any run went to disk.
func (s *spillSort) spilled() bool { return len(s.runs) > 0 }

// sorted is the in-memory result when nothing spilled.
func (s *spillSort) sorted(ctx context.Context) ([]arrow.RecordBatch, error) {
	held := s.held
	s.held = nil
	return sortBatches(ctx, held, s.keys, s.batchSize)
}

// merged spills what is still held and returns the merge of every run,
// after as many intermediate passes as the fan-in needs.
func (s *spillSort) merged(ctx context.Context) (*runMerge, error) {
	if len(s.held) > 0 {
		if err := s.spill(ctx); err != nil {
			return nil, err
		}
	}
	runs := s.runs
	for pass := 0; len(runs) > mergeFanIn; pass++ {
		var next []string
		for i := 0; i < len(runs); i += mergeFanIn {
			group := runs[i:min(i+mergeFanIn, len(runs))]
			if len(group) == 1 {
				next = append(next, group[0])
				continue
			}
			path := fmt.Sprintf("%s/pass-%d-%d.arrows", s.dir, pass, i/mergeFanIn)
			if err := s.mergeInto(ctx, group, path); err != nil {
				return nil, err
			}
			next = append(next, path)
		}
		runs = next
	}
	return openMerge(runs, s.schema, s.keys, s.specs(), s.batchSize)
}

// mergeInto merges runs into one new run file and removes them.
func (s *spillSort) mergeInto(ctx context.Context, runs []string, path string) error {
	m, err := openMerge(runs, s.schema, s.keys, s.specs(), s.batchSize)
	if err != nil {
		return err
	}
	defer m.close()
	err = writeRun(path, s.schema, func(emit func(arrow.RecordBatch) error) error {
		for {
			b, err := m.next(ctx)
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return err
			}
			err = emit(b)
			b.Release()
			if err != nil {
				return err
			}
		}
	})
	if err != nil {
		return err
	}
	for _, r := range runs {
		os.Remove(r) // the directory goes at the end anyway
	}
	return nil
}

// release drops held rows and removes the run directory.
func (s *spillSort) release() {
	ReleaseAll(s.held)
	s.mem.release(s.heldBytes)
	s.held, s.heldBytes = nil, 0
	if s.dir != "" {
		os.RemoveAll(s.dir)
	}
}

// writeRun writes the batches fill emits to a new file at path.
func writeRun(path string, schema *arrow.Schema, fill func(emit func(arrow.RecordBatch) error) error) error {
	f, err := os.Create(path)
	if err != nil {
		return spillError(err)
	}
	w := ipc.NewWriter(f, ipc.WithSchema(schema))
	err = fill(func(b arrow.RecordBatch) error {
		if err := w.Write(b); err != nil {
			return spillError(err)
		}
		return nil
	})
	if cerr := w.Close(); err == nil && cerr != nil {
		err = spillError(cerr)
	}
	if cerr := f.Close(); err == nil && cerr != nil {
		err = spillError(cerr)
	}
	return err
}

// spillError is a failed temporary-file operation, as PostgreSQL words it
// (disk full is 53100).
func spillError(err error) error {
	code := pgerr.IOError
	if errors.Is(err, syscall.ENOSPC) {
		code = pgerr.DiskFull
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return &pgerr.Error{Code: code, Message: fmt.Sprintf("could not %s temporary file \"%s\": %v", pe.Op, pe.Path, pe.Err)}
	}
	return &pgerr.Error{Code: code, Message: "could not use a temporary file of ORDER BY: " + err.Error()}
}

// runCursor is one run being merged: its reader and current batch.
type runCursor struct {
	f    *os.File
	rd   *ipc.Reader
	b    arrow.RecordBatch
	keys []arrow.Array
	row  int
	ord  int // the run's place in input order, for stable ties
	src  int // b's index among the batches of the output being built; -1: none
}

// runMerge merges sorted runs into batches of the whole order.
type runMerge struct {
	schema    *arrow.Schema
	keys      []plan.OrderKey
	specs     []plan.SortSpec
	batchSize int
	live      cursorHeap
	all       []*runCursor
}

func openMerge(paths []string, schema *arrow.Schema, keys []plan.OrderKey, specs []plan.SortSpec, batchSize int) (*runMerge, error) {
	m := &runMerge{schema: schema, keys: keys, specs: specs, batchSize: batchSize}
	m.live.specs = specs
	for i, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			m.close()
			return nil, spillError(err)
		}
		c := &runCursor{f: f, ord: i, src: -1}
		m.all = append(m.all, c)
		rd, err := ipc.NewReader(f)
		if err != nil {
			m.close()
			return nil, spillError(err)
		}
		c.rd = rd
		ok, err := m.load(c)
		if err != nil {
			m.close()
			return nil, err
		}
		if ok {
			m.live.cs = append(m.live.cs, c)
		}
	}
	heap.Init(&m.live)
	return m, nil
}

// load moves c to its run's next non-empty batch; false at the run's end.
func (m *runMerge) load(c *runCursor) (bool, error) {
	if c.b != nil {
		c.b.Release()
		c.b, c.keys = nil, nil
	}
	for c.rd.Next() {
		b := restoreTypes(m.schema, c.rd.RecordBatch())
		if b.NumRows() == 0 {
			b.Release()
			continue
		}
		c.b, c.row, c.src = b, 0, -1
		for _, k := range m.keys {
			c.keys = append(c.keys, b.Column(k.Col))
		}
		return true, nil
	}
	if err := c.rd.Err(); err != nil {
		return false, spillError(err)
	}
	return false, nil
}

// next is the next batch of merged rows, io.EOF after the last.
func (m *runMerge) next(ctx context.Context) (arrow.RecordBatch, error) {
	if m.live.Len() == 0 {
		return nil, io.EOF
	}
	if err := ctx.Err(); err != nil {
		return nil, pgerr.Canceled(err)
	}
	var srcs []arrow.RecordBatch // retained here until the gather
	defer func() { ReleaseAll(srcs) }()
	refs := make([]rowRef, 0, m.batchSize)
	for len(refs) < m.batchSize && m.live.Len() > 0 {
		c := m.live.cs[0]
		if c.src < 0 {
			c.src = len(srcs)
			c.b.Retain()
			srcs = append(srcs, c.b)
		}
		refs = append(refs, rowRef{batch: int32(c.src), row: int32(c.row)})
		if c.row++; c.row < int(c.b.NumRows()) {
			heap.Fix(&m.live, 0)
			continue
		}
		ok, err := m.load(c)
		if err != nil {
			return nil, err
		}
		if ok {
			heap.Fix(&m.live, 0)
		} else {
			heap.Pop(&m.live)
		}
	}
	for _, c := range m.live.cs {
		c.src = -1
	}
	return gatherChunk(memory.DefaultAllocator, m.schema, srcs, refs)
}

func (m *runMerge) close() {
	for _, c := range m.all {
		if c.b != nil {
			c.b.Release()
			c.b = nil
		}
		if c.rd != nil {
			c.rd.Release()
		}
		c.f.Close()
	}
	m.all, m.live.cs = nil, nil
}

// cursorHeap orders the live cursors by their current row, then run order.
type cursorHeap struct {
	cs    []*runCursor
	specs []plan.SortSpec
}

func (h *cursorHeap) Len() int { return len(h.cs) }
func (h *cursorHeap) Less(i, j int) bool {
	a, b := h.cs[i], h.cs[j]
	if c := compareKeyRows(a.keys, a.row, b.keys, b.row, h.specs); c != 0 {
		return c < 0
	}
	return a.ord < b.ord
}
func (h *cursorHeap) Swap(i, j int) { h.cs[i], h.cs[j] = h.cs[j], h.cs[i] }
func (h *cursorHeap) Push(x any)    { h.cs = append(h.cs, x.(*runCursor)) }
func (h *cursorHeap) Pop() any {
	c := h.cs[len(h.cs)-1]
	h.cs = h.cs[:len(h.cs)-1]
	return c
}

// restoreTypes gives a batch read back from a run the schema it was written
// with: extension types (unconstrained numeric) are not registered with
// Arrow's IPC, so they come back as their storage. The result owns its
// columns; b's reader keeps b.
func restoreTypes(schema *arrow.Schema, b arrow.RecordBatch) arrow.RecordBatch {
	cols := make([]arrow.Array, b.NumCols())
	for i, c := range b.Columns() {
		if ext, ok := schema.Field(i).Type.(arrow.ExtensionType); ok && !arrow.TypeEqual(c.DataType(), ext) {
			cols[i] = array.NewExtensionArrayWithStorage(ext, c)
			continue
		}
		c.Retain()
		cols[i] = c
	}
	out := array.NewRecordBatch(schema, cols, b.NumRows())
	for _, c := range cols {
		c.Release()
	}
	return out
}

// runSorted reads the whole input for ORDER BY (no LIMIT: that is a top-N)
// and returns it sorted: from memory when it fitted in work_mem, else
// streamed from the merge of its spilled runs.
func (q *selectQuery) runSorted(ctx context.Context, env *Env, in *pipeline, lim *limiter) (stmt.Rows, error) {
	done := in.enter(stageSort)
	s := &spillSort{keys: q.Order, batchSize: env.batchSize(), mem: in.mem, tempRoot: env.Options.TempDir}
	var n int64
	for {
		b, err := in.nextProjected(ctx)
		if err == io.EOF {
			break
		}
		if err == nil {
			n += b.NumRows()
			err = s.add(ctx, b)
		}
		if err != nil {
			s.release()
			return nil, err
		}
	}
	if !s.spilled() {
		rows, err := s.sorted(ctx)
		if err != nil {
			return nil, err
		}
		done(n)
		var kept []arrow.RecordBatch
		for _, b := range rows {
			if lim.done() {
				b.Release()
				continue
			}
			kept = append(kept, visibleColumns(lim.apply(b), q.Visible))
		}
		return NewBatchRows("SELECT", kept), nil
	}
	m, err := s.merged(ctx)
	if err != nil {
		s.release()
		return nil, err
	}
	done(n)
	stmtCtx := ctx
	return &streamRows{verb: "SELECT", stop: func() { m.close(); s.release() }, next: func(ctx context.Context) (arrow.RecordBatch, error) {
		if lim.done() {
			return nil, io.EOF
		}
		b, err := m.next(statementContext(stmtCtx, ctx))
		if err != nil {
			return nil, err
		}
		return visibleColumns(lim.apply(b), q.Visible), nil
	}}, nil
}
