package dml

import (
	"github.com/magmalake/magmalake/engine"

	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/magmalake/magmalake/deletes"
	"github.com/magmalake/magmalake/sql"
)

// equalityDelete runs a DELETE as equality delete files when the session
// asks for it (magmalake.equality_deletes), the table is a v2
// merge-on-read table, and the WHERE is an equality on columns (a = 1 AND
// b = 'x') or a one-column IN list: one file for the whole table under an
// unpartitioned spec, else one per partition of the matched rows. ok is
// false when the DELETE must take the positional path instead.
func (s session) equalityDelete(ctx context.Context, p *deletePlan, pred deletes.Predicate, args []Param, dry bool) (deletes.Outcome, bool, error) {
	cols, keys, why, err := s.equalityKeysFor(ctx, p, args)
	if err != nil || why != "" {
		return deletes.Outcome{}, false, err
	}
	defer keys.Release()
	opts := s.DeleteOptions(dry)
	out, err := deletes.EqualityDelete(ctx, s.CommitTarget(), p.rt.Ident, pred, cols, keys, opts)
	return out, true, err
}

// equalityKeysFor is the key columns and rows of an equality delete of p,
// or why the DELETE does not write one (keys is then nil).
func (s session) equalityKeysFor(ctx context.Context, p *deletePlan, args []Param) ([]string, arrow.RecordBatch, string, error) {
	if v, err := s.Setting("magmalake.equality_deletes"); err != nil || !strings.EqualFold(v, "on") {
		return nil, nil, "magmalake.equality_deletes is off", nil
	}
	tbl := p.rt.Table
	switch {
	case p.where == nil:
		return nil, nil, "the DELETE has no WHERE", nil
	case p.returning != nil:
		return nil, nil, "RETURNING needs the deleted rows", nil
	case !deletes.EqualityApplicable(tbl):
		return nil, nil, fmt.Sprintf("equality deletes are written to format v2 tables, this one is v%d", tbl.Metadata().Version()), nil
	case deletes.ModeOf(tbl.Properties()) != deletes.ModeMergeOnRead:
		return nil, nil, "the table's write.delete.mode is copy-on-write", nil
	}
	if c, ok := p.where.(*sql.Const); ok && c.Value != true {
		// Folded to false or NULL (a = NULL): nothing to delete.
		return nil, nil, "the WHERE is never true, which matches no row", nil
	}
	cols, keys, err := equalityKeys(ctx, p, args)
	switch {
	case err != nil:
		return nil, nil, "", err
	case cols == nil:
		return nil, nil, "the WHERE is not equalities of columns to constants (a = 1 AND b = 'x', or one column's IN list) on types compared by value (not float, numeric or json)", nil
	case keys == nil:
		return nil, nil, "every key is NULL, which matches no row", nil
	}
	return cols, keys, "", nil
}

// deleteStrategy says how a DELETE on p's table writes, and why.
func (s session) deleteStrategy(ctx context.Context, p *deletePlan, args []Param) (string, error) {
	tbl := p.rt.Table
	_, keys, why, err := s.equalityKeysFor(ctx, p, args)
	if err != nil {
		return "", err
	}
	if why == "" {
		keys.Release()
		return "equality deletes: " + deletes.EqualityScope(tbl), nil
	}
	base := "position delete files"
	switch {
	case deletes.ModeOf(tbl.Properties()) != deletes.ModeMergeOnRead || tbl.Metadata().Version() < 2:
		base = "copy-on-write: the data files are rewritten"
	case tbl.Metadata().Version() >= 3:
		base = "deletion vectors"
	}
	return base + " (no equality deletes: " + why + ")", nil
}

// keyTerm is one "column = value" of the WHERE.
type keyTerm struct {
	col    int
	values []sql.Expr // one per key row (IN list), or one
}

// equalityKeys reads the WHERE as key rows: nil columns when its shape is
// not an equality, nil keys when every key row is NULL. A NULL value
// matches nothing in SQL, so its key row is dropped (an equality delete
// would match NULL to NULL).
func equalityKeys(ctx context.Context, p *deletePlan, args []Param) ([]string, arrow.RecordBatch, error) {
	terms, ok := keyTerms(p.where, p.scope)
	if !ok {
		return nil, nil, nil
	}
	fields := make([]arrow.Field, len(terms))
	cols := make([]string, len(terms))
	for i, t := range terms {
		c := p.scope.Columns[t.col]
		fields[i] = arrow.Field{Name: c.Name, Type: c.T.ArrowType(), Nullable: true}
		cols[i] = c.Name
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, arrow.NewSchema(fields, nil))
	defer b.Release()
	rows := len(terms[0].values)
	for r := 0; r < rows; r++ {
		vals := make([]arrow.Array, len(terms))
		null := false
		for i, t := range terms {
			v, err := sql.Eval(ctx, t.values[min(r, len(t.values)-1)], nil, args)
			if err != nil {
				releaseArrays(vals)
				return nil, nil, err
			}
			vals[i] = v
			null = null || v.IsNull(0)
		}
		for i := range vals {
			if !null {
				if err := engine.AppendFrom(b.Field(i), vals[i], 0); err != nil {
					releaseArrays(vals)
					return nil, nil, err
				}
			}
		}
		releaseArrays(vals)
	}
	rec := b.NewRecordBatch()
	if rec.NumRows() == 0 {
		rec.Release()
		return cols, nil, nil
	}
	return cols, rec, nil
}

func releaseArrays(as []arrow.Array) {
	for _, a := range as {
		if a != nil {
			a.Release()
		}
	}
}

// keyTerms splits where into column = constant terms on distinct columns; at
// most one term (and then the only one) may be an IN list. An OR of such
// conjunctions over the same columns — what a tuple IN, (a, b) IN ((1, 'x'),
// (2, 'y')), binds to — gives one key row per alternative.
func keyTerms(where sql.Expr, scope *sql.Scope) ([]keyTerm, bool) {
	if l, ok := where.(*sql.Logic); ok && !l.And {
		return tupleTerms(l.Args, scope)
	}
	conj := []sql.Expr{where}
	if l, ok := where.(*sql.Logic); ok && l.And {
		conj = l.Args
	}
	var terms []keyTerm
	seen := map[int]bool{}
	for _, e := range conj {
		t, ok := keyTermOf(e, scope)
		if !ok || seen[t.col] || (len(t.values) > 1 && len(conj) > 1) {
			return nil, false
		}
		seen[t.col] = true
		terms = append(terms, t)
	}
	return terms, len(terms) > 0
}

func keyTermOf(e sql.Expr, scope *sql.Scope) (keyTerm, bool) {
	switch x := e.(type) {
	case *sql.Compare:
		if x.Op != sql.OpEQ {
			return keyTerm{}, false
		}
		col, val := x.L, x.R
		if _, ok := col.(*sql.ColumnRef); !ok {
			col, val = x.R, x.L
		}
		return keyTermFor(col, scope, val)
	case *sql.InList:
		if x.Not {
			return keyTerm{}, false
		}
		return keyTermFor(x.X, scope, x.List...)
	}
	return keyTerm{}, false
}

// keyTermFor accepts col = values when col is a plain column of an exactly
// comparable type and the values, of that same type (so any comparison
// domain agrees with byte equality), read no column.
func keyTermFor(col sql.Expr, scope *sql.Scope, values ...sql.Expr) (keyTerm, bool) {
	ref, ok := col.(*sql.ColumnRef)
	if !ok || ref.Index < 0 || ref.Index >= len(scope.Columns) || len(values) == 0 {
		return keyTerm{}, false
	}
	t := scope.Columns[ref.Index].T
	switch t.Kind {
	case sql.KindFloat32, sql.KindFloat64, sql.KindNumeric, sql.KindJSON, sql.KindOID, sql.KindUnknown:
		return keyTerm{}, false // NaN, scale and text forms compare differently from bytes
	}
	for _, v := range values {
		used := map[int]bool{}
		sql.CollectColumns(v, used)
		if len(used) > 0 || v.Type() != t {
			return keyTerm{}, false
		}
	}
	return keyTerm{col: ref.Index, values: values}, true
}

// tupleTerms reads OR-ed conjunctions of single-value equalities on one set
// of columns as key rows. An alternative the binder folded to one that is
// never true (a key with a NULL: id = NULL AND cat = 'a' is NULL AND ...)
// deletes nothing and gives no row.
func tupleTerms(alts []sql.Expr, scope *sql.Scope) ([]keyTerm, bool) {
	var terms []keyTerm
	for _, alt := range alts {
		if neverTrue(alt) {
			continue
		}
		row, ok := keyTerms(alt, scope)
		if !ok || len(row) == 0 {
			return nil, false
		}
		slices.SortFunc(row, func(a, b keyTerm) int { return a.col - b.col })
		if terms == nil {
			terms = make([]keyTerm, len(row))
			for k, t := range row {
				terms[k].col = t.col
			}
		}
		if len(row) != len(terms) {
			return nil, false
		}
		for k, t := range row {
			if t.col != terms[k].col || len(t.values) != 1 {
				return nil, false
			}
			terms[k].values = append(terms[k].values, t.values[0])
		}
	}
	return terms, len(terms) > 0
}

// neverTrue reports a constant FALSE or NULL, or an AND holding one.
func neverTrue(e sql.Expr) bool {
	if l, ok := e.(*sql.Logic); ok && l.And {
		return slices.ContainsFunc(l.Args, neverTrue)
	}
	c, ok := e.(*sql.Const)
	return ok && c.Value != true
}
