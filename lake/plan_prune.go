package lake

import (
	"math"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
)

// planPruner decides which manifests and data files a filter may need, for
// PlanFiles. It judges with the row-group evaluator (groupEval), fed from
// manifest metadata instead of Parquet footers: partition summaries for a
// manifest, the column metrics of a manifest entry for a data file. Every
// doubt keeps: an error building a projection, a bound that does not decode
// (a column promoted since the file was written keeps the narrower
// encoding), a missing statistic.
type planPruner struct {
	meta   table.Metadata
	schema *iceberg.Schema
	filter iceberg.BooleanExpression // bound to schema, NOT rewritten away; nil: keep everything
	specs  map[int32]*specPruner     // by partition spec id, built on first use
	ids    map[int]int               // every field id of schema, to itself (groupEval's "columns")
	sets   *literalSets              // the filter's IN lists, sorted once
}

// specPruner is the filter projected onto one partition spec.
type specPruner struct {
	partType *iceberg.StructType
	expr     iceberg.BooleanExpression              // bound to the partition fields; nil: keep everything
	eval     func(iceberg.StructLike) (bool, error) // expr over a partition tuple
	fields   map[int]int                            // partition field id -> position
}

func newPlanPruner(meta table.Metadata, sc *iceberg.Schema, filter iceberg.BooleanExpression, caseSensitive bool) *planPruner {
	p := &planPruner{meta: meta, schema: sc, specs: map[int32]*specPruner{}, sets: &literalSets{}}
	if filter == nil {
		return p
	}
	if _, ok := filter.(iceberg.AlwaysTrue); ok {
		return p
	}
	rewritten, err := iceberg.RewriteNotExpr(filter)
	if err != nil {
		return p
	}
	bound, err := iceberg.BindExpr(sc, rewritten, caseSensitive)
	if err != nil {
		return p
	}
	p.filter = bound
	p.ids = map[int]int{}
	for _, f := range sc.Fields() {
		p.addIDs(f)
	}
	return p
}

func (p *planPruner) addIDs(f iceberg.NestedField) {
	p.ids[f.ID] = f.ID
	if st, ok := f.Type.(*iceberg.StructType); ok {
		for _, c := range st.FieldList {
			p.addIDs(c)
		}
	}
}

// spec is the filter projected onto partition spec id (nil: keep all).
func (p *planPruner) spec(id int32) *specPruner {
	if sp, ok := p.specs[id]; ok {
		return sp
	}
	sp := p.project(id)
	p.specs[id] = sp
	return sp
}

func (p *planPruner) project(id int32) *specPruner {
	spec := p.meta.PartitionSpecByID(int(id))
	if spec == nil || spec.NumFields() == 0 {
		return nil
	}
	projected, err := iceberg.VisitExpr(p.filter, &inclusiveProjection{spec: *spec})
	if err != nil {
		return nil
	}
	if _, ok := projected.(iceberg.AlwaysTrue); ok {
		return nil
	}
	partType := spec.PartitionType(p.schema)
	partSchema := iceberg.NewSchema(0, partType.FieldList...)
	bound, err := iceberg.BindExpr(partSchema, projected, true)
	if err != nil {
		return nil
	}
	eval, err := iceberg.ExpressionEvaluator(partSchema, projected, true)
	if err != nil {
		return nil
	}
	sp := &specPruner{partType: partType, expr: bound, eval: eval, fields: map[int]int{}}
	for i, f := range partType.FieldList {
		sp.fields[f.ID] = i
	}
	return sp
}

// manifestMayMatch: mf's partition summaries allow a row of the filter.
func (p *planPruner) manifestMayMatch(mf iceberg.ManifestFile) bool {
	if p.filter == nil {
		return true
	}
	sp := p.spec(mf.PartitionSpecID())
	if sp == nil {
		return true
	}
	sums := mf.Partitions()
	if len(sums) != len(sp.partType.FieldList) {
		return true
	}
	stats := func(col int, typ iceberg.Type, _ bool) colStats { return summaryStats(sums[col], typ) }
	v, err := iceberg.VisitExpr(sp.expr, &groupEval{stats: stats, cols: fileColumns{leaf: sp.fields}, sets: p.sets})
	return err != nil || v.might
}

// fileMayMatch: df's partition and column metrics allow a row of the
// filter.
func (p *planPruner) fileMayMatch(df iceberg.DataFile, mm *manifestMetrics, i int) bool {
	if p.filter == nil {
		return true
	}
	if sp := p.spec(df.SpecID()); sp != nil {
		ok, err := sp.eval(table.GetPartitionRecord(df, sp.partType))
		if err == nil && !ok {
			return false
		}
	}
	var m *fileMetrics // read on first use: iceberg-go copies the maps at every call
	stats := func(id int, typ iceberg.Type, _ bool) colStats {
		if m == nil {
			m = mm.of(i, df)
		}
		return m.stats(id, typ)
	}
	v, err := iceberg.VisitExpr(p.filter, &groupEval{stats: stats, cols: fileColumns{leaf: p.ids}, sets: p.sets})
	return err != nil || v.might
}

// summaryStats reads a partition field summary: whether a null is among
// the manifest's values, and their bounds. A summary says nothing of how
// many rows there are, so it never proves every value null.
func summaryStats(s iceberg.FieldSummary, typ iceberg.Type) colStats {
	cs := colStats{typ: typ, rows: math.MaxInt64, nulls: -1, noNaN: !isFloatType(typ)}
	if !s.ContainsNull {
		cs.nulls = 0
	}
	if s.ContainsNaN != nil && !*s.ContainsNaN {
		cs.noNaN = true
	}
	if s.LowerBound != nil && s.UpperBound != nil {
		cs.lo, cs.hi = boundLiteral(typ, *s.LowerBound), boundLiteral(typ, *s.UpperBound)
		if cs.lo == nil || cs.hi == nil {
			cs.lo, cs.hi = nil, nil
		}
	}
	return cs
}

// fileMetrics are a data file's column metrics.
type fileMetrics struct {
	count               int64
	values, nulls, nans map[int]int64
	lo, hi              map[int][]byte
}

func metricsOf(df iceberg.DataFile) *fileMetrics {
	return &fileMetrics{count: df.Count(), values: df.ValueCounts(), nulls: df.NullValueCounts(),
		nans: df.NaNValueCounts(), lo: df.LowerBoundValues(), hi: df.UpperBoundValues()}
}

// stats reads the metrics of field id. Upper bounds of strings and
// binaries may be truncated (and then raised), so values that start with
// one may lie above it.
func (m *fileMetrics) stats(id int, typ iceberg.Type) colStats {
	cs := colStats{typ: typ, rows: m.count, nulls: -1, noNaN: !isFloatType(typ)}
	if n, ok := m.values[id]; ok {
		cs.rows = n
	}
	if n, ok := m.nulls[id]; ok {
		cs.nulls = n
	}
	if n, ok := m.nans[id]; ok && n == 0 {
		cs.noNaN = true
	}
	lo, okLo := m.lo[id]
	hi, okHi := m.hi[id]
	if okLo && okHi {
		cs.lo, cs.hi = boundLiteral(typ, lo), boundLiteral(typ, hi)
		if cs.lo == nil || cs.hi == nil {
			cs.lo, cs.hi = nil, nil
		}
		switch typ.(type) {
		case iceberg.StringType, iceberg.BinaryType:
			cs.hiPrefix = true
		}
	}
	return cs
}

// boundLiteral decodes a single-value serialized bound of type typ; nil
// when it does not decode as typ or is NaN (which bounds nothing).
func boundLiteral(typ iceberg.Type, b []byte) iceberg.Literal {
	if b == nil {
		return nil
	}
	lit, err := iceberg.LiteralFromBytes(typ, b)
	if err != nil || isNaNLiteral(lit) {
		return nil
	}
	return lit
}

// inclusiveProjection turns a bound, NOT-free filter on table columns into
// one on a spec's partition values that holds for the partition of every
// row the filter holds for: each predicate becomes the conjunction of its
// projections through the partition fields of its column (none: true).
type inclusiveProjection struct{ spec iceberg.PartitionSpec }

func (*inclusiveProjection) VisitTrue() iceberg.BooleanExpression  { return iceberg.AlwaysTrue{} }
func (*inclusiveProjection) VisitFalse() iceberg.BooleanExpression { return iceberg.AlwaysFalse{} }
func (*inclusiveProjection) VisitNot(iceberg.BooleanExpression) iceberg.BooleanExpression {
	return iceberg.AlwaysTrue{} // none after RewriteNotExpr; unsure, so keep
}
func (*inclusiveProjection) VisitAnd(l, r iceberg.BooleanExpression) iceberg.BooleanExpression {
	return iceberg.NewAnd(l, r)
}
func (*inclusiveProjection) VisitOr(l, r iceberg.BooleanExpression) iceberg.BooleanExpression {
	return iceberg.NewOr(l, r)
}
func (*inclusiveProjection) VisitUnbound(iceberg.UnboundPredicate) iceberg.BooleanExpression {
	return iceberg.AlwaysTrue{}
}

func (p *inclusiveProjection) VisitBound(pred iceberg.BoundPredicate) iceberg.BooleanExpression {
	ref, ok := pred.Term().(iceberg.BoundReference)
	if !ok {
		return iceberg.AlwaysTrue{}
	}
	var out iceberg.BooleanExpression = iceberg.AlwaysTrue{}
	for _, pf := range p.spec.FieldsBySourceID(ref.Field().ID) {
		projected, err := pf.Transform.Project(pf.Name, pred)
		if err != nil || projected == nil {
			continue
		}
		out = iceberg.NewAnd(out, projected)
	}
	return out
}
