package engine

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/extensions"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/google/uuid"

	"github.com/magmalake/magmalake/plan"
	"github.com/magmalake/magmalake/sql"
)

// takeTypes are the column types takeArray is checked on, with a value
// generator each (i is the row).
var takeTypes = []struct {
	t   sql.Type
	val func(i int) any
}{
	{sql.Bool, func(i int) any { return i%3 == 0 }},
	{sql.Int16, func(i int) any { return int64(i*7 - 300) }},
	{sql.Int32, func(i int) any { return int64(i * 1001) }},
	{sql.Int64, func(i int) any { return int64(i) << 40 }},
	{sql.Float32, func(i int) any { return float64(float32(i) / 4) }},
	{sql.Float64, func(i int) any { return float64(i) / 3 }},
	{sql.Numeric(12, 2), func(i int) any { return sql.Decimal{Coef: decimal128.FromI64(int64(i*12345 - 7)).BigInt(), Scale: 2} }},
	{sql.Numeric(0, 0), func(i int) any { return sql.Decimal{Coef: decimal128.FromI64(int64(i * 3)).BigInt(), Scale: i % 4} }},
	{sql.Text, func(i int) any { return fmt.Sprintf("v%d%s", i, string(make([]byte, i%5))) }},
	{sql.Bytea, func(i int) any { return []byte{byte(i), byte(i >> 8), 0} }},
	{sql.Date, func(i int) any { return int64(19000 + i) }},
	{sql.Time, func(i int) any { return int64(i) * 1_000_003 }},
	{sql.Timestamp, func(i int) any { return int64(1_700_000_000_000_000 + i*999) }},
	{sql.TimestampTZ, func(i int) any { return int64(1_600_000_000_000_000 - i*777) }},
	{sql.UUID, func(i int) any { return uuid.NewSHA1(uuid.NameSpaceOID, []byte{byte(i)}) }},
}

// takeColumn builds a column of n values of typ, NULL where null(i).
func takeColumn(t *testing.T, typ sql.Type, val func(int) any, n int, null func(int) bool) arrow.Array {
	t.Helper()
	b := array.NewBuilder(memory.DefaultAllocator, typ.ArrowType())
	defer b.Release()
	for i := range n {
		if null(i) {
			b.AppendNull()
			continue
		}
		switch x := b.(type) {
		case *array.Date32Builder:
			x.Append(arrow.Date32(val(i).(int64)))
		case *array.Time64Builder:
			x.Append(arrow.Time64(val(i).(int64)))
		case *array.TimestampBuilder:
			x.Append(arrow.Timestamp(val(i).(int64)))
		case *extensions.UUIDBuilder:
			x.Append(val(i).(uuid.UUID))
		default:
			if err := sql.AppendValue(b, typ, val(i)); err != nil {
				t.Fatalf("%s value %v: %v", typ, val(i), err)
			}
		}
	}
	return b.NewArray()
}

// TestTakeArray: takeArray gives, for every index, the value (or NULL) the
// source holds there, and NULL for a negative index, over sliced sources
// (offsets into their buffers) with and without NULLs.
func TestTakeArray(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	for _, tc := range takeTypes {
		for _, nulls := range []bool{false, true} {
			full := takeColumn(t, tc.t, tc.val, 300, func(i int) bool { return nulls && i%7 == 2 })
			src := array.NewSlice(full, 13, 290) // values 13..289
			full.Release()
			for _, negative := range []bool{false, true} {
				idx := make([]int32, 500)
				for k := range idx {
					idx[k] = int32(rng.IntN(src.Len()))
					if negative && k%9 == 4 {
						idx[k] = -1
					}
				}
				got, err := takeArray(memory.DefaultAllocator, src, idx)
				if err != nil {
					t.Fatalf("%s: %v", tc.t, err)
				}
				if got.Len() != len(idx) || !arrow.TypeEqual(got.DataType(), src.DataType()) {
					t.Fatalf("%s: %d values of %s", tc.t, got.Len(), got.DataType())
				}
				nullCount := 0
				for k, j := range idx {
					var want any
					if j >= 0 && !(nulls && (int(j)+13)%7 == 2) {
						want = sql.DatumAt(src, tc.t, int(j))
					}
					have := sql.DatumAt(got, tc.t, k)
					if want == nil {
						nullCount++
					}
					if fmt.Sprint(have) != fmt.Sprint(want) {
						t.Fatalf("%s (nulls %v): value %d (source row %d) is %v, want %v", tc.t, nulls, k, j, have, want)
					}
				}
				if got.NullN() != nullCount {
					t.Fatalf("%s: NullN %d, want %d", tc.t, got.NullN(), nullCount)
				}
				got.Release()
			}
			src.Release()
		}
	}
}

// modelJoinRows joins l and r on match; kind decides which unmatched rows
// are kept with NULLs.
func modelJoinRows(l, r []row, kind plan.JoinKind, match func(a, b row) bool) []row {
	var out []row
	rMatched := make([]bool, len(r))
	for _, a := range l {
		matched := false
		for j, b := range r {
			if !match(a, b) {
				continue
			}
			matched, rMatched[j] = true, true
			out = append(out, append(append(row{}, a...), b...))
		}
		if !matched && (kind == plan.JoinLeft || kind == plan.JoinFull) {
			out = append(out, append(append(row{}, a...), nullRow(len(r[0]))...))
		}
	}
	if kind == plan.JoinRight || kind == plan.JoinFull {
		for j, b := range r {
			if !rMatched[j] {
				out = append(out, append(nullRow(len(l[0])), b...))
			}
		}
	}
	return out
}

func modelJoinOn(l, r []row, kind plan.JoinKind, match func(a, b row) bool) []string {
	var out []string
	for _, x := range modelJoinRows(l, r, kind, match) {
		out = append(out, x.String())
	}
	return out
}

// TestJoinKeyKinds runs joins whose keys take each of the hash table's
// representations (dense and sparse integers, text, encoded composite and
// cross-type keys) against the model, every join kind, several batch sizes
// (so the build side arrives in several batches).
func TestJoinKeyKinds(t *testing.T) {
	seed := uint64(rand.Int64())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 19))
	words := map[plan.JoinKind]string{plan.JoinInner: "JOIN", plan.JoinLeft: "LEFT JOIN", plan.JoinRight: "RIGHT JOIN", plan.JoinFull: "FULL JOIN"}
	keyEq := func(a, b row) bool { return eq(a[0], b[0]) }
	conds := []struct {
		on    string
		match func(a, b row) bool
	}{
		{"a.k = b.k", keyEq},                                             // dense integers
		{"a.k * 1000000007 = b.k * 1000000007", keyEq},                   // sparse integers: a map
		{"CAST(a.k AS int) = CAST(b.k AS smallint)", keyEq},              // integer widths
		{"'k' || CAST(a.k AS text) = 'k' || CAST(b.k AS text)", keyEq},   // text
		{"a.k = CAST(b.k AS numeric)", keyEq},                            // numeric domain: encoded
		{"CAST(a.k AS float8) = CAST(b.k AS real)", keyEq},               // floats: their bits
		{"CAST(a.k AS numeric(9,2)) = CAST(b.k AS numeric(5,2))", keyEq}, // one scale: decimal128
		{"a.k = b.k AND a.v = b.v", func(a, b row) bool { return eq(a[0], b[0]) && eq(a[1], b[1]) }},
		{"a.k = b.v", func(a, b row) bool { return eq(a[0], b[1]) }},
		// A residual beside the keys: the joined rows are filtered whole.
		{"a.k = b.k AND b.v IN (1, 3, NULL)", func(a, b row) bool { return eq(a[0], b[0]) && b[1] != nil && (*b[1] == 1 || *b[1] == 3) }},
	}
	for round := 0; round < 30; round++ {
		l := genRows(rng, 1+rng.IntN(40), 2, 6)
		r := genRows(rng, 1+rng.IntN(40), 2, 6)
		kind := plan.JoinKind(rng.IntN(4))
		c := conds[round%len(conds)]
		q := fmt.Sprintf("SELECT * FROM "+valuesSQL(l, "k", "v")+" %s "+valuesSQL(r, "k", "v")+" ON %s", "a", words[kind], "b", c.on)
		want := modelJoinOn(l, r, kind, c.match)
		for _, batch := range []int{1, 4, 4096} {
			sameMultiset(t, q, runQuery(t, q, batch), want)
		}
		// Only the left side's v: the key columns are read by the join
		// but not wanted of its rows.
		pq := fmt.Sprintf("SELECT a.v FROM "+valuesSQL(l, "k", "v")+" %s "+valuesSQL(r, "k", "v")+" ON %s", "a", words[kind], "b", c.on)
		var pwant []string
		for _, x := range modelJoinRows(l, r, kind, c.match) {
			pwant = append(pwant, x[1:2].String())
		}
		for _, batch := range []int{1, 4096} {
			sameMultiset(t, pq, runQuery(t, pq, batch), pwant)
		}
	}
}

// lt is SQL's x < c: true only for a non-NULL x below c.
func lt(x *int64, c int64) bool { return x != nil && *x < c }

// TestJoinWhereConjuncts: WHERE conjuncts that read one side of a join are
// also applied to that side before the join where that is sound (either
// side of an inner join, the preserved side of an outer one); the answers
// must be WHERE over the whole join, whatever the join kind, including
// IS NULL tests that a NULL-extended row passes and a guarded division
// that must not run on the rows its guard rejects.
func TestJoinWhereConjuncts(t *testing.T) {
	seed := uint64(rand.Int64())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 23))
	words := map[plan.JoinKind]string{plan.JoinInner: "JOIN", plan.JoinLeft: "LEFT JOIN", plan.JoinRight: "RIGHT JOIN", plan.JoinFull: "FULL JOIN"}
	wheres := []struct {
		sql  string
		keep func(x row) bool // x: a.k, a.v, b.k, b.v
	}{
		{"a.v < 3", func(x row) bool { return lt(x[1], 3) }},
		{"b.v < 3", func(x row) bool { return lt(x[3], 3) }},
		{"b.v IS NULL", func(x row) bool { return x[3] == nil }},
		{"a.v IS NULL AND b.v < 4", func(x row) bool { return x[1] == nil && lt(x[3], 4) }},
		{"a.v <> 0 AND 12 / a.v > 3", func(x row) bool { return x[1] != nil && *x[1] != 0 && 12 / *x[1] > 3 }},
		{"b.v < 5 AND a.k < b.v", func(x row) bool { return lt(x[3], 5) && x[0] != nil && x[3] != nil && *x[0] < *x[3] }},
	}
	for round := 0; round < 48; round++ {
		l := genRows(rng, 1+rng.IntN(40), 2, 6)
		r := genRows(rng, 1+rng.IntN(40), 2, 6)
		kind := plan.JoinKind(round % 4)
		w := wheres[(round/4)%len(wheres)]
		q := fmt.Sprintf("SELECT * FROM "+valuesSQL(l, "k", "v")+" %s "+valuesSQL(r, "k", "v")+" ON a.k = b.k WHERE %s", "a", words[kind], "b", w.sql)
		var want []string
		for _, x := range modelJoinRows(l, r, kind, func(a, b row) bool { return eq(a[0], b[0]) }) {
			if w.keep(x) {
				want = append(want, x.String())
			}
		}
		for _, batch := range []int{1, 4, 4096} {
			sameMultiset(t, q, runQuery(t, q, batch), want)
		}
	}
}

// TestJoinWhereExplain: EXPLAIN shows the WHERE conjunct a join side is
// filtered by before the join as that side's Filter, and that the
// NULL-extended side of an outer join gets none.
func TestJoinWhereExplain(t *testing.T) {
	rows := []row{{ptr(1), ptr(2)}}
	from := "FROM " + fmt.Sprintf(valuesSQL(rows, "k", "v"), "a") + " %s " + fmt.Sprintf(valuesSQL(rows, "k", "v"), "b") + " ON a.k = b.k WHERE a.v < 3 AND b.v < 4"
	for _, c := range []struct {
		join         string
		outer, inner string // the sides' filters; "": none
	}{
		{"JOIN", "a.v < 3", "b.v < 4"},
		{"LEFT JOIN", "a.v < 3", ""},
		{"RIGHT JOIN", "", "b.v < 4"},
		{"FULL JOIN", "", ""},
	} {
		q := "SELECT * " + fmt.Sprintf(from, c.join)
		stmts, err := sql.Parse(q)
		if err != nil {
			t.Fatal(err)
		}
		pq, err := Plan(context.Background(), &Env{}, stmts[0].(*sql.Select), nil)
		if err != nil {
			t.Fatal(err)
		}
		ex, err := pq.Explain(context.Background(), nil, false)
		if err != nil {
			t.Fatal(err)
		}
		sides := map[string]string{}
		for _, pr := range ex.Root.Props {
			if pr.Plan == nil {
				continue
			}
			for _, f := range pr.Plan.Props {
				if f.Key == "Filter" {
					sides[pr.Key] = f.Value.(string)
				}
			}
		}
		if sides["Outer"] != c.outer || sides["Inner"] != c.inner {
			t.Errorf("%s: side filters %q, want outer %q inner %q in\n%s", c.join, sides, c.outer, c.inner, strings.Join(ex.Lines(), "\n"))
		}
	}
}

func ptr(v int64) *int64 { return &v }

// TestJoinTwoIntegerKeys: two integer equalities hash as a pair (keyInt2),
// NULL in either key matching nothing, mixed integer widths compared as
// int64, against the model's nested loop.
func TestJoinTwoIntegerKeys(t *testing.T) {
	pk := []sql.Expr{&sql.ColumnRef{Index: 0, T: sql.Int32}, &sql.ColumnRef{Index: 1, T: sql.Int64}}
	bk := []sql.Expr{&sql.ColumnRef{Index: 0, T: sql.Int64}, &sql.ColumnRef{Index: 1, T: sql.Int16}}
	if k := joinKeyKindOf(pk, bk, []sql.Type{sql.Int64, sql.Int64}); k != keyInt2 {
		t.Fatalf("two integer keys hash as kind %d, want keyInt2", k)
	}
	if k := joinKeyKindOf(pk[:1], bk[:1], []sql.Type{sql.Int64}); k != keyInt {
		t.Fatalf("one integer key hashes as kind %d, want keyInt", k)
	}
	build := joinKeys{ints: []int64{1, 1, 2, 3, 1}, ints2: []int64{10, 11, 10, 30, 10}, null: []bool{false, false, false, true, false}}
	tbl := newJoinTable(keyInt2, build)
	probe := joinKeys{ints: []int64{1, 2, 3, 1, 4}, ints2: []int64{10, 10, 30, 11, 10}}
	want := [][]int32{{0, 4}, {2}, nil, {1}, nil}
	for i := range want {
		var got []int32
		for h := tbl.head(probe, i); h >= 0; h = tbl.next[h] {
			got = append(got, h)
		}
		if fmt.Sprint(got) != fmt.Sprint(want[i]) {
			t.Fatalf("probe row %d matches %v, want %v", i, got, want[i])
		}
	}
}

// TestJoinKeyKindChoice: one key of floats, of numerics of one scale or of
// uuids hashes its values as they are; numerics of two scales, or a float
// beside an integer, are encoded (their values convert to the comparison's
// type).
func TestJoinKeyKindChoice(t *testing.T) {
	col := func(t sql.Type) []sql.Expr { return []sql.Expr{&sql.ColumnRef{T: t}} }
	cases := []struct {
		p, b, dom sql.Type
		want      joinKeyKind
	}{
		{sql.Float64, sql.Float64, sql.Float64, keyInt},
		{sql.Float32, sql.Float64, sql.Float64, keyInt},
		{sql.Numeric(12, 2), sql.Numeric(10, 2), sql.Numeric(12, 2), keyWide},
		{sql.UUID, sql.UUID, sql.UUID, keyWide},
		{sql.Numeric(12, 2), sql.Numeric(12, 3), sql.Numeric(12, 3), keyEncoded},
		{sql.Numeric(0, 0), sql.Numeric(0, 0), sql.Numeric(0, 0), keyEncoded},
		{sql.Int64, sql.Float64, sql.Float64, keyEncoded},
		{sql.Int32, sql.Numeric(10, 0), sql.Numeric(10, 0), keyEncoded},
	}
	for _, c := range cases {
		if k := joinKeyKindOf(col(c.p), col(c.b), []sql.Type{c.dom}); k != c.want {
			t.Errorf("%s = %s: kind %d, want %d", c.p, c.b, k, c.want)
		}
	}
}
