package bench

import (
	"context"
	"strings"
	"testing"
)

func TestSameCell(t *testing.T) {
	for _, c := range []struct {
		a, b cell
		same bool
	}{
		{cell{text: "12.00"}, cell{text: "12.00"}, true},
		{cell{text: "12.00"}, cell{text: "12"}, true}, // numeric against a double's text
		{cell{text: "49.5012345678901234"}, cell{text: "49.50123456789012"}, true},
		{cell{text: "1.0000001"}, cell{text: "1"}, false},
		{cell{text: "t"}, cell{text: "f"}, false},
		{cell{null: true}, cell{null: true}, true},
		{cell{null: true}, cell{text: ""}, false},
		{cell{text: "name-00001"}, cell{text: "name-00002"}, false},
	} {
		if got := sameCell(c.a, c.b); got != c.same {
			t.Errorf("sameCell(%v, %v) = %v, want %v", c.a, c.b, got, c.same)
		}
	}
}

func TestDiffRows(t *testing.T) {
	want := [][]cell{{{text: "1"}, {text: "a"}}, {{text: "2"}, {null: true}}}
	if d := diffRows(want, want); d != "" {
		t.Errorf("equal rows differ: %s", d)
	}
	if d := diffRows(want, want[:1]); !strings.Contains(d, "1 rows, want 2") {
		t.Errorf("short answer: %q", d)
	}
	got := [][]cell{want[0], {{text: "2"}, {text: "b"}}}
	if d := diffRows(want, got); !strings.Contains(d, "row 2 column 2 is b, want NULL") {
		t.Errorf("changed cell: %q", d)
	}
}

func TestAppendFactLine(t *testing.T) {
	a, n := 1.0/7, "name-00042"
	r := row{id: 5, k: 7, grp: 1, amount: &a, price: 1205, name: &n, ts: 1_700_000_000_000_001, flag: true}
	want := "5\t7\t1\t0.14285714285714285\t12.05\tname-00042\t2023-11-14 22:13:20.000001\tt\n"
	if got := string(appendFactLine(nil, r)); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	r = row{id: 6, price: 7, ts: 1_700_000_000_000_000}
	want = "6\t0\t0\t\\N\t0.07\t\\N\t2023-11-14 22:13:20\tf\n"
	if got := string(appendFactLine(nil, r)); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestSelectMagmalakeOnly runs every query through magmalake on a tiny table
// (no PostgreSQL, no DuckDB, one timed run): each must run and answer.
// Nothing is timed.
func TestSelectMagmalakeOnly(t *testing.T) {
	rep, err := RunSelect(context.Background(), SelectConfig{Dir: t.TempDir(), Rows: 4000, Files: 4, LookupRows: 2000,
		Repeat: 1, NoPostgres: true, NoDuckDB: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Results) != len(selectQueries(0))+1 {
		t.Fatalf("%d results, want every query and the second point lookup", len(rep.Results))
	}
	for _, r := range rep.Results {
		if r.Error != "" || r.ResultRows == 0 {
			t.Errorf("%s on %s: error %q, %d rows", r.Query, r.Table, r.Error, r.ResultRows)
		}
	}
	if len(rep.CountExplain) == 0 || rep.CountProbe == "" {
		t.Errorf("count(*) probe missing: %+v", rep)
	}
}

// TestSelectQueries: Queries picks the queries that run (the point lookup
// on both tables) and refuses a name that is none.
func TestSelectQueries(t *testing.T) {
	rep, err := RunSelect(context.Background(), SelectConfig{Dir: t.TempDir(), Rows: 4000, Files: 4, LookupRows: 2000,
		Repeat: 1, NoPostgres: true, NoDuckDB: true, Queries: []string{qPoint, qTopN}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rep.Results {
		got = append(got, r.Query+" on "+r.Table)
	}
	want := "point-lookup on fact, top-n on fact, point-lookup on fact_small"
	if strings.Join(got, ", ") != want {
		t.Fatalf("ran %v, want %s", got, want)
	}
	_, err = RunSelect(context.Background(), SelectConfig{Dir: t.TempDir(), NoPostgres: true, NoDuckDB: true, Queries: []string{"nope"}})
	if err == nil || !strings.Contains(err.Error(), `no query named "nope"`) {
		t.Fatalf("unknown query: %v", err)
	}
}
