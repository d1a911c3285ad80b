package deletes

import (
	"github.com/apache/iceberg-go"
)

// metricsProof proves a predicate for every row of one data file from the
// file's column statistics. Only integer-like columns (int, long, date,
// time, timestamp) whose recorded null count is zero take part: their
// bounds are exact (Iceberg truncates only strings and binaries) and they
// hold no NaN, so every value lies in [lower, upper]. Anything else proves
// nothing: PyIceberg #3498/#3521 and iceberg-go #1103/#1106 dropped rows by
// trusting the bounds of columns with nulls or NaNs.
type metricsProof struct {
	df iceberg.DataFile
}

func (m metricsProof) provesAll(bound iceberg.BooleanExpression) bool {
	ok, err := iceberg.VisitExpr[bool](bound, m)
	return err == nil && ok
}

func (m metricsProof) VisitTrue() bool                            { return true }
func (m metricsProof) VisitFalse() bool                           { return false }
func (m metricsProof) VisitNot(bool) bool                         { return false }
func (m metricsProof) VisitAnd(l, r bool) bool                    { return l && r }
func (m metricsProof) VisitOr(l, r bool) bool                     { return l || r }
func (m metricsProof) VisitUnbound(iceberg.UnboundPredicate) bool { return false }

func (m metricsProof) VisitBound(pred iceberg.BoundPredicate) bool {
	field := pred.Ref().Field()
	nulls, known := m.df.NullValueCounts()[field.ID]
	if !known || nulls != 0 || m.df.Count() == 0 {
		return false
	}
	if pred.Op() == iceberg.OpNotNull {
		return true
	}
	if !integerLike(field.Type) {
		return false
	}
	lo, okLo := boundInt(field.Type, m.df.LowerBoundValues()[field.ID])
	hi, okHi := boundInt(field.Type, m.df.UpperBoundValues()[field.ID])
	return okLo && okHi && lo <= hi && rangeProves(lo, hi, pred)
}

func integerLike(t iceberg.Type) bool {
	switch t.(type) {
	case iceberg.Int32Type, iceberg.Int64Type, iceberg.DateType, iceberg.TimeType,
		iceberg.TimestampType, iceberg.TimestampTzType:
		return true
	}
	return false
}

// boundInt decodes a serialized lower or upper bound of an integer-like column.
func boundInt(t iceberg.Type, b []byte) (int64, bool) {
	if len(b) == 0 {
		return 0, false
	}
	lit, err := iceberg.LiteralFromBytes(t, b)
	if err != nil {
		return 0, false
	}
	return toInt64(lit.Any())
}
