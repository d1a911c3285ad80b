package sql

import (
	"context"
	"fmt"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql/parse"
)

type stmtTimeKey struct{}

// WithStatementTime fixes now()/current_timestamp/current_date for a
// statement; without it Eval uses the wall clock.
func WithStatementTime(ctx context.Context, t time.Time) context.Context {
	return context.WithValue(ctx, stmtTimeKey{}, t)
}

// evaluator computes expressions over one batch. Each node is evaluated for
// the rows in a selection only, so CASE, AND, OR and COALESCE skip the rows
// PostgreSQL would not evaluate (and cannot raise errors from them).
type evaluator struct {
	ctx    context.Context // checked at every node: a cancel lands within one operator's work
	batch  arrow.RecordBatch
	n      int
	params []any
	bound  map[int]any // parameter values coerced to their bound types
	now    int64       // statement time, µs since the epoch
	input  InputStyle  // how parameters and casts read text (the session's DateStyle)
	depth  int         // recursion depth, bounded by parse.MaxTreeDepth
	// subqueries holds subquery results when the statement keeps none.
	subqueries *subqueryCache
	catalog    Catalog // the session's, for catalog functions and reg* casts
	// strictFast: compileFast takes no argument of an AND or OR to the
	// general evaluator (set while the arguments of the outermost one
	// compile: see fastLogic).
	strictFast bool
}

func newEvaluator(ctx context.Context, batch arrow.RecordBatch, params []any) *evaluator {
	now, ok := ctx.Value(stmtTimeKey{}).(time.Time)
	if !ok {
		now = time.Now()
	}
	n := 1
	if batch != nil {
		n = int(batch.NumRows())
	}
	return &evaluator{ctx: ctx, batch: batch, n: n, params: params, bound: map[int]any{}, now: now.UnixMicro(), input: InputStyleOf(ctx), catalog: CatalogOf(ctx)}
}

func allRows(n int) []int {
	sel := make([]int, n)
	for i := range sel {
		sel[i] = i
	}
	return sel
}

// Eval computes e for every row of batch (whose columns follow the Scope e
// was bound in) as an array of e.Type().ArrowType(). A nil batch evaluates
// once, for SELECT without FROM. params are the $n values (stmt.Param forms).
func Eval(ctx context.Context, e Expr, batch arrow.RecordBatch, params []any) (arrow.Array, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// A plain column reference already of its Arrow type is the column:
	// join keys, window partitions and SELECT lists cost no work per value.
	if c, ok := e.(*ColumnRef); ok && batch != nil && c.Index < int(batch.NumCols()) {
		if arr := batch.Column(c.Index); arrow.TypeEqual(arr.DataType(), c.T.ArrowType()) {
			arr.Retain()
			return arr, nil
		}
	}
	if vec, ok := evalScaledBatch(ctx, e, batch); ok {
		return vec.numericText(), nil
	}
	ev := newEvaluator(ctx, batch, params)
	vals, err := ev.eval(e, allRows(ev.n))
	if err != nil {
		return nil, err
	}
	t := e.Type()
	if t.Kind == KindUnknown {
		t = Text
	}
	b := array.NewBuilder(memory.DefaultAllocator, t.ArrowType())
	defer b.Release()
	b.Reserve(len(vals))
	for _, v := range vals {
		if err := appendDatum(b, t, v); err != nil {
			return nil, err
		}
	}
	return b.NewArray(), nil
}

// EvalRow computes each of exprs once, with no input rows (a VALUES row),
// appending its value to out[i], a builder of the Arrow type Eval would
// return for exprs[i]; null reports which values were NULL. One evaluator
// serves the row, and no array is built per value, which was most of a
// one-row INSERT's allocation.
func EvalRow(ctx context.Context, exprs []Expr, params []any, out []array.Builder) (null []bool, err error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	ev := newEvaluator(ctx, nil, params)
	one := []int{0}
	null = make([]bool, len(exprs))
	for i, e := range exprs {
		vals, err := ev.eval(e, one)
		if err != nil {
			return nil, err
		}
		t := e.Type()
		if t.Kind == KindUnknown {
			t = Text
		}
		for _, v := range vals {
			null[i] = v == nil
			if err := appendDatum(out[i], t, v); err != nil {
				return nil, err
			}
		}
	}
	return null, nil
}

// RowType is the Arrow type EvalRow appends e's values as.
func RowType(e Expr) arrow.DataType {
	t := e.Type()
	if t.Kind == KindUnknown {
		t = Text
	}
	return t.ArrowType()
}

// Match is WHERE: true exactly for the rows where e is TRUE (not NULL, not FALSE).
func Match(ctx context.Context, e Expr, batch arrow.RecordBatch, params []any) ([]bool, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if e.Type().Kind != KindBool {
		return nil, pgerr.Errorf(pgerr.DatatypeMismatch, "argument of WHERE must be type boolean, not type %s", e.Type().SigName())
	}
	ev := newEvaluator(ctx, batch, params)
	if mask, ok := ev.matchFast(e); ok {
		return mask, nil
	}
	return ev.matchGeneral(e)
}

// matchGeneral is Match through the general (boxed) evaluator.
func (ev *evaluator) matchGeneral(e Expr) ([]bool, error) {
	vals, err := ev.eval(e, allRows(ev.n))
	if err != nil {
		return nil, err
	}
	out := make([]bool, len(vals))
	for i, v := range vals {
		out[i] = v == true
	}
	return out, nil
}

func (ev *evaluator) eval(e Expr, sel []int) ([]any, error) {
	if err := ev.ctx.Err(); err != nil {
		return nil, err
	}
	if ev.depth++; ev.depth > parse.MaxTreeDepth {
		return nil, parse.TooDeep(parse.MaxTreeDepth)
	}
	defer func() { ev.depth-- }()
	if len(sel) == 0 {
		return make([]any, ev.n), nil
	}
	// Operators that reuse an operand's array come first, so that a deep
	// chain of them allocates no array per level while its operands run.
	switch x := e.(type) {
	case *UnaryOp:
		return ev.evalMap1(x.X, sel, func(v any) (any, error) { return negate(v, x.T) })
	case *BinaryOp:
		return ev.evalBinary(x, sel)
	case *Compare:
		return ev.evalCompare(x, sel)
	case *Not:
		return ev.evalMap1(x.X, sel, func(v any) (any, error) { return !v.(bool), nil })
	case *Cast:
		from := x.X.Type()
		if from.Reg != RegNone || x.T.Reg != RegNone {
			return ev.evalRegCast(x, sel)
		}
		return ev.evalMap1(x.X, sel, func(v any) (any, error) {
			out, err := ev.input.castDatum(v, from, x.T)
			return roundDateTime(out, x.T, x.Round), err
		})
	}
	out := make([]any, ev.n)
	switch x := e.(type) {
	case *ColumnRef:
		if ev.batch == nil || x.Index >= int(ev.batch.NumCols()) {
			return nil, fmt.Errorf("evaluate %s: input batch has no column %d", x, x.Index)
		}
		col := ev.batch.Column(x.Index)
		for _, i := range sel {
			out[i] = DatumAt(col, x.T, i)
		}
	case *Const:
		for _, i := range sel {
			out[i] = x.Value
		}
	case *Param:
		v, err := ev.param(x)
		if err != nil {
			return nil, err
		}
		for _, i := range sel {
			out[i] = v
		}
	case *Logic:
		return ev.evalLogic(x, sel, out)
	case *IsNull:
		vals, err := ev.eval(x.X, sel)
		if err != nil {
			return nil, err
		}
		for _, i := range sel {
			out[i] = (vals[i] == nil) != x.Not
		}
	case *IsBool:
		vals, err := ev.eval(x.X, sel)
		if err != nil {
			return nil, err
		}
		for _, i := range sel {
			out[i] = (vals[i] == x.Value) != x.Not
		}
	case *Distinct:
		return ev.evalDistinct(x, sel, out)
	case *InList:
		return ev.evalIn(x, sel, out)
	case *Like:
		return ev.evalLike(x, sel, out)
	case *Case:
		return ev.evalCase(x, sel, out)
	case *Func:
		return ev.evalFunc(x, sel, out)
	case *Subquery:
		return ev.evalSubquery(x, sel, out)
	case *ArrayCompare:
		return ev.evalArrayCompare(x, sel, out)
	case *OuterRef:
		v, err := ev.outerRef(x)
		if err != nil {
			return nil, err
		}
		for _, i := range sel {
			out[i] = v
		}
	case *AggCall:
		return nil, pgerr.Errorf(pgerr.GroupingError, "aggregate %s evaluated outside aggregation", x)
	default:
		return nil, fmt.Errorf("evaluate %T: unknown expression node", e)
	}
	return out, nil
}

func (ev *evaluator) param(p *Param) (any, error) {
	if v, ok := ev.bound[p.Index]; ok {
		return v, nil
	}
	if p.Index >= len(ev.params) {
		return nil, pgerr.Errorf(pgerr.ProtocolViolation, "there is no parameter $%d", p.Index+1)
	}
	t := p.T
	if t.Kind == KindUnknown {
		t = Text
	}
	v, err := ev.input.CoerceParam(ev.params[p.Index], t)
	if err != nil {
		return nil, err
	}
	ev.bound[p.Index] = v
	return v, nil
}

// evalMap1 applies f to the non-null values of x (strict function). The
// results overwrite x's values in place: a chain of operators then keeps one
// array alive, not one per level.
func (ev *evaluator) evalMap1(x Expr, sel []int, f func(any) (any, error)) ([]any, error) {
	vals, err := ev.eval(x, sel)
	if err != nil {
		return nil, err
	}
	for _, i := range sel {
		if vals[i] == nil {
			continue
		}
		if vals[i], err = f(vals[i]); err != nil {
			return nil, err
		}
	}
	return vals, nil
}

func (ev *evaluator) evalBinary(x *BinaryOp, sel []int) ([]any, error) {
	lt, rt := x.L.Type(), x.R.Type()
	return ev.evalStrict2(x.L, x.R, sel, func(l, r any) (any, error) {
		return arith(x.Op, x.T, l, r, lt, rt)
	})
}

func (ev *evaluator) evalCompare(x *Compare, sel []int) ([]any, error) {
	lt, rt := x.L.Type(), x.R.Type()
	return ev.evalStrict2(x.L, x.R, sel, func(l, r any) (any, error) {
		c := compareDatums(x.Domain, toDomain(l, lt, x.Domain), toDomain(r, rt, x.Domain))
		return cmpHolds(x.Op, c), nil
	})
}

// evalStrict2 evaluates a strict binary operator: NULL when either operand
// is NULL, else f of the two. The results overwrite the left operand's
// values in place (see evalMap1).
func (ev *evaluator) evalStrict2(a, b Expr, sel []int, f func(l, r any) (any, error)) ([]any, error) {
	l, err := ev.eval(a, sel)
	if err != nil {
		return nil, err
	}
	r, err := ev.eval(b, sel)
	if err != nil {
		return nil, err
	}
	for _, i := range sel {
		if l[i] == nil || r[i] == nil {
			l[i] = nil
			continue
		}
		if l[i], err = f(l[i], r[i]); err != nil {
			return nil, err
		}
	}
	return l, nil
}

func cmpHolds(op CmpOp, c int) bool {
	switch op {
	case OpEQ:
		return c == 0
	case OpNE:
		return c != 0
	case OpLT:
		return c < 0
	case OpLE:
		return c <= 0
	case OpGT:
		return c > 0
	}
	return c >= 0
}

// evalLogic evaluates arguments left to right and stops per row at the first
// FALSE (AND) or TRUE (OR), as PostgreSQL's executor does.
func (ev *evaluator) evalLogic(x *Logic, sel []int, out []any) ([]any, error) {
	decisive := !x.And // AND stops at false, OR at true
	sawNull := make([]bool, ev.n)
	live := sel
	for _, a := range x.Args {
		vals, err := ev.eval(a, live)
		if err != nil {
			return nil, err
		}
		next := live[:0:0]
		for _, i := range live {
			switch vals[i] {
			case decisive:
				out[i] = decisive
			case nil:
				sawNull[i] = true
				next = append(next, i)
			default:
				next = append(next, i)
			}
		}
		live = next
	}
	for _, i := range live {
		if sawNull[i] {
			out[i] = nil
		} else {
			out[i] = !decisive
		}
	}
	return out, nil
}

func (ev *evaluator) evalDistinct(x *Distinct, sel []int, out []any) ([]any, error) {
	l, err := ev.eval(x.L, sel)
	if err != nil {
		return nil, err
	}
	r, err := ev.eval(x.R, sel)
	if err != nil {
		return nil, err
	}
	lt, rt := x.L.Type(), x.R.Type()
	for _, i := range sel {
		var same bool
		switch {
		case l[i] == nil || r[i] == nil:
			same = l[i] == nil && r[i] == nil
		default:
			same = compareDatums(x.Domain, toDomain(l[i], lt, x.Domain), toDomain(r[i], rt, x.Domain)) == 0
		}
		out[i] = same == x.Not
	}
	return out, nil
}

func (ev *evaluator) evalIn(x *InList, sel []int, out []any) ([]any, error) {
	xv, err := ev.eval(x.X, sel)
	if err != nil {
		return nil, err
	}
	items := make([][]any, len(x.List))
	for k, it := range x.List {
		if items[k], err = ev.eval(it, sel); err != nil {
			return nil, err
		}
	}
	xt := x.X.Type()
	for _, i := range sel {
		var res any = false
		for k, it := range x.List {
			v := items[k][i]
			if xv[i] == nil || v == nil {
				res = nil
				continue
			}
			d := x.Domains[k]
			if compareDatums(d, toDomain(xv[i], xt, d), toDomain(v, it.Type(), d)) == 0 {
				res = true
				break
			}
		}
		if res != nil && x.Not {
			res = !res.(bool)
		}
		out[i] = res
	}
	return out, nil
}

func (ev *evaluator) evalCase(x *Case, sel []int, out []any) ([]any, error) {
	rest := sel
	for _, w := range x.Whens {
		if len(rest) == 0 {
			break
		}
		cond, err := ev.eval(w.Cond, rest)
		if err != nil {
			return nil, err
		}
		var hit, miss []int
		for _, i := range rest {
			if cond[i] == true {
				hit = append(hit, i)
			} else {
				miss = append(miss, i)
			}
		}
		if err := ev.evalInto(w.Result, hit, out); err != nil {
			return nil, err
		}
		rest = miss
	}
	if x.Else != nil {
		if err := ev.evalInto(x.Else, rest, out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// evalInto evaluates e for sel into out; the binder already cast every
// arm to the CASE type.
func (ev *evaluator) evalInto(e Expr, sel []int, out []any) error {
	if len(sel) == 0 {
		return nil
	}
	vals, err := ev.eval(e, sel)
	if err != nil {
		return err
	}
	for _, i := range sel {
		out[i] = vals[i]
	}
	return nil
}
