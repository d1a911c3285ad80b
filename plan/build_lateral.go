package plan

import (
	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql"
)

// lateral plans JOIN LATERAL (subquery) and , LATERAL (subquery).
func (p *Builder) lateral(j *sql.FromJoin, ts *sql.FromTable, outer *sql.Outer) (Node, error) {
	left, err := p.fromItem(j.Left(), outer)
	if err != nil {
		return nil, err
	}
	kind := joinKindOf(j)
	if kind == JoinRight || kind == JoinFull {
		return nil, pgerr.Errorf(pgerr.InvalidColumnReference, "the combining JOIN type must be INNER or LEFT for a LATERAL reference")
	}
	alias, cols := splitAlias(ts.Alias())
	if alias == "" {
		return nil, pgerr.Errorf(pgerr.SyntaxError, "subquery in FROM must have an alias")
	}
	lsc := withOuter(left.Scope(), outer)
	inner := sql.NewOuter(func(cn sql.Syntax) (sql.Expr, error) { return sql.Bind(cn, lsc, p.params) })
	body, _ := ts.Query()
	st, err := body.Select()
	if err != nil {
		return nil, err
	}
	q, err := p.query(st, inner)
	if err != nil {
		return nil, err
	}
	if len(inner.Refs) == 0 {
		// It reads nothing of the left side (a function in FROM is
		// LATERAL by default): an ordinary join, which may hash.
		ts.NotLateral()
		return p.join(j, outer)
	}
	markReread(q.From)
	var right Node = NewDerived(q, alias)
	if len(cols) > 0 {
		if right, err = renameColumns(right, cols); err != nil {
			return nil, err
		}
	}
	ls := &Lateral{Left: left, Right: q, Refs: inner.Refs, Kind: kind}
	ls.Sc = ConcatScopes(left.Scope(), right.Scope())
	if j.On() != nil {
		if ls.Cond, err = sql.BindCondition(j.On(), withOuter(ls.Sc, outer), p.params, "JOIN/ON"); err != nil {
			return nil, err
		}
	}
	if len(j.Using()) > 0 || j.Natural() {
		return nil, pgerr.Errorf(pgerr.FeatureNotSupported, "USING and NATURAL with LATERAL are not supported yet")
	}
	return ls, nil
}
