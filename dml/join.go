package dml

import (
	"context"
	"errors"

	"github.com/magmalake/magmalake/deletes"
	"github.com/magmalake/magmalake/engine"
	"github.com/magmalake/magmalake/sql"
	"github.com/magmalake/magmalake/stmt"
)

// A DELETE ... USING or UPDATE ... FROM runs as the MERGE it is: the target
// joined with the listed relations by the WHERE, one clause (WHEN MATCHED
// THEN DELETE, or UPDATE SET ...), a target row joined by several rows
// changed once, with the first of them (sql.Merge.AnyMatch), written in the
// statement's own mode (write.delete.mode, write.update.mode). RETURNING
// reads the joined row, as PostgreSQL's does. Conditions with volatile
// functions, which the join would look at twice, take the semi-join form
// the parser also made (EXISTS and scalar subqueries).

// joinMerge is the MERGE a DELETE ... USING or UPDATE ... FROM stands for.
func joinMerge(with *sql.With, table sql.TableName, alias string, j *sql.DMLJoin, cl sql.MergeClause, returning []sql.SelectItem) *sql.Merge {
	return &sql.Merge{With: with, Table: table, Alias: alias, Source: j.Source, On: j.Cond,
		Clauses: []sql.MergeClause{cl}, Returning: returning, AnyMatch: true}
}

func (s session) planJoinDelete(ctx context.Context, st *sql.Delete, params *sql.Params) (*mergePlan, error) {
	m := joinMerge(st.With, st.Table, st.Alias, st.Join, sql.MergeClause{When: sql.MergeMatched, Action: sql.MergeDelete}, st.Returning)
	p, err := s.planMergeAs(ctx, m, params, "DELETE")
	if err != nil {
		return nil, err
	}
	p.mode = deletes.ModeOf(p.rt.Table.Properties())
	return p, nil
}

func (s session) planJoinUpdate(ctx context.Context, st *sql.Update, params *sql.Params) (*mergePlan, error) {
	cl := sql.MergeClause{When: sql.MergeMatched, Action: sql.MergeUpdate, Set: st.Join.Set}
	p, err := s.planMergeAs(ctx, joinMerge(st.With, st.Table, st.Alias, st.Join, cl, st.Returning), params, "UPDATE")
	if err != nil {
		return nil, err
	}
	p.mode = deletes.UpdateModeOf(p.rt.Table.Properties())
	return p, nil
}

// prepareJoinDML prepares a DELETE ... USING or UPDATE ... FROM as a join;
// ok is false when its conditions need the semi-join form instead.
func (s session) prepareJoinDML(ctx context.Context, build func(context.Context, session) (*mergePlan, error)) (Run, []stmt.Column, bool, error) {
	pl, cols, err := s.prepareMergePlan(ctx, build)
	if errors.Is(err, engine.ErrVolatileMerge) {
		return nil, nil, false, nil
	}
	return pl, cols, true, err
}
