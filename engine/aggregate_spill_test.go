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
	"time"

	"github.com/magmalake/magmalake/pgerr"

	"github.com/magmalake/magmalake/sql"
	"github.com/magmalake/magmalake/stmt"
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
			got := sortedTextRows(t, ctx, openSorted(t, ctx, aggSpillQuery(n), c.workMem, 1024, tmp))
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Fatalf("%d groups, want %d; first differing: %v", len(got), len(want), firstDiff(got, want))
			}
			if left, err := os.ReadDir(tmp); err != nil || len(left) != 0 {
				t.Fatalf("temp dir after the aggregation: %d entries (%v)", len(left), err)
			}
		})
	}
}

// sortedTextRows reads rows to the end as text, a row's values joined by
// "|", sorted; it closes rows.
func sortedTextRows(t *testing.T, ctx context.Context, rows stmt.Rows) []string {
	t.Helper()
	defer rows.Close()
	var got []string
	for {
		b, err := rows.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			if pe := (*pgerr.Error)(nil); errors.As(err, &pe) {
				t.Fatalf("%v: %s", err, pe.Detail)
			}
			t.Fatal(err)
		}
		for r := 0; r < int(b.NumRows()); r++ {
			vals := make([]string, b.NumCols())
			for col := range vals {
				vals[col] = datumText(sql.DatumAt(b.Column(col), sql.TypeFromArrow(b.Column(col).DataType()), r))
			}
			got = append(got, strings.Join(vals, "|"))
		}
	}
	sort.Strings(got)
	return got
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

// TestGroupByKeysSpillAgainstModel is TestGroupBySpillsAgainstModel for a
// GROUP BY on three keys (text with NULLs, integer with NULLs, date), which
// group by their encoded tuple: the model's groups in memory, spilled and
// re-spilled.
func TestGroupByKeysSpillAgainstModel(t *testing.T) {
	const n = 30000
	query := fmt.Sprintf(`SELECT CASE WHEN g %% 13 = 0 THEN NULL ELSE 'k' || CAST(g %% 97 AS text) END,
	  CASE WHEN g %% 17 = 0 THEN NULL ELSE g %% 61 END, date '2024-01-01' + (g %% 7), count(*), sum(g)
	FROM generate_series(1, %d) AS x(g) GROUP BY 1, 2, 3`, n)
	model := map[string][2]int64{}
	for g := int64(1); g <= n; g++ {
		k1, k2 := "NULL", "NULL"
		if g%13 != 0 {
			k1 = fmt.Sprintf("k%d", g%97)
		}
		if g%17 != 0 {
			k2 = fmt.Sprint(g % 61)
		}
		day := time.Date(2024, 1, 1+int(g%7), 0, 0, 0, 0, time.UTC).Unix() / 86400 // a date's datum: days since 1970
		k := fmt.Sprintf("%s|%s|%d", k1, k2, day)
		a := model[k]
		model[k] = [2]int64{a[0] + 1, a[1] + g}
	}
	var want []string
	for k, a := range model {
		want = append(want, fmt.Sprintf("%s|%d|%d", k, a[0], a[1]))
	}
	sort.Strings(want)
	ctx := context.Background()
	for _, workMem := range []int64{0, 512 << 10, 48 << 10} {
		tmp := t.TempDir()
		got := sortedTextRows(t, ctx, openSorted(t, ctx, query, workMem, 1024, tmp))
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("work_mem %d: %d groups, want %d; first differing: %v", workMem, len(got), len(want), firstDiff(got, want))
		}
	}
}
