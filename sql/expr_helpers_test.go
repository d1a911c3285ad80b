package sql

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql/parse"
)

// parseExprNode parses one expression written in the normalised form
// (__param(n), __cast(x, 'T'), ...) as the front end would hand it over.
func parseExprNode(t testing.TB, s string) parse.Expr {
	t.Helper()
	e, err := parse.InternalExpr(s)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// exprTestScope is the table the tests bind against; field ids start at 1.
func exprTestScope() *Scope {
	cols := []struct {
		name string
		t    Type
	}{
		{"id", Int64}, {"b", Int64}, {"i", Int32}, {"f", Float64}, {"n", Numeric(10, 2)},
		{"s", Text}, {"d", Date}, {"ts", Timestamp}, {"bo", Bool}, {"r", Float32},
		{"tz", TimestampTZ}, {"u", UUID}, {"v", Type{Kind: KindVarchar, Length: 5}},
	}
	sc := &Scope{}
	for k, c := range cols {
		sc.Columns = append(sc.Columns, ScopeColumn{Table: "t", Name: c.name, T: c.t, FieldID: k + 1})
	}
	return sc
}

func bindExpr(t testing.TB, s string, sc *Scope, params *Params) (Expr, error) {
	t.Helper()
	return bindAST(parseExprNode(t, s), sc, params)
}

func mustBind(t testing.TB, s string, sc *Scope) Expr {
	t.Helper()
	e, err := bindExpr(t, s, sc, nil)
	if err != nil {
		t.Fatalf("bind %q: %v", s, err)
	}
	return e
}

// buildBatch makes a batch for scope from rows of datums (or param forms).
func buildBatch(t testing.TB, sc *Scope, rows [][]any) arrow.RecordBatch {
	t.Helper()
	fields := make([]arrow.Field, len(sc.Columns))
	for k, c := range sc.Columns {
		fields[k] = arrow.Field{Name: c.Name, Type: c.T.ArrowType(), Nullable: true}
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, arrow.NewSchema(fields, nil))
	defer b.Release()
	for _, row := range rows {
		for k, c := range sc.Columns {
			var v any
			if k < len(row) {
				v = row[k]
			}
			if err := AppendValue(b.Field(k), c.T, v); err != nil {
				t.Fatalf("append %v to %s: %v", v, c.Name, err)
			}
		}
	}
	return b.NewRecordBatch()
}

func sqlCode(err error) string {
	if e, ok := err.(*pgerr.Error); ok {
		return string(e.Code)
	}
	if err != nil {
		return "go:" + err.Error()
	}
	return ""
}
