package engine

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql"
	"github.com/magmalake/magmalake/stmt"
)

// spillQuery sorts n generated rows by keys with NULLs, text and numeric,
// ending in g so the order is total; the model below computes it in Go.
func spillQuery(n int) string {
	return fmt.Sprintf(`SELECT g,
	  CASE WHEN g %% 7 = 0 THEN NULL ELSE (g * 7919) %% 1000 END AS a,
	  'v' || CAST((g * 31) %% 97 AS text) AS s,
	  CAST(g %% 13 AS numeric) / 4 AS n
	FROM generate_series(1, %d) AS x(g)
	ORDER BY a DESC NULLS LAST, s, n NULLS FIRST, g DESC`, n)
}

// spillModel is spillQuery's order of g.
func spillModel(n int) []int64 {
	type key struct {
		g   int64
		a   *int64
		s   string
		n13 int64
	}
	rows := make([]key, n)
	for i := range rows {
		g := int64(i + 1)
		k := key{g: g, s: fmt.Sprintf("v%d", (g*31)%97), n13: g % 13}
		if g%7 != 0 {
			a := (g * 7919) % 1000
			k.a = &a
		}
		rows[i] = k
	}
	slices.SortFunc(rows, func(x, y key) int {
		switch {
		case x.a == nil && y.a != nil:
			return 1 // NULLS LAST
		case x.a != nil && y.a == nil:
			return -1
		case x.a != nil && *x.a != *y.a:
			return cmp.Compare(*y.a, *x.a)
		}
		if c := strings.Compare(x.s, y.s); c != 0 {
			return c
		}
		if c := cmp.Compare(x.n13, y.n13); c != 0 {
			return c
		}
		return cmp.Compare(y.g, x.g)
	})
	out := make([]int64, n)
	for i, r := range rows {
		out[i] = r.g
	}
	return out
}

// openSorted plans and starts q with the given work_mem, batch size and
// temp directory.
func openSorted(t *testing.T, ctx context.Context, q string, workMem int64, batch int, tmp string) stmt.Rows {
	t.Helper()
	stmts, err := sql.Parse(q)
	if err != nil {
		t.Fatal(err)
	}
	env := &Env{Options: Options{WorkMem: workMem, BatchSize: batch, TempDir: tmp}}
	pq, err := Plan(ctx, env, stmts[0].(*sql.Select), nil)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := pq.Run(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// spillFiles lists the run files under tmp's statement directories.
func spillFiles(t *testing.T, tmp string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(tmp, "magmalake-sort-*", "*"))
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func emptyDir(t *testing.T, dir string) {
	t.Helper()
	if left, err := os.ReadDir(dir); err != nil || len(left) != 0 {
		t.Fatalf("temp dir after Close: %d entries (%v)", len(left), err)
	}
}

// TestOrderBySpillsAgainstModel: an ORDER BY past work_mem writes sorted
// runs (merged in passes when there are more than the fan-in) and returns
// the model's order, the same as with memory to spare; the runs are gone
// once the result is closed.
func TestOrderBySpillsAgainstModel(t *testing.T) {
	const n = 20000
	want := spillModel(n)
	ctx := context.Background()
	for _, c := range []struct {
		name      string
		workMem   int64
		batch     int
		multiPass bool
	}{
		{"in memory", 0, 1024, false},
		{"few runs", 256 << 10, 1024, false},
		{"multi-pass", 4 << 10, 64, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			tmp := t.TempDir()
			rows := openSorted(t, ctx, spillQuery(n), c.workMem, c.batch, tmp)
			files := spillFiles(t, tmp)
			if spilled := len(files) > 0; spilled != (c.workMem > 0) {
				t.Fatalf("run files while streaming: %d", len(files))
			}
			passes := 0
			for _, f := range files {
				if strings.HasPrefix(filepath.Base(f), "pass-") {
					passes++
				}
			}
			if (passes > 0) != c.multiPass || len(files) > mergeFanIn {
				t.Fatalf("%d files, %d of merge passes, fan-in %d", len(files), passes, mergeFanIn)
			}
			var got []int64
			for {
				b, err := rows.Next(ctx)
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				for r := 0; r < int(b.NumRows()); r++ {
					g := sql.DatumAt(b.Column(0), sql.Type{Kind: sql.KindInt64}, r)
					got = append(got, toInt64(t, g))
					a := sql.DatumAt(b.Column(1), sql.Type{Kind: sql.KindInt64}, r)
					if gv := got[len(got)-1]; (gv%7 == 0) != (a == nil) {
						t.Fatalf("row g=%d carries a=%v", gv, a)
					}
				}
			}
			rows.Close()
			if !slices.Equal(got, want) {
				t.Fatalf("order differs from the model (%d rows, want %d)", len(got), len(want))
			}
			emptyDir(t, tmp)
		})
	}
}

func toInt64(t *testing.T, v any) int64 {
	t.Helper()
	switch x := v.(type) {
	case int64:
		return x
	case int32:
		return int64(x)
	}
	t.Fatalf("g is %T", v)
	return 0
}

// TestOrderBySpillCleanup: closing a spilled result early, or cancelling
// its statement, removes its runs too.
func TestOrderBySpillCleanup(t *testing.T) {
	tmp := t.TempDir()
	ctx := context.Background()
	rows := openSorted(t, ctx, spillQuery(5000), 8<<10, 128, tmp)
	if _, err := rows.Next(ctx); err != nil {
		t.Fatal(err)
	}
	if len(spillFiles(t, tmp)) == 0 {
		t.Fatal("nothing spilled")
	}
	rows.Close()
	emptyDir(t, tmp)

	cctx, cancel := context.WithCancel(ctx)
	rows = openSorted(t, cctx, spillQuery(5000), 8<<10, 128, tmp)
	cancel()
	_, err := rows.Next(cctx)
	var se *pgerr.Error
	if !errors.As(err, &se) || se.Code != pgerr.QueryCanceled {
		t.Fatalf("Next after cancel: %v, want 57014", err)
	}
	rows.Close()
	emptyDir(t, tmp)
}
