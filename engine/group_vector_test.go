package engine

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/magmalake/magmalake/sql"
)

// TestGroupByAgainstModel groups generated rows by keys of each kind the
// grouper hashes by value (integer, text, decimal, float, boolean) and by
// two keys (encoded), with NULL keys and values, and checks every group's
// count, sums (bigint, numeric and a numeric(38,0) sum past 128 bits),
// float average, min and max against a model computed here.
func TestGroupByAgainstModel(t *testing.T) {
	seed := uint64(rand.Int64())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 29))
	type keyCase struct {
		sql string
		key func(r row) string
	}
	intText := func(x *int64, f func(int64) string) string {
		if x == nil {
			return "NULL"
		}
		return f(*x)
	}
	keys := []keyCase{
		{"k", func(r row) string { return intText(r[0], func(v int64) string { return fmt.Sprint(v) }) }},
		{"CAST(k AS text)", func(r row) string { return intText(r[0], func(v int64) string { return fmt.Sprint(v) }) }},
		{"CAST(k AS numeric(6,1))", func(r row) string { return intText(r[0], func(v int64) string { return fmt.Sprintf("%d.0", v) }) }},
		{"CAST(k AS float8) / 2", func(r row) string { return intText(r[0], func(v int64) string { return fmt.Sprint(float64(v) / 2) }) }},
		{"k % 2 = 0", func(r row) string { return intText(r[0], func(v int64) string { return fmt.Sprint(v%2 == 0) }) }},
		{"k, v", func(r row) string { return r[:2].String() }},
	}
	const big38 = "10000000000000000000000000000000000000" // 10^37
	for round := 0; round < 24; round++ {
		rows := genRows(rng, 1+rng.IntN(300), 2, 9)
		kc := keys[round%len(keys)]
		q := fmt.Sprintf("SELECT %s, count(*), count(v), sum(CAST(v AS int)), sum(v), sum(CAST(v AS numeric(6,2))), "+
			"sum(CAST(v * %s AS numeric(38,0))), avg(CAST(v AS float8)), min(v), max(v) FROM "+valuesSQL(rows, "k", "v")+" GROUP BY %s",
			kc.sql, big38, "t", kc.sql)
		type agg struct {
			n, nv, sum int64
			fsum       float64
			min, max   int64
		}
		groups := map[string]*agg{}
		var order []string
		for _, r := range rows {
			k := kc.key(r)
			a := groups[k]
			if a == nil {
				a = &agg{}
				groups[k] = a
				order = append(order, k)
			}
			a.n++
			if v := r[1]; v != nil {
				if a.nv == 0 || *v < a.min {
					a.min = *v
				}
				if a.nv == 0 || *v > a.max {
					a.max = *v
				}
				a.nv++
				a.sum += *v
				a.fsum += float64(*v)
			}
		}
		var want []string
		for _, k := range order {
			a := groups[k]
			if a.nv == 0 {
				want = append(want, fmt.Sprintf("%s|%d|0|NULL|NULL|NULL|NULL|NULL|NULL|NULL", k, a.n))
				continue
			}
			huge := fmt.Sprint(a.sum) + big38[1:]
			if a.sum == 0 {
				huge = "0"
			}
			want = append(want, fmt.Sprintf("%s|%d|%d|%d|%d|%d.00|%s|%v|%d|%d", k, a.n, a.nv, a.sum, a.sum, a.sum, huge,
				a.fsum/float64(a.nv), a.min, a.max))
		}
		for _, batch := range []int{1, 7, 4096} {
			sameMultiset(t, q, runQuery(t, q, batch), want)
		}
	}
}

// TestGroupedTopNAgainstModel: ORDER BY ... LIMIT over groups selects the
// LIMIT's rows without sorting them all; they must be a full sort's, ties
// in the keys broken as a stable sort does, with OFFSET and DISTINCT.
func TestGroupedTopNAgainstModel(t *testing.T) {
	seed := uint64(rand.Int64())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 31))
	for round := 0; round < 30; round++ {
		rows := genRows(rng, 1+rng.IntN(400), 2, 40)
		limit, offset := rng.IntN(15), rng.IntN(4)
		q := fmt.Sprintf("SELECT k, count(*) AS n FROM "+valuesSQL(rows, "k", "v")+
			" GROUP BY k ORDER BY n DESC, k NULLS FIRST LIMIT %d OFFSET %d", "t", limit, offset)
		counts := map[int64]int64{}
		nulls := int64(0)
		for _, r := range rows {
			if r[0] == nil {
				nulls++
			} else {
				counts[*r[0]]++
			}
		}
		type group struct {
			k    *int64
			n    int64
			name string
		}
		var groups []group
		if nulls > 0 {
			groups = append(groups, group{nil, nulls, "NULL"})
		}
		for k, n := range counts {
			groups = append(groups, group{ptr(k), n, fmt.Sprint(k)})
		}
		slices.SortFunc(groups, func(a, b group) int {
			if a.n != b.n {
				return int(b.n - a.n)
			}
			switch {
			case a.k == nil:
				return -1
			case b.k == nil:
				return 1
			}
			return int(*a.k - *b.k)
		})
		var want []string
		for i := offset; i < len(groups) && i < offset+limit; i++ {
			want = append(want, fmt.Sprintf("%s|%d", groups[i].name, groups[i].n))
		}
		for _, batch := range []int{1, 5, 4096} {
			if got := runQuery(t, q, batch); !slices.Equal(got, want) {
				t.Fatalf("%s (batch %d)\n got  %v\n want %v", q, batch, got, want)
			}
		}
		dq := fmt.Sprintf("SELECT DISTINCT v FROM "+valuesSQL(rows, "k", "v")+" ORDER BY v DESC LIMIT %d", "t", limit)
		seen := map[string]bool{}
		var vals []*int64
		for _, r := range rows {
			key := row{r[1]}.String()
			if !seen[key] {
				seen[key] = true
				vals = append(vals, r[1])
			}
		}
		slices.SortFunc(vals, func(a, b *int64) int { // DESC: NULLs first
			switch {
			case a == nil:
				return -1
			case b == nil:
				return 1
			}
			return int(*b - *a)
		})
		want = nil
		for i := 0; i < len(vals) && i < limit; i++ {
			want = append(want, row{vals[i]}.String())
		}
		if got := runQuery(t, dq, 3); !slices.Equal(got, want) {
			t.Fatalf("%s\n got  %v\n want %v", dq, got, want)
		}
	}
}

// TestAppendScaled: the fast printing of a 64-bit sum at a display scale
// is sql.Decimal's.
func TestAppendScaled(t *testing.T) {
	rng := rand.New(rand.NewPCG(37, 41))
	vals := []int64{0, 1, -1, 5, -5, 99, -100, 12345, math.MaxInt64, math.MinInt64, math.MinInt64 + 1}
	for range 2000 {
		vals = append(vals, rng.Int64N(1<<uint(rng.IntN(62)+1))*(1-2*int64(rng.IntN(2))))
	}
	for _, v := range vals {
		for _, scale := range []int{0, 1, 2, 3, 7, 19, 21, 40} {
			want := sql.Decimal{Coef: big.NewInt(v), Scale: scale}.String()
			if got := string(sql.AppendScaled(nil, v, scale)); got != want {
				t.Fatalf("AppendScaled(%d, %d) = %q, want %q", v, scale, got, want)
			}
		}
	}
}
