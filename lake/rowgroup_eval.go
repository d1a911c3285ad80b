package lake

import (
	"bytes"
	"math"

	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/iceberg-go"
	"github.com/google/uuid"
)

// Row-group pruning reads a filter the way iceberg-go's row evaluator
// (ice.ExpressionEvaluator) does, the two-valued semantics sql.Translate
// states its filters in: null ordered below every value (so null < 5 and
// null <> 5 are true, null > 5 and null = 5 false) and floats ordered by
// cmp.Compare (NaN below every number). A row group is dropped only when the
// filter is false for every row its footer allows it to hold. Manifest
// pruning reads ranges more narrowly (no null or NaN satisfies x < c), so
// whatever row it must keep, this keeps too.

// rowGroupFilter is a filter prepared for row-group statistics: NOT pushed
// down to the predicates and bound to the scan's schema.
type rowGroupFilter struct {
	expr iceberg.BooleanExpression
	sets *literalSets // the sorted literals of its IN and NOT IN
}

// newRowGroupFilter prepares filter over sc. NOT is rewritten away with
// Negate: under the two-valued total order above each predicate's negation
// is exactly its complement (x < c and x >= c, x = c and x <> c, IN and NOT
// IN, IS NULL and NOT NULL, IS NaN and NOT NaN, starts_with and its
// negation), so the rewrite keeps the filter's meaning row by row.
func newRowGroupFilter(sc *iceberg.Schema, filter iceberg.BooleanExpression) (rowGroupFilter, error) {
	rewritten, err := iceberg.RewriteNotExpr(filter)
	if err != nil {
		return rowGroupFilter{}, err
	}
	bound, err := iceberg.BindExpr(sc, rewritten, true)
	if err != nil {
		return rowGroupFilter{}, err
	}
	return rowGroupFilter{expr: bound, sets: &literalSets{}}, nil
}

// trivial: the filter keeps every row group, no footer needs reading.
func (f rowGroupFilter) trivial() bool {
	_, ok := f.expr.(iceberg.AlwaysTrue)
	return ok
}

// fileColumns locates a data file's columns for row-group statistics.
type fileColumns struct {
	leaf  map[int]int  // Iceberg field id -> Parquet leaf column
	noNaN map[int]bool // float fields the manifest counts no NaN in
}

// newFileColumns maps the Parquet field ids of md's unrepeated leaf
// columns; a field id on two leaves maps to neither. nanCounts are the data
// file's NaN counts from its manifest entry (iceberg-go v0.7.0's writer
// records none, so in its files any float column may hold NaN).
func newFileColumns(md *metadata.FileMetaData, nanCounts map[int]int64) fileColumns {
	fc := fileColumns{leaf: map[int]int{}, noNaN: map[int]bool{}}
	dup := map[int]bool{}
	for i, col := range md.Schema.Columns() {
		id := int(col.SchemaNode().FieldID())
		if id <= 0 || col.MaxRepetitionLevel() > 0 {
			continue
		}
		if _, seen := fc.leaf[id]; seen {
			dup[id] = true
		}
		fc.leaf[id] = i
	}
	for id := range dup {
		delete(fc.leaf, id)
	}
	for id, n := range nanCounts {
		fc.noNaN[id] = n == 0
	}
	return fc
}

// mightMatch reports whether some row of rg might satisfy the filter.
func (f rowGroupFilter) mightMatch(rg *metadata.RowGroupMetaData, cols fileColumns) (bool, error) {
	if rg.NumRows() == 0 {
		return false, nil
	}
	stats := func(col int, typ iceberg.Type, noNaN bool) colStats { return chunkStats(rg, col, typ, noNaN) }
	v, err := iceberg.VisitExpr(f.expr, &groupEval{stats: stats, cols: cols, sets: f.sets})
	return v.might, err
}

// statsOf gives what is known about leaf column col over the rows being
// judged (a row group, or a range of rows inside one), as type typ.
type statsOf func(col int, typ iceberg.Type, noNaN bool) colStats

// verdict is what the statistics say about a sub-expression over one row
// group. Judging each predicate alone loses what a conjunction knows: in
// x <= 5 AND x IS NOT NULL (the form range filters on nullable columns
// take) the nulls that let x <= 5 hold are the rows x IS NOT NULL rejects.
// So a verdict also carries its answer over the rows where one column is
// not null, and the columns whose null makes the expression false; a
// conjunction with such a column is judged over that column's non-null
// rows.
type verdict struct {
	might     bool             // some row might satisfy the expression
	nonNull   map[int]bool     // field id -> might, over rows where it is not null
	nullFalse map[int]struct{} // field ids whose null makes the expression false
}

// at is the verdict over the rows where field id is not null.
func (v verdict) at(id int) bool {
	if m, ok := v.nonNull[id]; ok {
		return m
	}
	return v.might
}

// groupEval evaluates a bound, NOT-free filter over the rows whose column
// statistics stats gives: one row group, or a range of rows in one (pages).
type groupEval struct {
	stats statsOf
	cols  fileColumns
	sets  *literalSets // nil: sort each set as it is met
}

// keep is the verdict that knows nothing: some row might match.
func keep() verdict { return verdict{might: true} }

func (*groupEval) VisitTrue() verdict                            { return keep() }
func (*groupEval) VisitFalse() verdict                           { return verdict{} }
func (*groupEval) VisitNot(verdict) verdict                      { return keep() } // none after RewriteNotExpr; unsure, so keep
func (*groupEval) VisitUnbound(iceberg.UnboundPredicate) verdict { return keep() }

func (*groupEval) VisitAnd(l, r verdict) verdict {
	if !l.might || !r.might {
		return verdict{}
	}
	out := verdict{might: true, nonNull: map[int]bool{}, nullFalse: map[int]struct{}{}}
	for id := range l.nullFalse {
		out.nullFalse[id] = struct{}{}
	}
	for id := range r.nullFalse {
		out.nullFalse[id] = struct{}{}
	}
	// A row satisfying both has every nullFalse column non-null.
	for id := range out.nullFalse {
		out.might = out.might && l.at(id) && r.at(id)
	}
	for _, v := range []verdict{l, r} {
		for id := range v.nonNull {
			out.nonNull[id] = out.might && l.at(id) && r.at(id)
		}
	}
	return out
}

func (*groupEval) VisitOr(l, r verdict) verdict {
	switch {
	case !l.might:
		return r
	case !r.might:
		return l
	}
	out := verdict{might: true, nonNull: map[int]bool{}, nullFalse: map[int]struct{}{}}
	for id := range l.nullFalse {
		if _, ok := r.nullFalse[id]; ok {
			out.nullFalse[id] = struct{}{}
		}
	}
	for _, v := range []verdict{l, r} {
		for id := range v.nonNull {
			out.nonNull[id] = l.at(id) || r.at(id)
		}
	}
	return out
}

func (g *groupEval) VisitBound(pred iceberg.BoundPredicate) verdict {
	ref, ok := pred.Term().(iceberg.BoundReference)
	if !ok {
		return keep() // a transform of a column: its statistics say nothing direct
	}
	id := ref.Field().ID
	out := verdict{might: true}
	if nullRejecting(pred.Op()) {
		out.nullFalse = map[int]struct{}{id: {}}
	}
	col, ok := g.cols.leaf[id]
	if !ok {
		return out // not in this file (or no field ids): its values are defaults we do not see
	}
	cs := g.stats(col, ref.Type(), g.cols.noNaN[id])
	out.might = cs.predicate(pred, g.sets)
	values := cs
	values.nulls = 0
	out.nonNull = map[int]bool{id: out.might && !cs.allNull() && values.predicate(pred, g.sets)}
	return out
}

// nullRejecting: the predicate is false for a null value.
func nullRejecting(op iceberg.Operation) bool {
	switch op {
	case iceberg.OpNotNull, iceberg.OpIsNan, iceberg.OpEQ, iceberg.OpGT, iceberg.OpGTEQ, iceberg.OpStartsWith, iceberg.OpIn:
		return true
	}
	return false
}

// predicate: some row might satisfy pred, a predicate on this column.
func (c colStats) predicate(pred iceberg.BoundPredicate, sets *literalSets) bool {
	switch p := pred.(type) {
	case iceberg.BoundUnaryPredicate:
		return c.unary(p.Op())
	case iceberg.BoundLiteralPredicate:
		return c.literal(p.Op(), p.Literal())
	case iceberg.BoundSetPredicate:
		return c.set(p.Op(), sets.of(p))
	}
	return true
}

func (c colStats) unary(op iceberg.Operation) bool {
	switch op {
	case iceberg.OpIsNull:
		return c.mayHaveNull()
	case iceberg.OpNotNull:
		return !c.allNull()
	case iceberg.OpIsNan:
		// The row evaluator's is_nan is false for every non-float value.
		return isFloatType(c.typ) && !c.allNull() && !c.noNaN
	}
	return true // not_nan holds for nulls and numbers alike
}

func (c colStats) literal(op iceberg.Operation, lit iceberg.Literal) bool {
	if isNaNLiteral(lit) {
		return true
	}
	switch op {
	case iceberg.OpEQ:
		return !c.allNull() && !c.belowLo(lit) && !c.aboveHi(lit, false)
	case iceberg.OpNEQ:
		return c.mayHaveNull() || !c.noNaN || !c.onlyValue(lit)
	case iceberg.OpLT, iceberg.OpLTEQ:
		// Nulls and NaN order first, so they satisfy x < c.
		return c.mayHaveNull() || !c.noNaN || !c.notBelow(lit, op == iceberg.OpLTEQ)
	case iceberg.OpGT, iceberg.OpGTEQ:
		return !c.allNull() && !c.aboveHi(lit, op == iceberg.OpGT)
	case iceberg.OpStartsWith:
		return !c.allNull() && c.mayStartWith(lit)
	case iceberg.OpNotStartsWith:
		return c.mayHaveNull() || !c.allStartWith(lit)
	}
	return true
}

func (c colStats) set(op iceberg.Operation, lits *sortedLiterals) bool {
	if lits.nan {
		return true
	}
	switch op {
	case iceberg.OpIn:
		return !c.allNull() && lits.anyWithin(c)
	case iceberg.OpNotIn:
		if c.mayHaveNull() || !c.noNaN {
			return true
		}
		for _, l := range lits.lits {
			if c.onlyValue(l) {
				return false
			}
		}
	}
	return true
}

// belowLo: lit is below lo, so every value is above it.
func (c colStats) belowLo(lit iceberg.Literal) bool {
	n, ok := compareLiterals(lit, c.lo)
	return ok && n < 0
}

// notBelow: no value is below lit (orEqual: none at or below it), so
// x < lit (x <= lit) is false for every non-null value.
func (c colStats) notBelow(lit iceberg.Literal, orEqual bool) bool {
	n, ok := compareLiterals(c.lo, lit)
	return ok && (n > 0 || !orEqual && n == 0)
}

// aboveHi: lit is above hi (orEqual: or equal to it), so every value is
// below lit (at most lit). A maximum that may be a truncated prefix bounds
// only the values that do not start with it.
func (c colStats) aboveHi(lit iceberg.Literal, orEqual bool) bool {
	n, ok := compareLiterals(lit, c.hi)
	if !ok || n < 0 || n == 0 && !orEqual {
		return false
	}
	if c.hiPrefix {
		lb, hb := literalBytes(lit), literalBytes(c.hi)
		return lb != nil && hb != nil && !bytes.HasPrefix(lb, hb)
	}
	return true
}

// onlyValue: every value equals lit (the bounds meet at it). Only for
// types whose values are their statistics' exact values.
func (c colStats) onlyValue(lit iceberg.Literal) bool {
	if c.hiPrefix {
		return false
	}
	a, ok1 := compareLiterals(c.lo, lit)
	b, ok2 := compareLiterals(c.hi, lit)
	return ok1 && ok2 && a == 0 && b == 0
}

// mayStartWith: some value might start with prefix lit. Values lie in
// [lo, hi] (hi extended by anything when it may be a truncated prefix).
func (c colStats) mayStartWith(lit iceberg.Literal) bool {
	p, lo, hi := literalBytes(lit), literalBytes(c.lo), literalBytes(c.hi)
	if p == nil || lo == nil || hi == nil {
		return true
	}
	if bytes.Compare(truncate(lo, len(p)), p) > 0 {
		return false
	}
	if bytes.Compare(truncate(hi, len(p)), p) < 0 {
		return c.hiPrefix && bytes.HasPrefix(p, hi)
	}
	return true
}

// allStartWith: every value starts with lit: both bounds do, and the
// values starting with a prefix are one interval in byte order.
func (c colStats) allStartWith(lit iceberg.Literal) bool {
	p, lo, hi := literalBytes(lit), literalBytes(c.lo), literalBytes(c.hi)
	return p != nil && lo != nil && hi != nil && bytes.HasPrefix(lo, p) && bytes.HasPrefix(hi, p)
}

func truncate(b []byte, n int) []byte { return b[:min(n, len(b))] }

// literalBytes is a string or binary literal's bytes (nil for other types).
func literalBytes(l iceberg.Literal) []byte {
	switch v := l.(type) {
	case iceberg.TypedLiteral[string]:
		return []byte(v.Value())
	case iceberg.TypedLiteral[[]byte]:
		if b := v.Value(); b != nil {
			return b
		}
		return []byte{}
	}
	return nil
}

func isNaNLiteral(l iceberg.Literal) bool {
	switch v := l.(type) {
	case iceberg.TypedLiteral[float32]:
		return math.IsNaN(float64(v.Value()))
	case iceberg.TypedLiteral[float64]:
		return math.IsNaN(v.Value())
	}
	return false
}

// compareLiterals orders a and b when both are values of the same Iceberg
// type, with that type's comparator; ok is false otherwise (a nil bound,
// a sentinel above/below a type's range, mixed types).
func compareLiterals(a, b iceberg.Literal) (int, bool) {
	if a == nil || b == nil {
		return 0, false
	}
	switch a.(type) {
	case iceberg.AboveMaxLiteral, iceberg.BelowMinLiteral:
		return 0, false
	}
	switch b.(type) {
	case iceberg.AboveMaxLiteral, iceberg.BelowMinLiteral:
		return 0, false
	}
	switch x := a.(type) {
	case iceberg.TypedLiteral[bool]:
		return compareTyped(x, b)
	case iceberg.TypedLiteral[int32]:
		return compareTyped(x, b)
	case iceberg.TypedLiteral[int64]:
		return compareTyped(x, b)
	case iceberg.TypedLiteral[float32]:
		return compareTyped(x, b)
	case iceberg.TypedLiteral[float64]:
		return compareTyped(x, b)
	case iceberg.TypedLiteral[iceberg.Date]:
		return compareTyped(x, b)
	case iceberg.TypedLiteral[iceberg.Time]:
		return compareTyped(x, b)
	case iceberg.TypedLiteral[iceberg.Timestamp]:
		return compareTyped(x, b)
	case iceberg.TypedLiteral[string]:
		return compareTyped(x, b)
	case iceberg.TypedLiteral[[]byte]:
		return compareTyped(x, b)
	case iceberg.TypedLiteral[uuid.UUID]:
		return compareTyped(x, b)
	case iceberg.TypedLiteral[iceberg.Decimal]:
		return compareDecimals(x.Value(), b)
	}
	return 0, false
}

func compareTyped[T iceberg.LiteralType](a iceberg.TypedLiteral[T], b iceberg.Literal) (int, bool) {
	y, ok := b.(iceberg.TypedLiteral[T])
	if !ok {
		return 0, false
	}
	return a.Comparator()(a.Value(), y.Value()), true
}

// compareDecimals compares unscaled values of one scale: the bound literal
// and the statistics both carry the column's scale.
func compareDecimals(a iceberg.Decimal, b iceberg.Literal) (int, bool) {
	y, ok := b.(iceberg.TypedLiteral[iceberg.Decimal])
	if !ok || y.Value().Scale != a.Scale {
		return 0, false
	}
	return a.Val.Cmp(y.Value().Val), true
}
