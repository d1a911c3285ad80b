package sql

import (
	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql/parse"
)

// Row values compare element by element, as PostgreSQL does: (a, b) = (1, 2)
// is a = 1 AND b = 2, (a, b) <> (1, 2) is a <> 1 OR b <> 2, and
// (a, b) IN (r1, r2) is (a, b) = r1 OR (a, b) = r2. Written with AND, OR
// and NOT these keep three-valued logic exactly, so they bind to those
// nodes and every later stage (evaluation, Iceberg translation, equality
// deletes) sees ordinary comparisons.

// rowOf returns the elements of a row constructor, nil for any other node.
func rowOf(n parse.Expr) []parse.Expr {
	for {
		p, ok := n.(*parse.Paren)
		if !ok {
			break
		}
		n = p.X
	}
	if r, ok := n.(*parse.Row); ok {
		return r.Values
	}
	return nil
}

// bindRowCompare binds l op r for row constructors l and r; only = and <>
// are supported (ordering comparisons of rows are lexicographic and rare).
func (b compositeBinder) bindRowCompare(op parse.Op, l, r []parse.Expr) (Expr, error) {
	if op != parse.OpEQ && op != parse.OpNE {
		return nil, pgerr.Errorf(pgerr.FeatureNotSupported, "row comparison with %s is not supported; only = and <>", op)
	}
	if len(l) != len(r) {
		return nil, pgerr.Errorf(pgerr.SyntaxError, "unequal number of entries in row expressions")
	}
	parts := make([]Expr, len(l))
	for i := range l {
		x, err := b.bind(l[i])
		if err != nil {
			return nil, err
		}
		y, err := b.bind(r[i])
		if err != nil {
			return nil, err
		}
		c, err := b.ops().bindCompare(cmpOpOf(op), x, y)
		if err != nil {
			return nil, err
		}
		parts[i] = b.folded(c)
	}
	if len(parts) == 1 {
		return parts[0], nil
	}
	return b.folded(newLogic(op == parse.OpEQ, parts...)), nil
}

// bindRowIn binds (a, b) [NOT] IN ((..), (..)).
func (b compositeBinder) bindRowIn(x []parse.Expr, n *parse.In) (Expr, error) {
	alts := make([]Expr, len(n.List))
	for i, it := range n.List {
		row := rowOf(it)
		if row == nil {
			return nil, pgerr.Errorf(pgerr.SyntaxError, "IN list of a row value must hold row values of %d entries", len(x))
		}
		var err error
		if alts[i], err = b.bindRowCompare(parse.OpEQ, x, row); err != nil {
			return nil, err
		}
	}
	var in Expr = alts[0]
	if len(alts) > 1 {
		in = b.folded(newLogic(false, alts...))
	}
	if n.Not {
		return &Not{X: in}, nil
	}
	return in, nil
}
