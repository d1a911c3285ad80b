package sql

import (
	"fmt"
	"strings"

	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql/parse"
)

// WindowContext collects a query level's window function calls while its
// select list and ORDER BY are bound. Each call becomes a column of the
// layout the outputs are evaluated over: the input (or post-aggregation)
// columns, then one column per call from Base on.
type WindowContext struct {
	Base  int
	named map[string]*parse.WindowSpec // the query's WINDOW clause
	Calls []*WindowCall
}

// NewWindowContext starts collecting the window calls of a query level
// whose WINDOW clause is windows, numbering them from base.
func NewWindowContext(base int, windows []WindowSpec) *WindowContext {
	named := map[string]*parse.WindowSpec{}
	for _, w := range windows {
		named[w.Name] = w.spec
	}
	return &WindowContext{Base: base, named: named}
}

// FrameMode is ROWS, RANGE or GROUPS.
type FrameMode uint8

const (
	FrameRows FrameMode = iota
	FrameRange
	FrameGroups
)

// BoundKind is where a frame bound lies.
type BoundKind uint8

const (
	BoundUnboundedPreceding BoundKind = iota
	BoundPreceding
	BoundCurrentRow
	BoundFollowing
	BoundUnboundedFollowing
)

// FrameBound is one end of a window frame; Offset is set for n PRECEDING
// and n FOLLOWING.
type FrameBound struct {
	Kind   BoundKind
	Offset Expr
}

// WindowOrder is one ORDER BY key of a window.
type WindowOrder struct {
	Expr       Expr
	Desc       bool
	NullsFirst bool
}

// WindowCall is one window function call over its window.
type WindowCall struct {
	Name      string
	Args      []Expr
	Star      bool // count(*)
	Agg       bool // an aggregate computed over the frame
	Partition []Expr
	Order     []WindowOrder
	Mode      FrameMode
	Start     FrameBound
	End       FrameBound
	T         Type
	text      string
}

func (w *WindowCall) Type() Type     { return w.T }
func (w *WindowCall) String() string { return w.text }

// BindWindowed binds a select-list or ORDER BY item of a query level that
// has window functions; agg is nil for an ungrouped level.
func BindWindowed(s Syntax, input *Scope, agg *AggContext, win *WindowContext, params *Params) (Expr, error) {
	node := nodeOf(s)
	if params == nil {
		params = &Params{}
	}
	b := &binder{scope: input, params: params, agg: agg, windows: win}
	e, err := b.bind(node)
	if err != nil {
		return nil, err
	}
	return b.finish(e)
}

func (b aggBinder) bindWindow(n *parse.WindowCall) (Expr, error) {
	if b.windows == nil {
		where := "here"
		if b.clause != "" {
			where = "in " + b.clause
		}
		return nil, pgerr.Errorf(pgerr.WindowingError, "window functions are not allowed %s", where)
	}
	if b.inWindow {
		return nil, pgerr.Errorf(pgerr.WindowingError, "window function calls cannot be nested")
	}
	name := strings.ToLower(n.Name)
	if n.Distinct {
		return nil, pgerr.Errorf(pgerr.FeatureNotSupported, "DISTINCT is not implemented for window functions")
	}
	f := functions[name]
	if f == nil || f.Kind != WindowFunc && !(f.Kind == AggregateFunc && f.Windowed) {
		return nil, pgerr.Errorf(pgerr.UndefinedFunction, "function %s does not exist", name)
	}
	spec, err := b.windowSpec(&n.Spec)
	if err != nil {
		return nil, err
	}
	state := *b.binder
	state.inWindow = true
	inner := aggBinder{&state}
	call := &WindowCall{Name: name, Agg: f.Kind == AggregateFunc}
	if err := inner.bindWindowSpec(call, spec); err != nil {
		return nil, err
	}
	if err := inner.bindWindowArgs(call, n.Args); err != nil {
		return nil, err
	}
	call.text = windowText(call)
	return b.windowRef(call), nil
}

// windowSpec resolves OVER w and OVER (w ...) against the WINDOW clause.
func (b aggBinder) windowSpec(s *parse.WindowSpec) (*parse.WindowSpec, error) {
	ref := s.Ref
	if s.OnlyAlias {
		ref = s.Name
	}
	if ref == "" {
		return s, nil
	}
	base, ok := b.windows.named[ref]
	if !ok {
		return nil, pgerr.Errorf(pgerr.UndefinedObject, "window %q does not exist", ref)
	}
	if s.OnlyAlias {
		return base, nil
	}
	if s.PartitionBy != nil {
		return nil, pgerr.Errorf(pgerr.WindowingError, "cannot override PARTITION BY clause of window %q", ref)
	}
	if s.OrderBy != nil && base.OrderBy != nil {
		return nil, pgerr.Errorf(pgerr.WindowingError, "cannot override ORDER BY clause of window %q", ref)
	}
	if base.Frame != nil {
		return nil, pgerr.Errorf(pgerr.WindowingError, "cannot copy window %q because it has a frame clause", ref)
	}
	merged := *s
	merged.PartitionBy = base.PartitionBy
	if merged.OrderBy == nil {
		merged.OrderBy = base.OrderBy
	}
	return &merged, nil
}

func (b aggBinder) bindWindowSpec(call *WindowCall, s *parse.WindowSpec) error {
	if s.PartitionBy != nil {
		for _, it := range s.PartitionBy {
			e, err := b.bindTyped(it)
			if err != nil {
				return err
			}
			call.Partition = append(call.Partition, e)
		}
	}
	if s.OrderBy != nil {
		for _, it := range s.OrderBy {
			e, err := b.bindTyped(it.Expr)
			if err != nil {
				return err
			}
			o := WindowOrder{Expr: e, Desc: it.Desc, NullsFirst: it.Desc}
			if it.NullsFirst != nil {
				o.NullsFirst = *it.NullsFirst
			}
			call.Order = append(call.Order, o)
		}
	}
	call.Mode, call.Start, call.End = FrameRange, FrameBound{Kind: BoundUnboundedPreceding}, FrameBound{Kind: BoundCurrentRow}
	if s.Frame == nil {
		return nil
	}
	call.Mode = [...]FrameMode{parse.FrameRows: FrameRows, parse.FrameRange: FrameRange, parse.FrameGroups: FrameGroups}[s.Frame.Mode]
	var err error
	if call.Start, err = b.frameBound(&s.Frame.Start, true); err != nil {
		return err
	}
	if call.End, err = b.frameBound(&s.Frame.End, false); err != nil {
		return err
	}
	switch {
	case call.Start.Kind == BoundUnboundedFollowing:
		return pgerr.Errorf(pgerr.WindowingError, "frame start cannot be UNBOUNDED FOLLOWING")
	case call.End.Kind == BoundUnboundedPreceding:
		return pgerr.Errorf(pgerr.WindowingError, "frame end cannot be UNBOUNDED PRECEDING")
	case call.Start.Kind == BoundCurrentRow && call.End.Kind == BoundPreceding:
		return pgerr.Errorf(pgerr.WindowingError, "frame starting from current row cannot have preceding rows")
	case call.Start.Kind == BoundFollowing && (call.End.Kind == BoundPreceding || call.End.Kind == BoundCurrentRow):
		return pgerr.Errorf(pgerr.WindowingError, "frame starting from following row cannot have preceding rows")
	}
	if call.Mode == FrameRange && (call.Start.Offset != nil || call.End.Offset != nil) && len(call.Order) != 1 {
		return pgerr.Errorf(pgerr.WindowingError, "RANGE with offset PRECEDING/FOLLOWING requires exactly one ORDER BY column")
	}
	return nil
}

// bindTyped binds an expression and resolves an untyped one to text.
func (b aggBinder) bindTyped(n parse.Expr) (Expr, error) {
	e, err := b.bind(n)
	if err != nil {
		return nil, err
	}
	if isUnknown(e) {
		return b.coerceUnknown(e, Text)
	}
	return e, nil
}

func (b aggBinder) frameBound(fb *parse.FrameBound, start bool) (FrameBound, error) {
	switch {
	case fb.Kind == parse.BoundCurrentRow:
		return FrameBound{Kind: BoundCurrentRow}, nil
	case fb.Unbounded && fb.Kind == parse.BoundPreceding:
		return FrameBound{Kind: BoundUnboundedPreceding}, nil
	case fb.Unbounded:
		return FrameBound{Kind: BoundUnboundedFollowing}, nil
	}
	off, err := b.bindTyped(fb.Offset)
	if err != nil {
		return FrameBound{}, err
	}
	kind := BoundPreceding
	if fb.Kind == parse.BoundFollowing {
		kind = BoundFollowing
	}
	return FrameBound{Kind: kind, Offset: off}, nil
}

func (b aggBinder) bindWindowArgs(call *WindowCall, nodes []parse.Expr) error {
	if call.Agg {
		return b.bindWindowAggregate(call, nodes)
	}
	w := functions[call.Name].win
	if len(nodes) < w.minArgs || len(nodes) > w.maxArgs {
		return pgerr.Errorf(pgerr.UndefinedFunction, "function %s with %d arguments does not exist", call.Name, len(nodes))
	}
	for _, n := range nodes {
		e, err := b.bind(n)
		if err != nil {
			return err
		}
		call.Args = append(call.Args, e)
	}
	return w.bind(b.calls(), call)
}

// valueArg types the value argument of lag, lead, first_value, last_value
// and nth_value: the call returns its type.
func (b callBinder) valueArg(call *WindowCall) error {
	if isUnknown(call.Args[0]) {
		e, err := b.coerceUnknown(call.Args[0], Text)
		if err != nil {
			return err
		}
		call.Args[0] = e
	}
	call.T = call.Args[0].Type()
	return nil
}

// intArgs converts argument k, when present, to bigint: ntile's bucket
// count, lag's and lead's offset, nth_value's n.
func (b callBinder) intArgs(args []Expr, k int) error {
	if k >= len(args) {
		return nil
	}
	if kind := args[k].Type().Kind; kind != KindInt16 && kind != KindInt32 && kind != KindInt64 && !isUnknown(args[k]) {
		return pgerr.Errorf(pgerr.UndefinedFunction, "function argument %d must be an integer, not %s", k+1, args[k].Type())
	}
	vals := []Expr{args[k]}
	if err := b.coerceAll(vals, Int64); err != nil {
		return err
	}
	args[k] = vals[0]
	return nil
}

func (b aggBinder) bindWindowAggregate(call *WindowCall, nodes []parse.Expr) error {
	name := call.Name
	if f := functions[name]; f.Alias != "" {
		name = f.Alias
	}
	call.Name = name
	if len(nodes) != 1 {
		return pgerr.Errorf(pgerr.UndefinedFunction, "function %s with %d arguments does not exist", name, len(nodes))
	}
	arg, err := b.bind(nodes[0])
	if err != nil {
		return err
	}
	if c, ok := arg.(*Const); ok && name == "count" && c.Value != nil {
		call.Star = true
		call.T = Int64
		return nil
	}
	rule := aggregateRule(name)
	if isUnknown(arg) {
		if arg, err = b.coerceUnknown(arg, rule.unknownAs); err != nil {
			return err
		}
	}
	call.Args = []Expr{arg}
	call.T, err = rule.result(name, arg)
	return err
}

// windowRef registers call and returns its column of the output layout.
func (b aggBinder) windowRef(call *WindowCall) Expr {
	b.windows.Calls = append(b.windows.Calls, call)
	return &ColumnRef{Index: b.windows.Base + len(b.windows.Calls) - 1, Name: call.text, T: call.T}
}

func windowText(c *WindowCall) string {
	var args []string
	for _, a := range c.Args {
		args = append(args, a.String())
	}
	if c.Star {
		args = []string{"*"}
	}
	var over []string
	if len(c.Partition) > 0 {
		var ps []string
		for _, p := range c.Partition {
			ps = append(ps, p.String())
		}
		over = append(over, "PARTITION BY "+strings.Join(ps, ", "))
	}
	if len(c.Order) > 0 {
		var os []string
		for _, o := range c.Order {
			s := o.Expr.String()
			if o.Desc {
				s += " DESC"
			}
			os = append(os, s)
		}
		over = append(over, "ORDER BY "+strings.Join(os, ", "))
	}
	return fmt.Sprintf("%s(%s) OVER (%s)", c.Name, strings.Join(args, ", "), strings.Join(over, " "))
}
