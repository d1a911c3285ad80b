package e2e

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/magmalake/magmalake/bench"
	"github.com/magmalake/magmalake/internal/s3test"
)

// Three real `magmalake serve` processes on one embedded catalog and
// warehouse, with clients spread over all three, run `bench contention`'s
// workloads small (issue 18): 4 sessions × 15 overlapping autocommit
// DELETEs in each table mode, then a 6 s soak of mixed DML and disjoint
// BEGIN … COMMIT blocks on a merge-on-read table. What the statements
// answered must explain the table exactly, read through every server and
// by iceberg-go's scan; and no writer may lose to another: no autocommit
// statement fails, every block on disjoint ids commits.
func TestContentionSharedLake(t *testing.T) {
	cfg := bench.ContentionConfig{
		Binary:            buildMagmalake(t),
		Dir:               t.TempDir(),
		Servers:           3,
		Rows:              1200,
		Files:             4,
		DeleteSessions:    4,
		DeletesPerSession: 15,
		ParallelModes:     true, // the four tables at once: about 30 s in all
		SoakSessions:      6,
		SoakDuration:      6 * time.Second,
		StatementTimeout:  time.Minute,
		Progress:          func(msg string) { t.Log(msg) },
	}
	runSharedLake(t, cfg, 4+1) // four delete modes and one soak
}

// The soak on one server that runs background maintenance every second:
// its rewrites commit among the writers (rows deleted meanwhile are carried
// over to the new files, open blocks are waited for), its expiry keeps a
// 4 s history (never the snapshot an open block reads), and still no
// statement fails, the table is exactly the model's, and every snapshot it
// keeps can be read (RunContention checks each one's manifests).
func TestContentionWithAutoVacuum(t *testing.T) {
	cfg := bench.ContentionConfig{
		Binary:            buildMagmalake(t),
		Dir:               t.TempDir(),
		Servers:           1,
		Scenarios:         []string{bench.ScenarioSoak},
		Rows:              1200,
		Files:             4,
		SoakSessions:      6,
		SoakDuration:      8 * time.Second,
		AutoVacuum:        time.Second,
		SnapshotRetention: 4 * time.Second,
		StatementTimeout:  time.Minute,
		Progress:          func(msg string) { t.Log(msg) },
	}
	results, err := bench.RunContention(t.Context(), cfg, func(r bench.ContentionResult) error {
		t.Log("\n" + r.Line())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(results) != 1 {
		t.Fatalf("%d results, want the soak's", len(results))
	}
	r := results[0]
	checkModel(t, r)
	checkNoLosers(t, r)
	checkCommits(t, r)
	if r.Commits.Rewrites == 0 {
		t.Errorf("no rewrite by maintenance committed during the soak: %+v", r.Commits)
	}
	if !r.Commits.Expired {
		t.Errorf("maintenance expired none of the snapshots from before the soak: %+v", r.Commits)
	}
}

// The same on object storage behind a shared catalog: three servers on
// SeaweedFS's Iceberg REST catalog and S3 (weed mini), the deletes scenario
// in the two merge-on-read modes and a short soak. Every process gets the
// S3 test environment (static credentials, no instance metadata).
func TestContentionSharedLakeOnREST(t *testing.T) {
	srv := s3test.StartWeed(t, "warehouse")
	for _, kv := range s3test.Env(nil) {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	var props []string
	for k, v := range srv.RESTProps("warehouse") {
		props = append(props, fmt.Sprintf("%s=%s", k, v))
	}
	slices.Sort(props)
	cfg := bench.ContentionConfig{
		Binary:            buildMagmalake(t),
		Dir:               t.TempDir(),
		Servers:           3,
		CatalogProps:      props,
		DeleteModes:       []bench.TableMode{bench.V2MergeOnRead, bench.V3MergeOnRead},
		Rows:              600,
		Files:             4,
		DeleteSessions:    4,
		DeletesPerSession: 8,
		ParallelModes:     true,
		SoakSessions:      4,
		SoakDuration:      4 * time.Second,
		StatementTimeout:  time.Minute,
		Progress:          func(msg string) { t.Log(msg) },
	}
	runSharedLake(t, cfg, 2+1) // two delete modes and one soak
}

// runSharedLake runs the contention workloads of cfg, which must give want
// results, and checks each against its model and for losers.
func runSharedLake(t *testing.T, cfg bench.ContentionConfig, want int) {
	t.Helper()
	results, err := bench.RunContention(t.Context(), cfg, func(r bench.ContentionResult) error {
		t.Log("\n" + r.Line())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(results) != want {
		t.Fatalf("%d results, want %d", len(results), want)
	}
	for _, r := range results {
		t.Run(r.Scenario+"-"+string(r.Mode), func(t *testing.T) {
			checkModel(t, r)
			checkNoLosers(t, r)
			checkCommits(t, r)
		})
	}
}

// checkModel: the table is what the successful statements say, through
// every reader, and no answer contradicts another.
func checkModel(t *testing.T, r bench.ContentionResult) {
	t.Helper()
	c := r.Check
	for _, rd := range c.Reads {
		if rd.Err != "" {
			t.Errorf("read through %s: %s", rd.Reader, rd.Err)
			continue
		}
		if rd.Rows != c.ModelRows || rd.Lost+rd.Resurrected+rd.Phantom+rd.WrongValue+rd.Duplicate > 0 {
			t.Errorf("%s read %d rows, model %d: %d lost, %d resurrected, %d phantom, %d wrong value, %d duplicate",
				rd.Reader, rd.Rows, c.ModelRows, rd.Lost, rd.Resurrected, rd.Phantom, rd.WrongValue, rd.Duplicate)
		}
	}
	if c.DoubleDeleted+c.WrongReturns+c.StaleReturns+c.NotReturned+c.Uncertain > 0 {
		t.Errorf("%d ids deleted twice, %d wrong returns, %d stale returns, %d matched rows not returned, %d statements with unknown outcome",
			c.DoubleDeleted, c.WrongReturns, c.StaleReturns, c.NotReturned, c.Uncertain)
	}
	for _, p := range c.Problems {
		t.Log(p)
	}
}

// checkCommits: the snapshots' summaries account for the statements that
// committed: at most one per successful statement (a block is one, a
// DELETE that matched nothing commits nothing), each with at least one
// attempt at the catalog.
func checkCommits(t *testing.T, r bench.ContentionResult) {
	t.Helper()
	c := r.Commits
	ok := 0
	for _, k := range r.Kinds {
		ok += k.OK
	}
	if c.Err != "" || c.Statements == 0 || c.Statements > ok || c.Attempts < c.Statements || c.Snapshots > c.Statements {
		t.Errorf("commit figures %+v for %d successful statements", c, ok)
	}
}

// checkNoLosers: issue 18's target. Every autocommit statement succeeds
// (none answers 40001: it can always be planned again), so every row any
// DELETE predicate matched is gone; every block on disjoint ids commits.
func checkNoLosers(t *testing.T, r bench.ContentionResult) {
	t.Helper()
	for _, k := range r.Kinds {
		if k.Failed() == 0 {
			continue
		}
		what := "autocommit " + k.Kind + " statements"
		if k.Kind == "block" {
			what = "BEGIN … COMMIT blocks on disjoint ids"
		}
		t.Errorf("%d of %d %s failed, by SQLSTATE %v; first: %v", k.Failed(), k.Count, what, k.Errors, k.FirstErrors)
	}
	if r.Scenario == bench.ScenarioDeletes && r.Check.KeptByFailures > 0 {
		t.Errorf("%d rows that DELETE predicates matched are still there (only failed statements matched them)", r.Check.KeptByFailures)
	}
}
