package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/big"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/magmalake/magmalake/pgerr"

	"github.com/magmalake/magmalake/sql"
)

// aggSpillQuery groups n generated rows by a text key with NULLs (about
// n/3 groups), with plain, DISTINCT and FILTER aggregates. (An ordered
// aggregate keeps every row of a group it holds: past work_mem it fails
// with 53200 whether the groups spill or not.)
func aggSpillQuery(n int) string {
	return fmt.Sprintf(`SELECT CASE WHEN g %% 11 = 0 THEN NULL ELSE 'k' || CAST((g * 7) %% %d AS text) END AS k,
	  count(*), sum(g), min(g), max(g), count(DISTINCT g %% 5), count(*) FILTER (WHERE g %% 2 = 0)
	FROM generate_series(1, %d) AS x(g)
	GROUP BY 1 HAVING count(*) > 1`, n/3, n)
}

// aggSpillModel is aggSpillQuery's rows, as text, sorted.
func aggSpillModel(n int) []string {
	type acc struct {
		count, sum, min, max, even int64
		mods                       map[int64]bool
	}
	groups := map[string]*acc{}
	for g := int64(1); g <= int64(n); g++ {
		k := "NULL"
		if g%11 != 0 {
			k = fmt.Sprintf("k%d", (g*7)%int64(n/3))
		}
		a := groups[k]
		if a == nil {
			a = &acc{min: g, mods: map[int64]bool{}}
			groups[k] = a
		}
		a.count++
		a.sum += g
		a.max = g
		a.mods[g%5] = true
		if g%2 == 0 {
			a.even++
		}
	}
	var out []string
	for k, a := range groups {
		if a.count > 1 {
			out = append(out, fmt.Sprintf("%s|%d|%d|%d|%d|%d|%d", k, a.count, a.sum, a.min, a.max, len(a.mods), a.even))
		}
	}
	sort.Strings(out)
	return out
}

// TestGroupBySpillsAgainstModel: a GROUP BY with more groups than work_mem
// holds spills its rows to partitions (and re-partitions those that
// overflow again) and gives the model's groups, the same as with memory to
// spare; its files are gone afterwards (issue 52: TPC-H Q18's GROUP BY
// failed with 53200).
func TestGroupBySpillsAgainstModel(t *testing.T) {
	const n = 30000
	want := aggSpillModel(n)
	ctx := context.Background()
	for _, c := range []struct {
		name    string
		workMem int64
	}{{"in memory", 0}, {"one level", 512 << 10}, {"nested", 48 << 10}} {
		t.Run(c.name, func(t *testing.T) {
			tmp := t.TempDir()
			rows := openSorted(t, ctx, aggSpillQuery(n), c.workMem, 1024, tmp)
			var got []string
			for {
				b, err := rows.Next(ctx)
				if err == io.EOF {
					break
				}
				if err != nil {
					var pe *pgerr.Error
					errors.As(err, &pe)
					t.Fatalf("%v: %s", err, pe.Detail)
				}
				for r := 0; r < int(b.NumRows()); r++ {
					vals := make([]string, b.NumCols())
					for col := range vals {
						v := sql.DatumAt(b.Column(col), sql.TypeFromArrow(b.Column(col).DataType()), r)
						vals[col] = datumText(v)
					}
					got = append(got, strings.Join(vals, "|"))
				}
			}
			rows.Close()
			sort.Strings(got)
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Fatalf("%d groups, want %d; first differing: %v", len(got), len(want), firstDiff(got, want))
			}
			if left, err := os.ReadDir(tmp); err != nil || len(left) != 0 {
				t.Fatalf("temp dir after the aggregation: %d entries (%v)", len(left), err)
			}
		})
	}
}

func datumText(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case *big.Rat:
		return x.FloatString(0)
	}
	return fmt.Sprint(v)
}

func firstDiff(a, b []string) string {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return a[i] + " vs " + b[i]
		}
	}
	return "(one is a prefix of the other)"
}
