package lake

import (
	"maps"
	"slices"
	"sort"
)

// RowMoves says where a rewrite (OPTIMIZE, background maintenance) put
// the live rows of the data files it replaces, so that rows other writers
// delete from those files while it runs can be deleted from the new files
// instead of making the rewrite start over: under steady writes a rewrite
// planned again would lose again, and the table would never be compacted.
// A rewrite streams each group's files, in order, into output files cut in
// sequence; a file's live rows keep their order. Read-only once built.
type RowMoves struct {
	files map[string]movedFile
}

// movedFile is one replaced data file: its rows not moved (deleted when
// the rewrite was planned), ascending, and where the moved ones went.
type movedFile struct {
	dropped []uint64
	start   int64 // index of its first moved row in its group's stream
	live    int64 // rows moved
	group   *movedGroup
}

// movedGroup is the output of one group: its files in order, each with
// the stream index of its first row.
type movedGroup struct {
	paths  []string
	starts []int64
	rows   int64
}

// NewRowMoves returns an empty set of moves.
func NewRowMoves() *RowMoves { return &RowMoves{files: map[string]movedFile{}} }

// MoveGroup is one group of a rewrite: its input files in the order their
// live rows were written, and its output files in order with their row
// counts.
type MoveGroup struct {
	Inputs  []MovedInput
	Outputs []MovedOutput
}

// MovedInput is a replaced file and its positions that were not moved,
// ascending.
type MovedInput struct {
	Path    string
	Dropped []uint64
	Count   int64 // rows of the file, moved or not
}

// MovedOutput is a written file and its row count.
type MovedOutput struct {
	Path string
	Rows int64
}

// Add records one group. It reports false when the inputs' live rows do
// not add up to the outputs' rows, and records nothing then.
func (m *RowMoves) Add(g MoveGroup) bool {
	out := &movedGroup{}
	var n int64
	for _, o := range g.Outputs {
		out.paths = append(out.paths, o.Path)
		out.starts = append(out.starts, n)
		n += o.Rows
	}
	out.rows = n
	var live int64
	for _, in := range g.Inputs {
		live += in.Count - int64(len(in.Dropped))
	}
	if live != n {
		return false
	}
	var start int64
	for _, in := range g.Inputs {
		live := in.Count - int64(len(in.Dropped))
		m.files[in.Path] = movedFile{dropped: in.Dropped, start: start, live: live, group: out}
		start += live
	}
	return true
}

// Moved reports whether the rows of data file path were moved.
func (m *RowMoves) Moved(path string) bool {
	if m == nil {
		return false
	}
	_, ok := m.files[path]
	return ok
}

// Files is the data files whose rows were moved, sorted.
func (m *RowMoves) Files() []string { return slices.Sorted(maps.Keys(m.files)) }

// Dropped is the positions of path the rewrite did not move, ascending.
func (m *RowMoves) Dropped(path string) []uint64 { return m.files[path].dropped }

// Target is where row pos of data file path went: the output file and the
// row's position in it. ok is false for a row that was not moved (or a
// file the rewrite did not replace).
func (m *RowMoves) Target(path string, pos uint64) (out string, outPos int64, ok bool) {
	f, found := m.files[path]
	if !found {
		return "", 0, false
	}
	below := sort.Search(len(f.dropped), func(i int) bool { return f.dropped[i] >= pos })
	if below < len(f.dropped) && f.dropped[below] == pos {
		return "", 0, false
	}
	return f.group.locate(f.start + int64(pos) - int64(below))
}

// Targets calls yield for every moved row of data file path, with the
// output file and the row's position there, in order.
func (m *RowMoves) Targets(path string, yield func(out string, outPos int64)) {
	f, found := m.files[path]
	if !found {
		return
	}
	for i := int64(0); i < f.live; i++ {
		if out, pos, ok := f.group.locate(f.start + i); ok {
			yield(out, pos)
		}
	}
}

// locate finds stream index idx among the group's output files.
func (g *movedGroup) locate(idx int64) (string, int64, bool) {
	i := sort.Search(len(g.starts), func(i int) bool { return g.starts[i] > idx }) - 1
	if i < 0 || idx >= g.rows {
		return "", 0, false
	}
	return g.paths[i], idx - g.starts[i], true
}
