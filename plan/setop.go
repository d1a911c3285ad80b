package plan

import "github.com/magmalake/magmalake/sql"

// SetOp is UNION / INTERSECT / EXCEPT [ALL] over query levels.
type SetOp struct {
	Root *SetTree
	Sc   *sql.Scope
}

// SetTree is a set operation's tree: a leaf query, or Op over two trees.
type SetTree struct {
	Leaf        *Query
	Op          sql.SetOp
	Left, Right *SetTree
}

func (s *SetOp) Scope() *sql.Scope { return s.Sc }

func (s *SetOp) Project(cols []int) Node { return NewPick(s, cols) }

// Recursive is one reference to a recursive WITH query: Start's rows
// begin the working table, and Step, which reads the working table through
// a WorkRef, runs until a round adds no row.
type Recursive struct {
	Start, Step *Query
	Distinct    bool // UNION rather than UNION ALL
	Work        *WorkTable
	Sc          *sql.Scope
}

func (r *Recursive) Scope() *sql.Scope { return r.Sc }

func (r *Recursive) Project(cols []int) Node { return NewPick(r, cols) }

// WorkTable stands for the rows of a recursive query's last round: the
// Recursive node and the WorkRefs of its step share one.
type WorkTable struct {
	Sc *sql.Scope
}

// WorkRef is the recursive term's reference to its WITH query.
type WorkRef struct {
	Work *WorkTable
	Sc   *sql.Scope
}

func (w *WorkRef) Scope() *sql.Scope { return w.Sc }

func (w *WorkRef) Project(cols []int) Node { return NewPick(w, cols) }
