package engine

import (
	"context"
	"fmt"
	"iter"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/iceberg-go"

	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/plan"
	"github.com/magmalake/magmalake/sql"
)

// MergePlan is a bound MERGE: the source planned as a FROM item, the
// target joined to it by the ON condition (hash keys and a residual, as
// any join), and the WHEN clauses bound over the joined row.
type MergePlan struct {
	env      *Env
	target   *sql.Scope
	table    string // the target's name, for messages
	join     *joinSource
	clauses  []mergeClause
	bySource bool // some clause is WHEN NOT MATCHED BY SOURCE: every target row is a candidate
	inserts  bool // some clause is WHEN NOT MATCHED: every source row counts, joined or not
	anyMatch bool // sql.Merge.AnyMatch
	// targetOnly are the ON conjuncts that read only target columns: a
	// target row failing one joins nothing.
	targetOnly []sql.Expr
	// returning is bound over the joined scope plus merge_action().
	returning []sql.Expr
	names     []string
	nodes     map[source]plan.Node // the source's plan nodes, for EXPLAIN's estimates
}

// mergeClause is one bound WHEN clause.
type mergeClause struct {
	when   sql.MergeWhen
	action sql.MergeAction
	condE  sql.Expr // the AND condition; nil: always
	// values is the row UPDATE or INSERT writes, one per target column,
	// over the joined scope.
	values []sql.Expr
}

// ErrVolatileMerge refuses what would let the pass that picks a target row
// and the one that rewrites it disagree: the delete engine looks at a
// changed row twice.
var ErrVolatileMerge = pgerr.Errorf(pgerr.FeatureNotSupported, "volatile functions in MERGE's ON and WHEN conditions are not supported")

// mergeActionQualifier qualifies the hidden column merge_action() reads; no
// relation can be named so.
const mergeActionQualifier = "\x00merge"

// PlanMerge binds st over the target (target: every table column, qualified
// by its alias or name; table: its name) and the source it plans.
func PlanMerge(ctx context.Context, env *Env, st *sql.Merge, target *sql.Scope, table string, params *sql.Params) (*MergePlan, error) {
	if params == nil {
		params = &sql.Params{}
	}
	env.Binds.add()
	b := plan.NewBuilder(ctx, env.PlanEnv(), params)
	prev := params.Subqueries
	params.Subqueries = b
	defer func() { params.Subqueries = prev }()
	if st.With != nil {
		if err := b.PushWith(st.With); err != nil {
			return nil, err
		}
		defer b.PopWith()
	}
	src, err := b.Source(st.Source)
	if err != nil {
		return nil, err
	}
	if err := distinctNames(target, src.Scope(), st.AnyMatch); err != nil {
		return nil, err
	}
	m := &MergePlan{env: env, target: target, table: table}
	lj := plan.NewJoin(&plan.Given{Sc: target}, src, plan.JoinInner)
	joined := lj.Sc
	on, err := bindMergeOn(st.On, joined, params)
	if err != nil {
		return nil, err
	}
	lj.SetCondition(on)
	// The source is compiled once its plan is final (placeConjuncts).
	m.join = &joinSource{Join: lj, left: &scopeOnly{sc: target}, env: env}
	m.anyMatch = st.AnyMatch
	for _, cl := range st.Clauses {
		bc, err := m.bindClause(cl, joined, params)
		if err != nil {
			return nil, err
		}
		m.bySource = m.bySource || cl.When == sql.MergeNotMatchedBySource
		m.inserts = m.inserts || cl.When == sql.MergeNotMatched
		m.clauses = append(m.clauses, bc)
	}
	m.placeConjuncts(on)
	if len(st.Returning) > 0 {
		if err := m.bindReturning(st.Returning, joined, params); err != nil {
			return nil, err
		}
	}
	m.skipUnread()
	c := newCompiler(env)
	m.join.right = c.source(lj.Right)
	m.nodes = c.nodes
	c.subqueries(b.Subqueries())
	return m, nil
}

// TargetColumns are the target columns the MERGE reads (ON, WHEN, SET,
// kept columns of updated rows, RETURNING), in table order: the delete
// engine reads only these of the candidate files, and the target batches
// handed to Match and Replace hold only them.
func (m *MergePlan) TargetColumns() []int {
	nt := len(m.target.Columns)
	used := map[int]bool{}
	sql.CollectColumns(m.join.Cond, used)
	for _, cl := range m.clauses {
		if cl.condE != nil {
			sql.CollectColumns(cl.condE, used)
		}
		if cl.action == sql.MergeUpdate {
			for _, v := range cl.values {
				sql.CollectColumns(v, used)
			}
		}
	}
	for _, e := range m.returning {
		sql.CollectColumns(e, used)
	}
	var out []int
	for i := 0; i < nt; i++ {
		if used[i] {
			out = append(out, i)
		}
	}
	return out
}

// skipUnread makes the joined rows carry NULL placeholders for the target
// columns nothing reads: their batches come without them.
func (m *MergePlan) skipUnread() {
	m.join.Skip = make([]bool, len(m.join.Sc.Columns))
	for i := range m.target.Columns {
		m.join.Skip[i] = true
	}
	for _, i := range m.TargetColumns() {
		m.join.Skip[i] = false
	}
}

// bindMergeOn binds the ON condition (nil: TRUE) over the joined row.
func bindMergeOn(n sql.Syntax, joined *sql.Scope, params *sql.Params) (sql.Expr, error) {
	if n == nil {
		return &sql.Const{Value: true, T: sql.Bool}, nil
	}
	if sql.HasAggregate(n) {
		return nil, pgerr.Errorf(pgerr.GroupingError, "aggregate functions are not allowed in JOIN conditions")
	}
	on, err := sql.BindCondition(n, joined, params, "JOIN/ON")
	if err != nil {
		return nil, err
	}
	if plan.HasVolatile(on) {
		return nil, ErrVolatileMerge
	}
	return on, nil
}

// placeConjuncts puts the ON conjuncts that read one side to work before
// the join: target-only ones prune the target's files (TargetFilter);
// source-only ones filter the source before it is hashed, and settle the
// joins inside it (DELETE ... USING a, b WHERE a.k = b.k), unless NOT
// MATCHED clauses must see every source row. The join still checks them.
func (m *MergePlan) placeConjuncts(on sql.Expr) {
	nt := len(m.target.Columns)
	conj := []sql.Expr{on}
	if l, ok := on.(*sql.Logic); ok && l.And {
		conj = l.Args
	}
	for _, c := range conj {
		if plan.HasSubquery(c) {
			continue
		}
		cols := map[int]bool{}
		sql.CollectColumns(c, cols)
		target, source := false, false
		for i := range cols {
			target, source = target || i < nt, source || i >= nt
		}
		switch {
		case target && !source:
			m.targetOnly = append(m.targetOnly, c)
		case source && !target && !m.inserts:
			shift := map[int]int{}
			for i := range cols {
				shift[i] = i - nt
			}
			rc := sql.RemapColumns(c, shift)
			if !plan.PlaceConjunct(m.join.Right, rc) {
				m.join.RFilter = plan.AndAfter(m.join.RFilter, rc)
			}
		}
	}
}

// distinctNames refuses a source that takes the target's qualifier, as
// PostgreSQL does (in its words for MERGE, and for DELETE ... USING and
// UPDATE ... FROM, which run as one: dml).
func distinctNames(target, src *sql.Scope, dml bool) error {
	q := plan.QualifierOf(target)
	for _, c := range src.Columns {
		if c.Table != q || q == "" {
			continue
		}
		if dml {
			return pgerr.Errorf(pgerr.DuplicateAlias, "table name %q specified more than once", q)
		}
		return &pgerr.Error{Code: pgerr.DuplicateAlias, Message: fmt.Sprintf("name %q specified more than once", q),
			Detail: "The name is used both as MERGE target table and data source."}
	}
	return nil
}

// bindClause binds one WHEN clause: its condition and its row over the
// joined scope, refusing references to the side a clause has no row of.
func (m *MergePlan) bindClause(cl sql.MergeClause, joined *sql.Scope, params *sql.Params) (mergeClause, error) {
	bc := mergeClause{when: cl.When, action: cl.Action}
	if cl.Cond != nil {
		if sql.HasAggregate(cl.Cond) {
			return bc, pgerr.Errorf(pgerr.GroupingError, "aggregate functions are not allowed in MERGE WHEN conditions")
		}
		e, err := sql.BindCondition(cl.Cond, joined, params, "WHEN")
		if err != nil {
			return bc, err
		}
		if err := m.sideOnly(cl.When, e, joined); err != nil {
			return bc, err
		}
		if plan.HasVolatile(e) {
			return bc, ErrVolatileMerge
		}
		bc.condE = e
	}
	var err error
	switch cl.Action {
	case sql.MergeUpdate:
		bc.values, err = m.bindUpdate(cl, joined, params)
	case sql.MergeInsert:
		bc.values, err = m.bindInsert(cl, joined, params)
	}
	return bc, err
}

// sideOnly checks that an expression of a NOT MATCHED clause reads no
// target column, and one of a NOT MATCHED BY SOURCE clause no source
// column: that side has no row there.
func (m *MergePlan) sideOnly(when sql.MergeWhen, e sql.Expr, joined *sql.Scope) error {
	if when == sql.MergeMatched || e == nil {
		return nil
	}
	nt := len(m.target.Columns)
	cols := map[int]bool{}
	sql.CollectColumns(e, cols)
	for i := range cols {
		if (when == sql.MergeNotMatched) == (i < nt) {
			return &pgerr.Error{Code: pgerr.UndefinedTable,
				Message: fmt.Sprintf("invalid reference to FROM-clause entry for table %q", joined.Columns[i].Table),
				Detail:  fmt.Sprintf("There is an entry for table %q, but it cannot be referenced from this part of the query.", joined.Columns[i].Table)}
		}
	}
	return nil
}

// bindUpdate binds UPDATE SET: assigned columns take their value, the
// others keep the old one.
func (m *MergePlan) bindUpdate(cl sql.MergeClause, joined *sql.Scope, params *sql.Params) ([]sql.Expr, error) {
	values := make([]sql.Expr, len(m.target.Columns))
	for _, a := range cl.Set {
		idx := m.targetColumn(a.Column)
		if idx < 0 {
			e := sql.UndefinedColumn("", a.Column)
			e.Message = fmt.Sprintf("column %q of relation %q does not exist", a.Column, m.table)
			return nil, e
		}
		if values[idx] != nil {
			return nil, pgerr.Errorf(pgerr.SyntaxError, "multiple assignments to same column %q", a.Column)
		}
		if sql.HasAggregate(a.Value) {
			return nil, pgerr.Errorf(pgerr.GroupingError, "aggregate functions are not allowed in UPDATE")
		}
		e, err := m.bindValue(cl.When, a.Value, joined, idx, params)
		if err != nil {
			return nil, err
		}
		values[idx] = e
	}
	for i, c := range m.target.Columns {
		if values[i] == nil {
			values[i] = &sql.ColumnRef{Index: i, Table: c.Table, Name: c.Name, T: c.T, FieldID: c.FieldID}
		}
	}
	return values, nil
}

// bindInsert binds INSERT [(cols)] VALUES (...): unnamed columns are NULL.
func (m *MergePlan) bindInsert(cl sql.MergeClause, joined *sql.Scope, params *sql.Params) ([]sql.Expr, error) {
	cols := make([]int, 0, len(m.target.Columns))
	if cl.Columns == nil {
		for i := range m.target.Columns {
			cols = append(cols, i)
		}
	} else {
		seen := map[int]bool{}
		for _, name := range cl.Columns {
			idx := m.targetColumn(name)
			if idx < 0 {
				e := sql.UndefinedColumn("", name)
				e.Message = fmt.Sprintf("column %q of relation %q does not exist", name, m.table)
				return nil, e
			}
			if seen[idx] {
				return nil, pgerr.Errorf(pgerr.DuplicateColumn, "column %q specified more than once", name)
			}
			seen[idx] = true
			cols = append(cols, idx)
		}
	}
	switch {
	case cl.Values == nil: // DEFAULT VALUES
		cols = nil
	case len(cl.Values) > len(cols):
		return nil, pgerr.Errorf(pgerr.SyntaxError, "INSERT has more expressions than target columns")
	case len(cl.Values) < len(cols) && cl.Columns != nil:
		return nil, pgerr.Errorf(pgerr.SyntaxError, "INSERT has more target columns than expressions")
	}
	values := make([]sql.Expr, len(m.target.Columns))
	for k, n := range cl.Values {
		if sql.HasAggregate(n) {
			return nil, pgerr.Errorf(pgerr.GroupingError, "aggregate functions are not allowed in VALUES")
		}
		idx := cols[k]
		e, err := m.bindValue(cl.When, n, joined, idx, params)
		if err != nil {
			return nil, err
		}
		values[idx] = e
	}
	for i, c := range m.target.Columns {
		if values[i] == nil {
			d, err := c.DefaultValue()
			if err != nil {
				return nil, err
			}
			values[i] = d
		}
	}
	return values, nil
}

// bindValue binds a value stored into target column idx, over the side of
// the joined row the clause has.
func (m *MergePlan) bindValue(when sql.MergeWhen, n sql.Syntax, joined *sql.Scope, idx int, params *sql.Params) (sql.Expr, error) {
	e, err := sql.BindAssigned(n, joined, m.target.Columns[idx], params)
	if err != nil {
		return nil, err
	}
	return e, m.sideOnly(when, e, joined)
}

func (m *MergePlan) targetColumn(name string) int {
	for i, c := range m.target.Columns {
		if c.Name == name {
			return i
		}
	}
	return -1
}

// bindReturning binds RETURNING over the joined row (the target's columns
// holding the new row, the old one for DELETE) and merge_action().
func (m *MergePlan) bindReturning(items []sql.SelectItem, joined *sql.Scope, params *sql.Params) error {
	sc := &sql.Scope{Aliased: joined.Aliased, Columns: append(append([]sql.ScopeColumn(nil), joined.Columns...),
		sql.ScopeColumn{Table: mergeActionQualifier, Name: "merge_action", T: sql.Text, Hidden: true})}
	nodes, names, err := plan.ExpandItems(items, joined)
	if err != nil {
		return err
	}
	for _, n := range nodes {
		if sql.HasAggregate(n) {
			return pgerr.Errorf(pgerr.GroupingError, "aggregate functions are not allowed in RETURNING")
		}
		e, err := sql.Bind(withMergeAction(n), sc, params)
		if err != nil {
			return err
		}
		m.returning = append(m.returning, e)
	}
	m.names = names
	return nil
}

// withMergeAction turns merge_action() calls into reads of the hidden
// column that holds each row's action.
func withMergeAction(n sql.Syntax) sql.Syntax {
	return sql.ReplaceCalls(n, "merge_action", mergeActionQualifier, "merge_action")
}

// Columns describe the RETURNING rows; nil without RETURNING.
func (m *MergePlan) Columns() []sql.Column {
	if m.returning == nil {
		return nil
	}
	cols := make([]sql.Column, len(m.returning))
	for i, e := range m.returning {
		cols[i] = sql.Column{Name: m.names[i], Type: e.Type()}
	}
	return cols
}

// scopeOnly stands for the MERGE target in the join: its rows come from the
// delete engine's pass over the target's files, not from a scan here.
type scopeOnly struct{ sc *sql.Scope }

func (s *scopeOnly) scope() *sql.Scope { return s.sc }

func (s *scopeOnly) batches(context.Context, iceberg.BooleanExpression, []any) (iter.Seq2[arrow.RecordBatch, error], error) {
	return nil, fmt.Errorf("the MERGE target is read by the delete engine")
}

// Explain describes the join of the target with the source (a child of
// the statement's node) and the WHEN clauses.
func (m *MergePlan) Explain(ctx context.Context, params []any) []ExplainProp {
	j := m.join
	n := node("Nested Loop", "Nested Loop (every target row against every source row)")
	if len(j.LKeys) > 0 {
		n = node("Hash Join", "Hash Join (source hashed, target rows probe it)")
		cond := hashCond(j)
		n.Prop("Hash Cond", cond, "  Hash Cond: "+cond)
	}
	if j.Residual != nil {
		n.Prop("Join Filter", j.Residual.String(), "  Join Filter: "+j.Residual.String())
	}
	n.Props = append(n.Props, ExplainProp{Key: "Source", Text: "  Source:", Plan: describeSource(ctx, j.right, params, m.nodes)})
	props := []ExplainProp{{Plan: n}}
	var clauses []string
	for _, cl := range m.clauses {
		clauses = append(clauses, cl.describe())
	}
	if len(clauses) > 0 {
		props = append(props, ExplainProp{Key: "When Clauses", Value: clauses, Text: "  " + strings.Join(clauses, "\n  ")})
	}
	return props
}

func (c mergeClause) describe() string {
	when := map[sql.MergeWhen]string{sql.MergeMatched: "WHEN MATCHED", sql.MergeNotMatched: "WHEN NOT MATCHED",
		sql.MergeNotMatchedBySource: "WHEN NOT MATCHED BY SOURCE"}[c.when]
	if c.condE != nil {
		when += " AND " + c.condE.String()
	}
	return when + " THEN " + c.action.String()
}
