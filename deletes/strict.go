package deletes

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/apache/iceberg-go"
)

// partitionProof decides, from a data file's partition tuple alone, whether
// every row of the file satisfies a bound filter. It is a strict projection of
// the filter through the partition transforms, evaluated on one tuple: "false"
// only means "not proven", so every unknown case answers false.
type partitionProof struct {
	spec *iceberg.PartitionSpec
	part map[int]any
}

// bindStrict prepares a filter for partitionProof: NOT is pushed into the
// predicates first because a proof does not survive negation.
func bindStrict(sc *iceberg.Schema, filter iceberg.BooleanExpression, caseSensitive bool) (iceberg.BooleanExpression, error) {
	rewritten, err := iceberg.RewriteNotExpr(filter)
	if err != nil {
		return nil, fmt.Errorf("rewrite NOT in %s: %w", filter, err)
	}
	bound, err := iceberg.BindExpr(sc, rewritten, caseSensitive)
	if err != nil {
		return nil, fmt.Errorf("bind %s: %w", filter, err)
	}
	return bound, nil
}

// provesAll reports whether the partition tuple proves bound for every row.
func (p partitionProof) provesAll(bound iceberg.BooleanExpression) bool {
	ok, err := iceberg.VisitExpr[bool](bound, p)
	return err == nil && ok
}

func (p partitionProof) VisitTrue() bool                            { return true }
func (p partitionProof) VisitFalse() bool                           { return false }
func (p partitionProof) VisitNot(bool) bool                         { return false }
func (p partitionProof) VisitAnd(l, r bool) bool                    { return l && r }
func (p partitionProof) VisitOr(l, r bool) bool                     { return l || r }
func (p partitionProof) VisitUnbound(iceberg.UnboundPredicate) bool { return false }

// VisitBound proves a predicate when any partition field over its column does.
func (p partitionProof) VisitBound(pred iceberg.BoundPredicate) bool {
	if p.spec == nil {
		return false
	}
	id := pred.Ref().Field().ID
	for _, f := range p.spec.FieldsBySourceID(id) {
		if len(f.SourceIDs) != 1 {
			continue
		}
		v, present := p.part[f.FieldID]
		if present && fieldProves(f.Transform, v, pred) {
			return true
		}
	}
	return false
}

// fieldProves evaluates pred on the set of source values a partition value v
// of transform t stands for.
func fieldProves(t iceberg.Transform, v any, pred iceberg.BoundPredicate) bool {
	if _, void := t.(iceberg.VoidTransform); void {
		return false
	}
	// Every supported transform maps null to null and non-null to non-null.
	switch pred.Op() {
	case iceberg.OpIsNull:
		return v == nil
	case iceberg.OpNotNull:
		return v != nil
	}
	if v == nil {
		return false // a comparison with NULL is never true
	}
	switch t := t.(type) {
	case iceberg.IdentityTransform:
		if lo, ok := toInt64(v); ok {
			return rangeProves(lo, lo, pred)
		}
		return pointProves(v, pred)
	case iceberg.TruncateTransform:
		if lo, ok := toInt64(v); ok {
			return rangeProves(lo, lo+int64(t.Width)-1, pred)
		}
		if s, ok := v.(string); ok {
			return truncStringProves(s, t.Width, pred)
		}
	case iceberg.YearTransform, iceberg.MonthTransform, iceberg.DayTransform, iceberg.HourTransform:
		n, ok := toInt64(v)
		if !ok {
			return false
		}
		lo, hi, ok := timeRange(t, n, pred.Ref().Field().Type)
		return ok && rangeProves(lo, hi, pred)
	}
	return false
}

// timeRange is the inclusive range of source values (days for date, µs for
// timestamps) that time-transform value n covers.
func timeRange(t iceberg.Transform, n int64, src iceberg.Type) (lo, hi int64, ok bool) {
	var start, end time.Time
	switch t.(type) {
	case iceberg.YearTransform:
		start = time.Date(1970+int(n), 1, 1, 0, 0, 0, 0, time.UTC)
		end = start.AddDate(1, 0, 0)
	case iceberg.MonthTransform:
		start = time.Date(1970, time.Month(1+n), 1, 0, 0, 0, 0, time.UTC)
		end = start.AddDate(0, 1, 0)
	case iceberg.DayTransform:
		start = time.Unix(n*86400, 0).UTC()
		end = start.AddDate(0, 0, 1)
	case iceberg.HourTransform:
		start = time.Unix(n*3600, 0).UTC()
		end = start.Add(time.Hour)
	default:
		return 0, 0, false
	}
	switch src.(type) {
	case iceberg.DateType:
		if _, hour := t.(iceberg.HourTransform); hour {
			return 0, 0, false
		}
		return start.Unix() / 86400, end.Unix()/86400 - 1, true
	case iceberg.TimestampType, iceberg.TimestampTzType:
		return start.UnixMicro(), end.UnixMicro() - 1, true
	}
	return 0, 0, false
}

// rangeProves: does pred hold for every integer in [lo, hi]?
func rangeProves(lo, hi int64, pred iceberg.BoundPredicate) bool {
	switch pr := pred.(type) {
	case iceberg.BoundLiteralPredicate:
		x, ok := toInt64(pr.Literal().Any())
		if !ok {
			return false
		}
		switch pred.Op() {
		case iceberg.OpEQ:
			return lo == hi && lo == x
		case iceberg.OpNEQ:
			return x < lo || x > hi
		case iceberg.OpLT:
			return hi < x
		case iceberg.OpLTEQ:
			return hi <= x
		case iceberg.OpGT:
			return lo > x
		case iceberg.OpGTEQ:
			return lo >= x
		}
	case iceberg.BoundSetPredicate:
		lits := pr.Literals().Members()
		switch pred.Op() {
		case iceberg.OpIn:
			for _, l := range lits {
				if x, ok := toInt64(l.Any()); ok && lo == hi && x == lo {
					return true
				}
			}
			return false
		case iceberg.OpNotIn:
			for _, l := range lits {
				x, ok := toInt64(l.Any())
				if !ok || (x >= lo && x <= hi) {
					return false
				}
			}
			return true
		}
	}
	return false
}

// pointProves evaluates pred on one non-integer value (identity partitions
// of strings, floats, booleans).
func pointProves(v any, pred iceberg.BoundPredicate) bool {
	if f, ok := toFloat(v); ok && math.IsNaN(f) {
		return pred.Op() == iceberg.OpIsNan
	}
	switch pred.Op() {
	case iceberg.OpNotNan:
		_, isFloat := toFloat(v)
		return isFloat
	case iceberg.OpIsNan:
		return false
	}
	switch pr := pred.(type) {
	case iceberg.BoundLiteralPredicate:
		return literalHolds(v, pred.Op(), pr.Literal().Any())
	case iceberg.BoundSetPredicate:
		in := false
		for _, l := range pr.Literals().Members() {
			c, ok := compareValues(v, l.Any())
			if !ok {
				return false
			}
			in = in || c == 0
		}
		return in == (pred.Op() == iceberg.OpIn)
	}
	return false
}

func literalHolds(v any, op iceberg.Operation, lit any) bool {
	if op == iceberg.OpStartsWith || op == iceberg.OpNotStartsWith {
		s, ok1 := v.(string)
		prefix, ok2 := lit.(string)
		return ok1 && ok2 && strings.HasPrefix(s, prefix) == (op == iceberg.OpStartsWith)
	}
	c, ok := compareValues(v, lit)
	if !ok {
		return false
	}
	switch op {
	case iceberg.OpEQ:
		return c == 0
	case iceberg.OpNEQ:
		return c != 0
	case iceberg.OpLT:
		return c < 0
	case iceberg.OpLTEQ:
		return c <= 0
	case iceberg.OpGT:
		return c > 0
	case iceberg.OpGTEQ:
		return c >= 0
	}
	return false
}

// truncStringProves handles truncate(W) of strings: a value shorter than W is
// the source value itself; a value of length W is a prefix of it.
func truncStringProves(s string, width int, pred iceberg.BoundPredicate) bool {
	if len([]rune(s)) < width {
		return pointProves(s, pred)
	}
	lp, ok := pred.(iceberg.BoundLiteralPredicate)
	if !ok || pred.Op() != iceberg.OpStartsWith {
		return false
	}
	prefix, ok := lp.Literal().Any().(string)
	return ok && len([]rune(prefix)) <= width && strings.HasPrefix(s, prefix)
}

func compareValues(a, b any) (int, bool) {
	switch x := a.(type) {
	case string:
		y, ok := b.(string)
		if !ok {
			return 0, false
		}
		return strings.Compare(x, y), true
	case bool:
		y, ok := b.(bool)
		if !ok {
			return 0, false
		}
		switch {
		case x == y:
			return 0, true
		case !x:
			return -1, true
		}
		return 1, true
	}
	x, ok1 := toFloat(a)
	y, ok2 := toFloat(b)
	if !ok1 || !ok2 || math.IsNaN(y) {
		return 0, false
	}
	switch {
	case x < y:
		return -1, true
	case x > y:
		return 1, true
	}
	return 0, true
}

func toFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case float32:
		return float64(x), true
	case float64:
		return x, true
	}
	return 0, false
}

// toInt64 accepts the Go types partition tuples and literals carry for
// integer-like Iceberg types (int, long, date, time, timestamp).
func toInt64(v any) (int64, bool) {
	switch x := v.(type) {
	case int32:
		return int64(x), true
	case int64:
		return x, true
	case int:
		return int64(x), true
	case iceberg.Date:
		return int64(x), true
	case iceberg.Timestamp:
		return int64(x), true
	case iceberg.Time:
		return int64(x), true
	}
	return 0, false
}
