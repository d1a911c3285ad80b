package sql

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// fastLike is column [NOT] LIKE 'constant' on the fast path, for patterns
// of literals and %s only (prefix%, %infix%, %a%b%, %suffix): matched by
// substring search over the string array, no value boxed. Such a pattern
// cannot raise an error. Others (_, ILIKE, char(n)'s padded values, a
// pattern from a column) stay with the general evaluator.
func (ev *evaluator) fastLike(x *Like) (fastPred, bool) {
	c, ok := x.X.(*ColumnRef)
	if !ok || x.ILike || !c.T.IsString() || c.T.Bpchar {
		return nil, false
	}
	v, ok := ev.constValue(x.Pattern)
	if !ok {
		return nil, false
	}
	if v == nil {
		return constMask(nil), true
	}
	src, ok := v.(string)
	if !ok {
		return nil, false
	}
	p, err := compileLike(src, x.Escape, false)
	if err != nil || p.segs == nil {
		return nil, false
	}
	segs, not := p.segs, x.Not
	return func(ctx context.Context, b arrow.RecordBatch, sel []int) triMask {
		col := b.Column(c.Index)
		m := newTriMask(col.Len())
		a, ok := col.(*array.String)
		if !ok { // an unexpected array type: the general evaluator's answer
			return generalPred(x, ev.params)(ctx, b, sel)
		}
		forRows(a.Len(), sel, m.val, func(i int) bool { return matchSegments(a.Value(i), segs) != not })
		markNulls(col, sel, m.null)
		return m
	}, true
}
