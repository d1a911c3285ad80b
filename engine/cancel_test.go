package engine

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/plan"
	"github.com/magmalake/magmalake/sql"
)

// lookingContext is cancelled from its (n+1)-th look on: a loop that looks
// at its context at a bounded interval ends with 57014, one that looks only
// before it starts runs to its end.
type lookingContext struct {
	context.Context
	left int
}

func (c *lookingContext) Err() error {
	if c.left <= 0 {
		return context.Canceled
	}
	c.left--
	return nil
}

// isCanceled: 57014, or the context's error as the expression evaluator
// returns it (the session maps it to 57014).
func isCanceled(err error) bool {
	var se *pgerr.Error
	return errors.As(err, &se) && se.Code == pgerr.QueryCanceled || errors.Is(err, context.Canceled)
}

// TestJoinBuildStopsBetweenChunks: a hash join's build side is indexed a
// chunk at a time, looking at the context between chunks, for every key
// representation. The build side of issue 48's join (9 million rows of
// numeric keys, each encoded as a rational's text) took 12 s in one call.
func TestJoinBuildStopsBetweenChunks(t *testing.T) {
	const n, size = 10000, 1000
	cases := []struct {
		typ  sql.Type
		kind joinKeyKind
		val  func(i int) any
	}{
		{sql.Int64, keyInt, func(i int) any { return int64(i % 97) }},
		{sql.Text, keyText, func(i int) any { return fmt.Sprintf("k%d", i%97) }},
		{sql.Numeric(12, 2), keyWide, func(i int) any { return sql.Decimal{Coef: decimalCoef(i % 97), Scale: 2} }},
		{sql.Numeric(12, 2), keyEncoded, func(i int) any { return sql.Decimal{Coef: decimalCoef(i % 97), Scale: 2} }},
	}
	for _, c := range cases {
		rows := oneColumnBatch(t, c.typ, n, c.val)
		for _, looks := range []int{0, 3, n/size - 1} {
			r := &joinRun{j: &joinSource{Join: &plan.Join{Domains: []sql.Type{c.typ}}}, mem: newMemBudget(context.Background(), 0), size: size, rows: rows}
			ctx := &lookingContext{Context: context.Background(), left: looks}
			tbl, err := r.index(ctx, []sql.Expr{&sql.ColumnRef{Index: 0, T: c.typ}}, c.kind)
			if !isCanceled(err) || tbl != nil {
				t.Errorf("%s as kind %d, cancelled after %d looks: %v", c.typ, c.kind, looks, err)
			}
		}
		r := &joinRun{j: &joinSource{Join: &plan.Join{Domains: []sql.Type{c.typ}}}, mem: newMemBudget(context.Background(), 0), size: size, rows: rows}
		tbl, err := r.index(context.Background(), []sql.Expr{&sql.ColumnRef{Index: 0, T: c.typ}}, c.kind)
		if err != nil {
			t.Fatalf("%s as kind %d: %v", c.typ, c.kind, err)
		}
		// Chains in build order: the rows of key 5 are 5, 102, 199, ...
		probe := probeKeys(t, r, c.typ, c.val(5), c.kind)
		want := int32(5)
		for h := tbl.head(probe, 0); h >= 0; h = tbl.next[h] {
			if h != want {
				t.Fatalf("%s as kind %d: chain has row %d, want %d", c.typ, c.kind, h, want)
			}
			want += 97
		}
		if want < n {
			t.Fatalf("%s as kind %d: chain ends before row %d", c.typ, c.kind, want)
		}
		rows.Release()
	}
}

// TestJoinBuildVolatileKeys: integer keys are read twice when the build
// side is indexed (their range, then the rows), except keys that call
// random(), which are kept from the first reading: read again, a key
// would fall outside the table laid out for the first.
func TestJoinBuildVolatileKeys(t *testing.T) {
	q := "SELECT count(*) FROM (VALUES (1)) a(x) JOIN (VALUES (2)) b(y) ON a.x = CAST(b.y + random() * 1000000000 AS int)"
	for _, batch := range []int{1, 4096} {
		if got := runQuery(t, q, batch); len(got) != 1 || got[0] != "0" {
			t.Fatalf("batch %d: %v", batch, got)
		}
	}
}

// TestSortStopsWhenCancelled: sorting rows looks at the context every
// checkEvery comparisons, and gathering them in order between batches.
func TestSortStopsWhenCancelled(t *testing.T) {
	col := oneColumnBatch(t, sql.Int64, 100000, func(i int) any { return int64((i * 7919) % 100003) })
	defer col.Release()
	keys := [][]arrow.Array{{col.Column(0)}}
	if _, err := sortRows(&lookingContext{Context: context.Background(), left: 2}, keys, []plan.SortSpec{{}}); !isCanceled(err) {
		t.Fatalf("sortRows: %v", err)
	}
	refs, err := sortRows(context.Background(), keys, []plan.SortSpec{{}})
	if err != nil || len(refs) != 100000 {
		t.Fatalf("sortRows: %d rows, %v", len(refs), err)
	}
	batches := []arrow.RecordBatch{col}
	ctx := &lookingContext{Context: context.Background(), left: 5}
	if _, err := gatherRows(ctx, memory.DefaultAllocator, col.Schema(), batches, refs, 1000); !isCanceled(err) {
		t.Fatalf("gatherRows: %v", err)
	}
	out, err := gatherRows(context.Background(), memory.DefaultAllocator, col.Schema(), batches, refs, 1000)
	if err != nil || len(out) != 100 {
		t.Fatalf("gatherRows: %d batches, %v", len(out), err)
	}
	ReleaseAll(out)
}

func decimalCoef(i int) *big.Int { return big.NewInt(int64(i) * 125) }

// oneColumnBatch is n rows of one column of typ.
func oneColumnBatch(t *testing.T, typ sql.Type, n int, val func(int) any) arrow.RecordBatch {
	t.Helper()
	b := array.NewBuilder(memory.DefaultAllocator, typ.ArrowType())
	defer b.Release()
	for i := range n {
		if err := sql.AppendValue(b, typ, val(i)); err != nil {
			t.Fatal(err)
		}
	}
	arr := b.NewArray()
	defer arr.Release()
	schema := arrow.NewSchema([]arrow.Field{{Name: "k", Type: arr.DataType(), Nullable: true}}, nil)
	return array.NewRecordBatch(schema, []arrow.Array{arr}, int64(n))
}

// probeKeys are the keys of a one-row probe batch holding v.
func probeKeys(t *testing.T, r *joinRun, typ sql.Type, v any, kind joinKeyKind) joinKeys {
	t.Helper()
	b := oneColumnBatch(t, typ, 1, func(int) any { return v })
	defer b.Release()
	k, err := r.batchKeys(context.Background(), b, []sql.Expr{&sql.ColumnRef{Index: 0, T: typ}}, kind)
	if err != nil {
		t.Fatal(err)
	}
	return k
}
