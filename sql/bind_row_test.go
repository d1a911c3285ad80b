package sql

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/magmalake/magmalake/pgerr"
)

// Row-value comparisons follow PostgreSQL's three-valued rules; the
// expected rows are worked out by hand from those rules, per row below.
func TestRowValueComparisons(t *testing.T) {
	// rows (a, b): 0:(1,'x') 1:(2,'y') 2:(1,NULL) 3:(NULL,'x') 4:(3,'z')
	as := []*int64{ptr(1), ptr(2), ptr(1), nil, ptr(3)}
	bs := []*string{sptr("x"), sptr("y"), nil, sptr("x"), sptr("z")}
	batch := rowBatch(as, bs)
	scope := &Scope{Columns: []ScopeColumn{{Name: "a", T: Int64, FieldID: 1}, {Name: "b", T: Text, FieldID: 2}}}
	for _, c := range []struct {
		where string
		want  []bool
	}{
		{"(a, b) = (1, 'x')", []bool{true, false, false, false, false}},
		// (1,NULL) <> (1,'x') is NULL; (NULL,'x') <> (1,'x') is NULL.
		{"(a, b) <> (1, 'x')", []bool{false, true, false, false, true}},
		{"(a, b) IN ((1, 'x'), (2, 'y'))", []bool{true, true, false, false, false}},
		// NOT IN: (1,NULL) vs (1,'x') is NULL, vs (2,'y') is FALSE → NULL overall.
		{"(a, b) NOT IN ((1, 'x'), (2, 'y'))", []bool{false, false, false, false, true}},
		{"(a, b) IN ((3, 'z'))", []bool{false, false, false, false, true}},
	} {
		node, err := parseExpr(c.where)
		if err != nil {
			t.Fatalf("%s: %v", c.where, err)
		}
		e, err := bindAST(node, scope, nil)
		if err != nil {
			t.Fatalf("%s: %v", c.where, err)
		}
		got, err := Match(context.Background(), e, batch, nil)
		if err != nil {
			t.Fatalf("%s: %v", c.where, err)
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Fatalf("%s: row %d matched %v, want %v (bound as %s)", c.where, i, got[i], c.want[i], e)
			}
		}
		// The Iceberg filter must keep every matching row's file.
		if tr := Translate(context.Background(), e, scope, nil); tr.Filter == nil {
			t.Fatalf("%s: no filter", c.where)
		}
	}
	for _, bad := range []struct {
		where string
		code  pgerr.Code
	}{
		{"(a, b) = (1, 'x', 2)", pgerr.SyntaxError},
		{"(a, b) < (1, 'x')", pgerr.FeatureNotSupported},
		{"(a, b) IN (1, 2)", pgerr.SyntaxError},
	} {
		node, err := parseExpr(bad.where)
		if err == nil {
			_, err = bindAST(node, scope, nil)
		}
		se, ok := err.(*pgerr.Error)
		if !ok || se.Code != bad.code {
			t.Fatalf("%s: want %s, got %v", bad.where, bad.code, err)
		}
	}
}

func ptr(v int64) *int64    { return &v }
func sptr(v string) *string { return &v }

func rowBatch(as []*int64, bs []*string) arrow.RecordBatch {
	ab := array.NewInt64Builder(memory.DefaultAllocator)
	sb := array.NewStringBuilder(memory.DefaultAllocator)
	for i := range as {
		if as[i] == nil {
			ab.AppendNull()
		} else {
			ab.Append(*as[i])
		}
		if bs[i] == nil {
			sb.AppendNull()
		} else {
			sb.Append(*bs[i])
		}
	}
	schema := arrow.NewSchema([]arrow.Field{{Name: "a", Type: arrow.PrimitiveTypes.Int64, Nullable: true}, {Name: "b", Type: arrow.BinaryTypes.String, Nullable: true}}, nil)
	return array.NewRecordBatch(schema, []arrow.Array{ab.NewArray(), sb.NewArray()}, int64(len(as)))
}
