package engine

import (
	"context"
	"hash/maphash"
	"io"
	"os"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"

	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql"
)

// DISTINCT, UNION, INTERSECT and EXCEPT keep a table of the row values
// they have seen (and, for INTERSECT and EXCEPT, how often the right side
// holds each). Past work_mem the table stops taking new values, as GROUP
// BY's does (aggregate_spill.go): rows whose value it holds go on being
// decided in memory; the others are written, by a hash of their value, to
// one of spillPartitions temporary files per side. Once the input is
// done, each partition is decided on its own the same way, with a hash of
// another seed should it overflow again (up to maxSpillDepth levels; past
// that the statement fails with 53200). A value's rows all land in one
// partition, so every value is decided exactly once. Rows the table holds
// stream out as they come; a partition's follow at the end.

// pullFunc is a stream of batches, io.EOF after the last.
type pullFunc func(ctx context.Context) (arrow.RecordBatch, error)

// hashSetOp is one level of a spilling DISTINCT or set operation. op is
// the set operation; DISTINCT (and UNION, over both sides' rows one after
// the other) is SetExcept with no right side.
type hashSetOp struct {
	op      sql.SetOp
	what    string // the operator, for work_mem's error
	keyCols []int  // the columns that make a row's value; nil: all
	mem     *memBudget
	tempDir string // "": os.TempDir()
	depth   int

	left, right pullFunc // right: nil for DISTINCT
	seed        maphash.Seed
	counts      map[string]int
	charged     int64 // what counts holds in work_mem
	frozen      bool  // counts takes no new values: they spill
	leftSpill   *partitionFiles
	rightSpill  *partitionFiles
	counted     bool       // the right side is counted
	part        int        // the partition being decided, once left is done
	child       *hashSetOp // its operator
	closeChild  func()     // closes the child's partition files
	check       cancelCheck
	buf         []byte
}

func newHashSetOp(op sql.SetOp, what string, mem *memBudget, tempDir string, left, right pullFunc) *hashSetOp {
	return &hashSetOp{op: op, what: what, mem: mem, tempDir: tempDir, left: left, right: right,
		seed: maphash.MakeSeed(), counts: map[string]int{}, part: -1}
}

// hashDistinct is DISTINCT over keyCols (nil: every column) of src.
func hashDistinct(what string, keyCols []int, mem *memBudget, tempDir string, src pullFunc) *hashSetOp {
	d := newHashSetOp(sql.SetExcept, what, mem, tempDir, src, nil)
	d.keyCols = keyCols
	return d
}

// next is the next batch of rows the operation keeps, io.EOF after the
// last.
func (h *hashSetOp) next(ctx context.Context) (arrow.RecordBatch, error) {
	if !h.counted && h.right != nil {
		if err := h.countRight(ctx); err != nil {
			return nil, err
		}
	}
	h.counted = true
	for h.part < 0 {
		b, err := h.left(ctx)
		if err == io.EOF {
			if err := h.startPartitions(); err != nil {
				return nil, err
			}
			break
		}
		if err != nil {
			return nil, err
		}
		out, err := h.decide(ctx, b)
		if err != nil || out != nil {
			return out, err
		}
	}
	return h.nextSpilled(ctx)
}

// key is the value of row r of b.
func (h *hashSetOp) key(b arrow.RecordBatch, r int) []byte {
	if h.keyCols == nil {
		h.buf = rowKey(b, r, h.buf)
		return h.buf
	}
	h.buf = h.buf[:0]
	for _, c := range h.keyCols {
		h.buf = appendKey(h.buf, b.Column(c), r)
	}
	return h.buf
}

// partition is the spill partition of the value k.
func (h *hashSetOp) partition(k []byte) int {
	return int(maphash.Bytes(h.seed, k) % spillPartitions)
}

// admit makes room for the new value k in the table: false when the
// table is, or now becomes, frozen (its rows spill). At the last level a
// value that does not fit fails with 53200.
func (h *hashSetOp) admit(k []byte) (bool, error) {
	if h.frozen {
		return false, nil
	}
	size := int64(len(k)) + 48
	if h.depth >= maxSpillDepth || h.mem.fits(size) {
		if err := h.mem.charge(size, h.what); err != nil {
			return false, err
		}
		h.charged += size
		return true, nil
	}
	h.frozen = true
	return false, nil
}

// countRight tallies the right side's rows (INTERSECT, EXCEPT).
func (h *hashSetOp) countRight(ctx context.Context) error {
	h.check.ctx = ctx
	for {
		b, err := h.right(ctx)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		var spill [spillPartitions][]int32
		for r := 0; r < int(b.NumRows()); r++ {
			if err := h.check.step(1); err != nil {
				b.Release()
				return err
			}
			k := h.key(b, r)
			if _, ok := h.counts[string(k)]; ok {
				h.counts[string(k)]++
				continue
			}
			ok, err := h.admit(k)
			if err != nil {
				b.Release()
				return err
			}
			if ok {
				h.counts[string(k)] = 1
				continue
			}
			p := h.partition(k)
			spill[p] = append(spill[p], int32(r))
		}
		err = h.spillRows(&h.rightSpill, b, &spill)
		b.Release()
		if err != nil {
			return err
		}
	}
}

// decide keeps the rows of b the operation passes on (nil: none), spilling
// those of values the table does not hold; it releases b.
func (h *hashSetOp) decide(ctx context.Context, b arrow.RecordBatch) (arrow.RecordBatch, error) {
	defer b.Release()
	h.check.ctx = ctx
	mask := make([]bool, b.NumRows())
	var spill [spillPartitions][]int32
	kept := 0
	for r := range mask {
		if err := h.check.step(1); err != nil {
			return nil, err
		}
		k := h.key(b, r)
		keep, spilled, err := h.decideRow(k)
		if err != nil {
			return nil, err
		}
		if spilled {
			p := h.partition(k)
			spill[p] = append(spill[p], int32(r))
		}
		if keep {
			mask[r] = true
			kept++
		}
	}
	if err := h.spillRows(&h.leftSpill, b, &spill); err != nil {
		return nil, err
	}
	if kept == 0 {
		return nil, nil
	}
	return filterBatch(b, mask)
}

// decideRow decides a left row of value k: whether it is kept, or
// spilled because the table does not hold k.
func (h *hashSetOp) decideRow(k []byte) (keep, spilled bool, err error) {
	n, held := h.counts[string(k)]
	if !held {
		if h.frozen {
			return false, true, nil
		}
		switch h.op {
		case sql.SetExceptAll:
			return true, false, nil
		case sql.SetExcept:
			// Not on the right: kept once, remembered as kept (0).
			ok, err := h.admit(k)
			if err != nil {
				return false, false, err
			}
			if !ok {
				return false, true, nil
			}
			h.counts[string(k)] = 0
			return true, false, nil
		}
		return false, false, nil // INTERSECT: not on the right
	}
	switch h.op {
	case sql.SetIntersectAll:
		if n > 0 {
			h.counts[string(k)] = n - 1
			return true, false, nil
		}
	case sql.SetIntersect:
		if n > 0 {
			h.counts[string(k)] = 0 // kept: not again
			return true, false, nil
		}
	case sql.SetExceptAll:
		if n > 0 {
			h.counts[string(k)] = n - 1
			return false, false, nil
		}
		return true, false, nil
	}
	return false, false, nil // EXCEPT: on the right, or kept already
}

// spillRows writes the rows of b listed by partition to side's files,
// made on first use.
func (h *hashSetOp) spillRows(side **partitionFiles, b arrow.RecordBatch, rows *[spillPartitions][]int32) error {
	for p, rs := range rows {
		if len(rs) == 0 {
			continue
		}
		if *side == nil {
			pf, err := newPartitionFiles(h.tempDir, "magmalake-setop-", b.Schema())
			if err != nil {
				return err
			}
			*side = pf
		}
		if err := (*side).write(p, b, rs); err != nil {
			return err
		}
	}
	return nil
}

// startPartitions lets go of the table, whose rows are all out, and
// readies the partitions for reading.
func (h *hashSetOp) startPartitions() error {
	h.counts = nil
	h.mem.release(h.charged)
	h.charged = 0
	h.part = 0
	for _, s := range []*partitionFiles{h.leftSpill, h.rightSpill} {
		if s == nil {
			continue
		}
		if err := s.finish(); err != nil {
			return err
		}
		h.mem.spilledFiles(s.paths[:]...)
	}
	return nil
}

// nextSpilled is the next batch the partitions keep, each decided by an
// operation a level deeper.
func (h *hashSetOp) nextSpilled(ctx context.Context) (arrow.RecordBatch, error) {
	for h.leftSpill != nil && h.part < spillPartitions {
		if h.child == nil {
			if h.leftSpill.paths[h.part] == "" {
				// No left rows: nothing of this partition is kept.
				h.part++
				continue
			}
			if h.depth+1 > maxSpillDepth {
				return nil, pgerr.Errorf(pgerr.OutOfMemory, "out of memory: %s needs more than work_mem even after spilling its rows %d times", h.what, maxSpillDepth)
			}
			h.mem.spilledBatch()
			left, closeLeft := partitionReader(h.leftSpill, h.part)
			h.child = newHashSetOp(h.op, h.what, h.mem, h.tempDir, left, nil)
			h.child.keyCols, h.child.depth = h.keyCols, h.depth+1
			h.closeChild = closeLeft
			if h.rightSpill != nil {
				right, closeRight := partitionReader(h.rightSpill, h.part)
				h.child.right = right
				h.closeChild = func() { closeLeft(); closeRight() }
			}
		}
		b, err := h.child.next(ctx)
		if err != io.EOF {
			return b, err
		}
		h.endChild()
		h.part++
	}
	return nil, io.EOF
}

// close lets go of the table and removes the spill files.
func (h *hashSetOp) close() {
	h.endChild()
	h.counts = nil
	h.mem.release(h.charged)
	h.charged = 0
	for _, s := range []*partitionFiles{h.leftSpill, h.rightSpill} {
		if s != nil {
			s.remove()
		}
	}
	h.leftSpill, h.rightSpill = nil, nil
}

// endChild closes the partition being decided.
func (h *hashSetOp) endChild() {
	if h.child != nil {
		h.child.close()
		h.closeChild()
		h.child, h.closeChild = nil, nil
	}
}

// partitionReader streams partition i of s (nothing when none was
// written), closing its file at the end or when end is called.
func partitionReader(s *partitionFiles, i int) (next pullFunc, end func()) {
	var f *os.File
	var rd *ipc.Reader
	done := s.paths[i] == ""
	end = func() {
		if rd != nil {
			rd.Release()
		}
		if f != nil {
			f.Close()
		}
		rd, f, done = nil, nil, true
	}
	return func(ctx context.Context) (arrow.RecordBatch, error) {
		if done {
			return nil, io.EOF
		}
		if err := canceled(ctx); err != nil {
			end()
			return nil, err
		}
		if rd == nil {
			var err error
			if f, err = os.Open(s.paths[i]); err != nil {
				end()
				return nil, spillError(err)
			}
			if rd, err = ipc.NewReader(f); err != nil {
				end()
				return nil, spillError(err)
			}
		}
		if rd.Next() {
			return restoreTypes(s.schema, rd.RecordBatch()), nil
		}
		err := rd.Err()
		end()
		if err != nil {
			return nil, spillError(err)
		}
		return nil, io.EOF
	}, end
}
