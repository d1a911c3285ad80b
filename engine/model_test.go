package engine

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/magmalake/magmalake/plan"
	"github.com/magmalake/magmalake/sql"
)

// The operator tests run generated data through the engine and compare with
// a model computed here, row by row in plain Go: NULL semantics included.

// row is one generated row: nil is NULL.
type row []*int64

func (r row) String() string {
	parts := make([]string, len(r))
	for i, v := range r {
		if v == nil {
			parts[i] = "NULL"
		} else {
			parts[i] = fmt.Sprint(*v)
		}
	}
	return strings.Join(parts, "|")
}

func genRows(rng *rand.Rand, n, cols int, domain int64) []row {
	out := make([]row, n)
	for i := range out {
		r := make(row, cols)
		for c := range r {
			if rng.IntN(6) == 0 {
				continue
			}
			v := rng.Int64N(domain)
			r[c] = &v
		}
		out[i] = r
	}
	return out
}

// valuesSQL is the rows as a VALUES list typed bigint.
func valuesSQL(rows []row, names ...string) string {
	var items []string
	for i, r := range rows {
		var vals []string
		for _, v := range r {
			s := "NULL"
			if v != nil {
				s = fmt.Sprint(*v)
			}
			if i == 0 {
				s = "CAST(" + s + " AS bigint)"
			}
			vals = append(vals, s)
		}
		items = append(items, "("+strings.Join(vals, ", ")+")")
	}
	return "(VALUES " + strings.Join(items, ", ") + ") AS %s(" + strings.Join(names, ", ") + ")"
}

// runQuery plans and runs q with no catalog (VALUES only) and returns its
// rows as text, NULL spelled NULL.
func runQuery(t *testing.T, q string, batch int) []string {
	t.Helper()
	stmts, err := sql.Parse(q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	env := &Env{Options: Options{BatchSize: batch}}
	pq, err := Plan(context.Background(), env, stmts[0].(*sql.Select), nil)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	rows, err := pq.Run(context.Background(), nil)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	cols := pq.Columns()
	var out []string
	for {
		b, err := rows.Next(context.Background())
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		for r := 0; r < int(b.NumRows()); r++ {
			var parts []string
			for c, col := range cols {
				v := sql.DatumAt(b.Column(c), col.Type, r)
				if v == nil {
					parts = append(parts, "NULL")
				} else {
					parts = append(parts, fmt.Sprint(v))
				}
			}
			out = append(out, strings.Join(parts, "|"))
		}
	}
}

func sameMultiset(t *testing.T, q string, got, want []string) {
	t.Helper()
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("%s\n got  %d rows %v\n want %d rows %v", q, len(got), got, len(want), want)
	}
}

func eq(a, b *int64) bool { return a != nil && b != nil && *a == *b }

func nullRow(n int) row { return make(row, n) }

// modelJoin joins l and r on l[0] = r[0] (and l[1] < r[1] when residual):
// kind decides which unmatched rows are kept with NULLs.
func modelJoin(l, r []row, kind plan.JoinKind, residual bool) []string {
	var out []string
	rMatched := make([]bool, len(r))
	for _, a := range l {
		matched := false
		for j, b := range r {
			if !eq(a[0], b[0]) || residual && !(a[1] != nil && b[1] != nil && *a[1] < *b[1]) {
				continue
			}
			matched, rMatched[j] = true, true
			out = append(out, append(append(row{}, a...), b...).String())
		}
		if !matched && (kind == plan.JoinLeft || kind == plan.JoinFull) {
			out = append(out, append(append(row{}, a...), nullRow(len(r[0]))...).String())
		}
	}
	if kind == plan.JoinRight || kind == plan.JoinFull {
		for j, b := range r {
			if !rMatched[j] {
				out = append(out, append(nullRow(len(l[0])), b...).String())
			}
		}
	}
	return out
}

func TestJoinAgainstModel(t *testing.T) {
	seed := uint64(rand.Int64())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 7))
	words := map[plan.JoinKind]string{plan.JoinInner: "JOIN", plan.JoinLeft: "LEFT JOIN", plan.JoinRight: "RIGHT JOIN", plan.JoinFull: "FULL JOIN"}
	for round := 0; round < 40; round++ {
		l := genRows(rng, 1+rng.IntN(30), 2, 8)
		r := genRows(rng, 1+rng.IntN(30), 2, 8)
		kind := plan.JoinKind(rng.IntN(4))
		residual := rng.IntN(2) == 0
		on := "a.k = b.k"
		if residual {
			on += " AND a.v < b.v"
		}
		q := fmt.Sprintf("SELECT * FROM "+valuesSQL(l, "k", "v")+" %s "+valuesSQL(r, "k", "v")+" ON %s", "a", words[kind], "b", on)
		for _, batch := range []int{1, 3, 4096} {
			sameMultiset(t, q, runQuery(t, q, batch), modelJoin(l, r, kind, residual))
		}
	}
}

// modelSetOp is UNION/INTERSECT/EXCEPT [ALL] over multisets of rows, NULLs
// equal to each other as in PostgreSQL's set operations.
func modelSetOp(l, r []row, op string, all bool) []string {
	count := func(rows []row) map[string]int {
		m := map[string]int{}
		for _, x := range rows {
			m[x.String()]++
		}
		return m
	}
	lc, rc := count(l), count(r)
	var out []string
	emit := func(k string, n int) {
		if !all && n > 0 {
			n = 1
		}
		for i := 0; i < n; i++ {
			out = append(out, k)
		}
	}
	switch op {
	case "UNION":
		for k, n := range lc {
			emit(k, n+rc[k])
		}
		for k, n := range rc {
			if lc[k] == 0 {
				emit(k, n)
			}
		}
	case "INTERSECT":
		for k, n := range lc {
			emit(k, min(n, rc[k]))
		}
	case "EXCEPT":
		for k, n := range lc {
			if all {
				emit(k, max(0, n-rc[k]))
			} else if rc[k] == 0 {
				emit(k, n)
			}
		}
	}
	return out
}

func TestSetOperationsAgainstModel(t *testing.T) {
	seed := uint64(rand.Int64())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 11))
	for round := 0; round < 60; round++ {
		l := genRows(rng, 1+rng.IntN(25), 2, 4)
		r := genRows(rng, 1+rng.IntN(25), 2, 4)
		op := []string{"UNION", "INTERSECT", "EXCEPT"}[rng.IntN(3)]
		all := rng.IntN(2) == 0
		word := op
		if all {
			word += " ALL"
		}
		q := fmt.Sprintf("SELECT * FROM "+valuesSQL(l, "x", "y")+" %s SELECT * FROM "+valuesSQL(r, "x", "y"), "a", word, "b")
		sameMultiset(t, q, runQuery(t, q, 2), modelSetOp(l, r, op, all))
	}
}

// modelWindows computes row_number, rank, dense_rank and a running sum
// over PARTITION BY p ORDER BY o for each row, in input order.
func modelWindows(rows []row) []string {
	less := func(a, b *int64) bool { // NULLs last
		switch {
		case a == nil:
			return false
		case b == nil:
			return true
		}
		return *a < *b
	}
	samePart := func(a, b *int64) bool { return a == nil && b == nil || eq(a, b) }
	var out []string
	for i, x := range rows {
		var rn, rank, sum, sawSum int64
		peersBefore := map[string]bool{}
		for j, y := range rows {
			if !samePart(x[0], y[0]) {
				continue
			}
			before := less(y[1], x[1])
			peer := !before && !less(x[1], y[1])
			if before || peer && j <= i {
				rn++
			}
			if before {
				rank++
				k := "NULL"
				if y[1] != nil {
					k = fmt.Sprint(*y[1])
				}
				peersBefore[k] = true
			}
			if (before || peer) && y[2] != nil {
				sum += *y[2]
				sawSum++
			}
		}
		s := "NULL"
		if sawSum > 0 {
			s = fmt.Sprint(sum)
		}
		id := *x[3]
		out = append(out, fmt.Sprintf("%d|%d|%d|%d|%s", id, rn, rank+1, len(peersBefore)+1, s))
	}
	return out
}

func TestWindowFunctionsAgainstModel(t *testing.T) {
	seed := uint64(rand.Int64())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 13))
	for round := 0; round < 30; round++ {
		rows := genRows(rng, 1+rng.IntN(40), 3, 5)
		for i := range rows {
			id := int64(i)
			rows[i] = append(rows[i], &id)
		}
		// row_number breaks ties by id so that the model and the engine agree.
		q := fmt.Sprintf("SELECT id, row_number() OVER (PARTITION BY p ORDER BY o, id), rank() OVER w, dense_rank() OVER w, sum(v) OVER w FROM "+
			valuesSQL(rows, "p", "o", "v", "id")+" WINDOW w AS (PARTITION BY p ORDER BY o)", "t")
		sameMultiset(t, q, runQuery(t, q, 3), modelWindows(rows))
	}
}

// ORDER BY ... LIMIT keeps only the rows it needs while reading; the rows
// it returns must be the model's: a full sort by (a DESC NULLS FIRST, b
// NULLS LAST, id) cut at LIMIT after OFFSET.
func TestTopNAgainstModel(t *testing.T) {
	seed := uint64(rand.Int64())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 17))
	for round := 0; round < 30; round++ {
		rows := genRows(rng, 1+rng.IntN(200), 2, 6)
		for i := range rows {
			id := int64(i)
			rows[i] = append(rows[i], &id)
		}
		limit, offset := rng.IntN(12), rng.IntN(5)
		q := fmt.Sprintf("SELECT a, b, id FROM "+valuesSQL(rows, "a", "b", "id")+" ORDER BY a DESC, b, id LIMIT %d OFFSET %d", "t", limit, offset)
		model := slices.Clone(rows)
		cmp := func(x, y *int64, desc bool) int {
			switch {
			case x == nil && y == nil:
				return 0
			case x == nil: // NULLs are greater: first descending, last ascending
				if desc {
					return -1
				}
				return 1
			case y == nil:
				if desc {
					return 1
				}
				return -1
			case desc:
				return int(*y - *x)
			}
			return int(*x - *y)
		}
		slices.SortFunc(model, func(x, y row) int {
			if c := cmp(x[0], y[0], true); c != 0 {
				return c
			}
			if c := cmp(x[1], y[1], false); c != 0 {
				return c
			}
			return cmp(x[2], y[2], false)
		})
		var want []string
		for i := offset; i < len(model) && i < offset+limit; i++ {
			want = append(want, model[i].String())
		}
		for _, batch := range []int{1, 3, 64} {
			got := runQuery(t, q, batch)
			if !slices.Equal(got, want) {
				t.Fatalf("%s (batch %d)\n got  %v\n want %v", q, batch, got, want)
			}
		}
	}
}
