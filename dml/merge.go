package dml

import (
	"context"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/iceberg-go"

	"github.com/magmalake/magmalake/deletes"
	"github.com/magmalake/magmalake/engine"
	"github.com/magmalake/magmalake/lake"
	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/plan"
	"github.com/magmalake/magmalake/sql"
	"github.com/magmalake/magmalake/stmt"
)

// mergePlan is a bound MERGE: the engine's plan of the join and clauses,
// and what the session checks of the rows it writes.
type mergePlan struct {
	verb     string       // MERGE, or DELETE and UPDATE run as a MERGE (join.go)
	mode     deletes.Mode // "": write.merge.mode
	rt       *plan.Table
	scope    *sql.Scope // every target column
	plan     *engine.MergePlan
	require  []bool           // NOT NULL columns
	declared map[int]sql.Type // varchar(n), smallint, ... (declared_types.go)
}

func (s session) planMerge(ctx context.Context, st *sql.Merge, params *sql.Params) (*mergePlan, error) {
	return s.planMergeAs(ctx, st, params, "MERGE")
}

// planMergeAs plans st for the statement verb names.
func (s session) planMergeAs(ctx context.Context, st *sql.Merge, params *sql.Params, verb string) (*mergePlan, error) {
	rt, err := s.ResolveTable(ctx, st.Table, true)
	if err != nil {
		return nil, err
	}
	what := map[string]string{"MERGE": "merge into", "DELETE": "delete from", "UPDATE": "update"}[verb]
	if err := s.Writable(rt, what, st.Table); err != nil {
		return nil, err
	}
	qual := st.Alias
	if qual == "" {
		qual = st.Table.Table
	}
	p := &mergePlan{verb: verb, rt: rt, scope: s.Scope(rt.Table, qual), declared: declaredTypes(rt.Table)}
	if st.Alias != "" {
		p.scope.Aliased = map[string]string{st.Table.Table: st.Alias}
	}
	for _, f := range rt.Table.Schema().Fields() {
		p.require = append(p.require, f.Required)
	}
	if params == nil {
		params = &sql.Params{}
	}
	if p.plan, err = engine.PlanMerge(ctx, s.QueryEnv(), st, p.scope, st.Table.Table, params); err != nil {
		return nil, err
	}
	return p, nil
}

func (s session) prepareMerge(ctx context.Context, st *sql.Merge, params *sql.Params) (Run, []stmt.Column, error) {
	return s.prepareMergePlan(ctx, func(ctx context.Context, s session) (*mergePlan, error) {
		return s.planMerge(ctx, st, params)
	})
}

// prepareMergePlan plans now for the row description and for the first
// execution while that plan is current (kept), and again at later ones,
// against the tables as they are then.
func (s session) prepareMergePlan(ctx context.Context, build func(context.Context, session) (*mergePlan, error)) (Run, []stmt.Column, error) {
	k, p, err := keep(ctx, s, build)
	if err != nil {
		return nil, nil, err
	}
	cols := p.columns()
	run := func(ctx context.Context, s session, args []Param) (*stmt.Result, error) {
		if err := s.CheckWrite(); err != nil {
			return nil, err
		}
		p, err := k.take(ctx, s)
		if err != nil {
			return nil, err
		}
		out, rows, err := s.runMerge(ctx, p, args, false)
		if err != nil {
			return nil, err
		}
		return p.result(out, rows), nil
	}
	return runOn(run), cols, nil
}

// columns describe RETURNING's rows; nil without RETURNING.
func (p *mergePlan) columns() []stmt.Column {
	if c := p.plan.Columns(); c != nil {
		return engine.ResultColumns(c)
	}
	return nil
}

// mergeOutcome is what a MERGE did: rows by action, and RETURNING's rows.
type mergeOutcome struct {
	deletes.MergeOutcome
	inserted, updated, deleted int64
	filter                     iceberg.BooleanExpression // what pruned the target's files
}

// rows is what the statement's tag counts.
func (o mergeOutcome) rows(verb string) int64 {
	switch verb {
	case "DELETE":
		return o.deleted
	case "UPDATE":
		return o.updated
	}
	return o.inserted + o.updated + o.deleted
}

// runMerge runs (or, dry, plans) the merge: the engine reads the source
// and decides per target row; the delete engine makes one pass over the
// candidate files of the target and commits one snapshot.
func (s session) runMerge(ctx context.Context, p *mergePlan, args []Param, dry bool) (mergeOutcome, []arrow.RecordBatch, error) {
	ctx = engine.WithStatement(ctx, s.QueryEnv())
	run, err := p.plan.Run(ctx, args)
	if err != nil {
		return mergeOutcome{}, nil, err
	}
	defer run.Close()
	rows := &mergeRows{p: p, run: run}
	pred := deletes.Predicate{Filter: iceberg.AlwaysTrue{}, Match: rows.match}
	if f := run.TargetFilter(); f != nil {
		pred.Filter = sql.Translate(ctx, f, p.scope, args).Filter
	}
	rows.read = p.plan.TargetColumns()
	if len(rows.read) == 0 {
		rows.read = []int{0} // a batch needs a column to count its rows
	}
	for _, i := range rows.read {
		pred.Columns = append(pred.Columns, p.scope.Columns[i].Name)
	}
	opts := s.DeleteOptions(dry)
	opts.Mode = p.mode
	out, err := deletes.Merge(ctx, s.CommitTarget(), p.rt.Ident, pred, rows, opts)
	if err != nil {
		return mergeOutcome{}, nil, fmt.Errorf("merge into %s: %w", strings.Join(p.rt.Ident, "."), err)
	}
	res := mergeOutcome{MergeOutcome: out, filter: pred.Filter}
	res.inserted, res.updated, res.deleted = run.Counts()
	return res, run.Returned(), nil
}

// result answers MERGE n (rows inserted, updated and deleted; DELETE n
// and UPDATE n for those run as a MERGE), or the RETURNING rows so tagged.
func (p *mergePlan) result(out mergeOutcome, rows []arrow.RecordBatch) *stmt.Result {
	tag := fmt.Sprintf("%s %d", p.verb, out.rows(p.verb))
	cols := p.columns()
	if cols == nil {
		engine.ReleaseAll(rows)
		return stmt.TagOnly(tag)
	}
	br := engine.NewBatchRows(p.verb, rows)
	br.SetTag(tag)
	return &stmt.Result{Columns: cols, Rows: br}
}

// mergeRows is the engine's MERGE run as the delete engine drives it
// (deletes.Merger), reading target rows in the engine's types and checking
// the rows written against the table's constraints.
type mergeRows struct {
	p    *mergePlan
	run  *engine.MergeRun
	read []int // the target columns the delete engine reads, in table order
}

// widen turns a batch of the read columns (iceberg-go's types) into one of
// every target column (the engine's), NULL placeholders where nothing
// reads.
func (m *mergeRows) widen(b arrow.RecordBatch) (arrow.RecordBatch, error) {
	cb, err := lake.ToExecutorTypes(b)
	if err != nil {
		return nil, err
	}
	defer cb.Release()
	n := int(cb.NumRows())
	cols := make([]arrow.Array, len(m.p.scope.Columns))
	fields := make([]arrow.Field, len(cols))
	k := 0
	for i, c := range m.p.scope.Columns {
		if k < len(m.read) && m.read[k] == i {
			cols[i] = cb.Column(k)
			cols[i].Retain()
			k++
		} else {
			cols[i] = array.NewNull(n)
		}
		fields[i] = arrow.Field{Name: c.Name, Type: cols[i].DataType(), Nullable: true}
	}
	out := array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, int64(n))
	for _, c := range cols {
		c.Release()
	}
	return out, nil
}

func (m *mergeRows) Start() { m.run.Start() }

func (m *mergeRows) match(ctx context.Context, b arrow.RecordBatch) ([]bool, error) {
	cb, err := m.widen(b)
	if err != nil {
		return nil, err
	}
	defer cb.Release()
	return m.run.Match(ctx, cb)
}

func (m *mergeRows) Replace(ctx context.Context, old arrow.RecordBatch) (arrow.RecordBatch, []int32, error) {
	cb, err := m.widen(old)
	if err != nil {
		return nil, nil, err
	}
	defer cb.Release()
	nb, from, err := m.run.Replace(ctx, cb)
	if err != nil {
		return nil, nil, err
	}
	defer nb.Release()
	checked, err := m.checked(nb)
	return checked, from, err
}

func (m *mergeRows) Added(ctx context.Context) ([]arrow.RecordBatch, error) {
	added, err := m.run.Added(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]arrow.RecordBatch, 0, len(added))
	for _, b := range added {
		c, err := m.checked(b)
		b.Release()
		if err != nil {
			engine.ReleaseAll(out)
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

// checked enforces NOT NULL and the declared types on rows to be written.
func (m *mergeRows) checked(b arrow.RecordBatch) (arrow.RecordBatch, error) {
	for i, req := range m.p.require {
		if req && b.Column(i).NullN() > 0 {
			return nil, &pgerr.Error{Code: pgerr.NotNullViolation,
				Message: fmt.Sprintf("null value in column %q of relation %q violates not-null constraint",
					m.p.scope.Columns[i].Name, m.p.rt.Ident[len(m.p.rt.Ident)-1])}
		}
	}
	return sql.FitDeclared(b, m.p.declared)
}
