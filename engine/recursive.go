package engine

import (
	"context"
	"iter"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/iceberg-go"

	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql"
)

// WITH RECURSIVE as PostgreSQL evaluates it: the non-recursive term's rows
// start the working table; the recursive term runs over the working table
// alone, its new rows (under UNION, those never produced before) are
// output and become the next working table, until a round adds none. Rows
// stream out as rounds produce them, so a LIMIT over an endless recursion
// ends.

// workTable is the rows of the last round, which the recursive term reads
// where it names the WITH query.
type workTable struct {
	sc   *sql.Scope
	rows []arrow.RecordBatch
}

// recursiveSource is one reference to a recursive WITH query.
type recursiveSource struct {
	start, step *selectQuery
	distinct    bool // UNION rather than UNION ALL
	work        *workTable
	sc          *sql.Scope
	env         *Env
}

// recursiveCTE plans a self-referencing WITH query: body must be
// non-recursive-term UNION [ALL] recursive-term.
func (p *planner) recursiveCTE(c *cte, qual string) (source, error) {
	start, step, op, err := splitRecursive(c)
	if err != nil {
		return nil, err
	}
	sst, err := start.Select()
	if err != nil {
		return nil, err
	}
	sq, err := p.query(sst, nil)
	if err != nil {
		return nil, err
	}
	cols := sq.Columns()
	if len(c.cols) > len(cols) {
		return nil, pgerr.Errorf(pgerr.InvalidColumnReference, "WITH query %q has %d columns available but %d columns specified", c.name, len(cols), len(c.cols))
	}
	sc := &sql.Scope{}
	for i, col := range cols {
		name := col.Name
		if i < len(c.cols) {
			name = c.cols[i]
		}
		sc.Columns = append(sc.Columns, sql.ScopeColumn{Table: qual, Name: name, T: col.Type})
	}
	work := &workTable{sc: sc}
	c.work = work
	defer func() { c.work = nil }()
	rst, err := step.Select()
	if err != nil {
		return nil, err
	}
	rq, err := p.query(rst, nil)
	if err != nil {
		return nil, err
	}
	if err := matchRecursiveTypes(c.name, sq, rq); err != nil {
		return nil, err
	}
	return &recursiveSource{start: sq, step: rq, distinct: op == sql.SetUnion, work: work, sc: sc, env: p.env}, nil
}

// splitRecursive finds the two terms of a recursive WITH query's body.
func splitRecursive(c *cte) (start, step *sql.Query, op sql.SetOp, err error) {
	start, step, op, ok := c.body.RecursiveTerms()
	if !ok {
		return nil, nil, 0, pgerr.Errorf(pgerr.InvalidRecursion,
			"recursive query %q does not have the form non-recursive-term UNION [ALL] recursive-term", c.name)
	}
	if start.References(c.name) {
		return nil, nil, 0, pgerr.Errorf(pgerr.InvalidRecursion, "recursive reference to query %q must not appear within its non-recursive term", c.name)
	}
	return start, step, op, nil
}

// matchRecursiveTypes requires the recursive term's columns to have the
// non-recursive term's types, as PostgreSQL does.
func matchRecursiveTypes(name string, start, step *selectQuery) error {
	sc, rc := start.Columns(), step.Columns()
	if len(sc) != len(rc) {
		return pgerr.Errorf(pgerr.SyntaxError, "each UNION query must have the same number of columns")
	}
	for i := range sc {
		if sc[i].Type != rc[i].Type {
			err := pgerr.Errorf(pgerr.DatatypeMismatch,
				"recursive query %q column %d has type %s in non-recursive term but type %s overall", name, i+1, sc[i].Type, rc[i].Type)
			err.Hint = "Cast the output of the non-recursive term to the correct type."
			return err
		}
	}
	return nil
}

func (r *recursiveSource) scope() *sql.Scope { return r.sc }

func (r *recursiveSource) project(cols []int) source { return newPicked(r, cols) }

func (r *recursiveSource) batches(ctx context.Context, _ iceberg.BooleanExpression, params []any) (iter.Seq2[arrow.RecordBatch, error], error) {
	return func(yield func(arrow.RecordBatch, error) bool) {
		mem := newMemBudget(r.env.Options.WorkMem)
		seen := newRowCounter(ctx, mem, "WITH RECURSIVE")
		defer func() { releaseAll(r.work.rows); r.work.rows = nil }()
		round := r.start
		var held int64 // the working table's bytes, charged to work_mem
		for {
			if err := canceled(ctx); err != nil {
				yield(nil, err)
				return
			}
			var next []arrow.RecordBatch
			ok, err := r.round(ctx, round, params, seen, mem, &next, yield)
			releaseAll(r.work.rows)
			mem.release(held)
			held = 0
			for _, b := range next {
				held += BatchBytes(b)
			}
			r.work.rows = next
			if err != nil {
				yield(nil, err)
				return
			}
			if !ok || len(next) == 0 {
				return
			}
			round = r.step
		}
	}, nil
}

// round runs one term, passing its new rows on and keeping them in next;
// ok is false when the consumer stopped.
func (r *recursiveSource) round(ctx context.Context, q *selectQuery, params []any, seen *rowCounter, mem *memBudget,
	next *[]arrow.RecordBatch, yield func(arrow.RecordBatch, error) bool) (bool, error) {
	rows, err := q.run(ctx, r.env, params)
	if err != nil {
		return false, err
	}
	var failed error
	keep := func(b arrow.RecordBatch, err error) bool {
		if err != nil {
			failed = err
			return false
		}
		b = renamed(b, r.sc)
		if err := mem.charge(BatchBytes(b), "WITH RECURSIVE"); err != nil {
			b.Release()
			failed = err
			return false
		}
		b.Retain()
		*next = append(*next, b)
		return yield(b, nil)
	}
	var done bool
	if r.distinct {
		done = seen.distinct(rowsSeq(ctx, rows), keep)
	} else {
		done = forward(rowsSeq(ctx, rows), keep)
	}
	if failed != nil {
		return false, failed
	}
	return done, nil
}

// renamed gives a batch the WITH query's column names.
func renamed(b arrow.RecordBatch, sc *sql.Scope) arrow.RecordBatch {
	fields := make([]arrow.Field, len(sc.Columns))
	for i, c := range sc.Columns {
		fields[i] = arrow.Field{Name: c.Name, Type: b.Column(i).DataType(), Nullable: true}
	}
	out := array.NewRecordBatch(arrow.NewSchema(fields, nil), b.Columns(), b.NumRows())
	b.Release()
	return out
}

func releaseAll(bs []arrow.RecordBatch) {
	for _, b := range bs {
		b.Release()
	}
}

// workSource is the recursive term's reference to its WITH query: the
// last round's rows.
type workSource struct {
	work *workTable
	sc   *sql.Scope
}

func (w *workSource) scope() *sql.Scope { return w.sc }

func (w *workSource) project(cols []int) source { return newPicked(w, cols) }

func (w *workSource) batches(context.Context, iceberg.BooleanExpression, []any) (iter.Seq2[arrow.RecordBatch, error], error) {
	rows := w.work.rows
	return func(yield func(arrow.RecordBatch, error) bool) {
		for _, b := range rows {
			b.Retain()
			if !yield(b, nil) {
				return
			}
		}
	}, nil
}
