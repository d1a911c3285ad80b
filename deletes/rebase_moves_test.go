package deletes

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"

	"github.com/magmalake/magmalake/lake"
)

// TestRewriteCarriesConcurrentDeletes: OPTIMIZE is planned, then other
// statements delete rows of the files it replaces (scattered rows, and
// every row of one file) before it commits. It must commit anyway, with
// those rows deleted from its new files: iceberg-go's scan gives the
// model's rows, each once; no replaced file stays live, and no delete file
// is left naming one. Then the same across two rebases, the second from
// the head the first produced.
func TestRewriteCarriesConcurrentDeletes(t *testing.T) {
	forEachVariant(t, nil, func(t *testing.T, f *fixture, version int, mode Mode) {
		for from := int64(0); from < 200; from += 50 {
			f.appendRows(genRows(from, from+50))
		}
		f.deleteAndCheck(idPred(iceberg.AlwaysTrue{}, false, func(id int64) bool { return id%9 == 0 }),
			func(r row) bool { return r.id%9 == 0 }, Options{})
		base := f.table()
		change := f.prepareRewrite(base)

		f.deleteAndCheck(idPred(iceberg.AlwaysTrue{}, false, func(id int64) bool { return id%7 == 3 }),
			func(r row) bool { return r.id%7 == 3 }, Options{})
		f.deleteAndCheck(idPred(iceberg.AlwaysTrue{}, false, func(id int64) bool { return id >= 50 && id < 100 }),
			func(r row) bool { return r.id >= 50 && r.id < 100 }, Options{})
		loop := lake.CommitLoop{Catalog: f.cat}
		if _, err := loop.Publish(f.ctx, base, change); err != nil {
			t.Fatalf("rewrite after concurrent deletes: %v", err)
		}
		f.checkReadBack()
		f.checkReplaced(change)

		// Two rebases: the second starts from the first's result.
		f.appendRows(genRows(200, 260))
		base = f.table()
		change = f.prepareRewrite(base)
		f.deleteAndCheck(idPred(iceberg.AlwaysTrue{}, false, func(id int64) bool { return id%5 == 1 }),
			func(r row) bool { return r.id%5 == 1 }, Options{})
		h1 := f.table()
		c1, _, err := Rebase(f.ctx, lake.RebaseInput{Base: base, Head: h1, Change: change})
		if err != nil {
			t.Fatal(err)
		}
		f.deleteAndCheck(idPred(iceberg.AlwaysTrue{}, false, func(id int64) bool { return id >= 200 && id%2 == 0 }),
			func(r row) bool { return r.id >= 200 && r.id%2 == 0 }, Options{})
		h2 := f.table()
		c2, _, err := Rebase(f.ctx, lake.RebaseInput{Base: h1, Head: h2, Change: c1})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := loop.Publish(f.ctx, h2, c2); err != nil {
			t.Fatalf("rewrite rebased twice: %v", err)
		}
		f.checkReadBack()
		f.checkReplaced(change)
	})
}

// TestRewriteWithoutMovesReplans: the same rewrite without its moves
// (what the rebase had before) must be planned again: the test above
// depends on the moves, not on a rebase that happens to pass.
func TestRewriteWithoutMovesReplans(t *testing.T) {
	f := newFixture(t, 3, ModeMergeOnRead, nil)
	f.appendRows(genRows(0, 50))
	f.appendRows(genRows(50, 100))
	base := f.table()
	change := f.prepareRewrite(base)
	change.Moves = nil
	f.deleteAndCheck(idPred(iceberg.AlwaysTrue{}, false, func(id int64) bool { return id%4 == 0 }),
		func(r row) bool { return r.id%4 == 0 }, Options{})
	_, _, err := Rebase(f.ctx, lake.RebaseInput{Base: base, Head: f.table(), Change: change})
	if !errors.Is(err, lake.ErrReplan) {
		t.Fatalf("rebase without moves: %v, want ErrReplan", err)
	}
}

// prepareRewrite plans and writes OPTIMIZE of every file against base.
func (f *fixture) prepareRewrite(base *table.Table) lake.FileChange {
	f.t.Helper()
	var out OptimizeOutcome
	change, _, err := PrepareOptimize(f.ctx, base, OptimizeOptions{SizeThreshold: 1 << 30, RatioThreshold: 0.1}, &out)
	if err != nil {
		f.t.Fatal(err)
	}
	if len(change.RemoveData) < 2 || change.Moves == nil {
		f.t.Fatalf("rewrite replaces %d files (moves %v): want every file, with moves", len(change.RemoveData), change.Moves != nil)
	}
	return change
}

// checkReplaced: no data file the rewrite replaced is live, and no live
// delete file names a data file that is not.
func (f *fixture) checkReplaced(change lake.FileChange) {
	f.t.Helper()
	data, dels := f.liveFiles(f.table())
	live := map[string]bool{}
	for _, d := range data {
		live[d.FilePath()] = true
	}
	for _, r := range change.RemoveData {
		if live[r.FilePath()] {
			f.t.Fatalf("replaced file %s is still live", r.FilePath())
		}
	}
	for _, d := range dels {
		if ref := d.ReferencedDataFile(); ref != nil && !live[*ref] {
			f.t.Fatalf("delete file %s names %s, which is not live", d.FilePath(), *ref)
		}
	}
	if !slices.ContainsFunc(data, func(d iceberg.DataFile) bool {
		return slices.ContainsFunc(change.AddData, func(a iceberg.DataFile) bool { return a.FilePath() == d.FilePath() })
	}) {
		f.t.Fatal("none of the rewrite's files is live")
	}
}

// TestRewriteCarriesRandomDeletes: random tables (3–6 files of 5–40 rows),
// random deletes before OPTIMIZE is planned, then 1–4 random deletes
// (residue classes, id ranges that may cover whole files) before it
// commits, through one rebase or a chain of them. The table must read as
// the model after the commit, and again after one more DELETE planned by
// this package over the rebased delete files.
func TestRewriteCarriesRandomDeletes(t *testing.T) {
	for _, vt := range variants {
		for seed := uint64(1); seed <= 8; seed++ {
			t.Run(fmt.Sprintf("v%d-%s-%d", vt.version, vt.mode, seed), func(t *testing.T) {
				rnd := rand.New(rand.NewPCG(seed, uint64(vt.version)))
				f := newFixture(t, vt.version, vt.mode, nil)
				next := int64(0)
				for range 3 + rnd.IntN(4) {
					n := 5 + rnd.Int64N(36)
					f.appendRows(genRows(next, next+n))
					next += n
				}
				randomDelete := func() {
					if rnd.IntN(2) == 0 {
						m, r := int64(2+rnd.IntN(9)), int64(rnd.IntN(9))
						f.deleteAndCheck(idPred(iceberg.AlwaysTrue{}, false, func(id int64) bool { return id%m == r%m }),
							func(x row) bool { return x.id%m == r%m }, Options{})
						return
					}
					lo := rnd.Int64N(next)
					hi := lo + 1 + rnd.Int64N(40)
					f.deleteAndCheck(idPred(iceberg.AlwaysTrue{}, false, func(id int64) bool { return id >= lo && id < hi }),
						func(x row) bool { return x.id >= lo && x.id < hi }, Options{})
				}
				for range rnd.IntN(3) {
					randomDelete()
				}
				if len(f.model) == 0 {
					t.Skip("nothing left to rewrite")
				}
				base := f.table()
				change := f.prepareRewrite(base)
				head, c := base, change
				for range 1 + rnd.IntN(4) {
					randomDelete()
					if rnd.IntN(2) == 0 {
						now := f.table()
						var err error
						if c, _, err = Rebase(f.ctx, lake.RebaseInput{Base: head, Head: now, Change: c}); err != nil {
							t.Fatalf("rebase: %v", err)
						}
						head = now
					}
				}
				loop := lake.CommitLoop{Catalog: f.cat}
				if _, err := loop.Publish(f.ctx, head, c); err != nil {
					t.Fatalf("rewrite after concurrent deletes: %v", err)
				}
				f.checkReadBack()
				f.checkReplaced(change)
				randomDelete()
			})
		}
	}
}

// TestOptimizeStatementCarriesDelete: OPTIMIZE through its own commit
// loop, with a DELETE committed between its plan and its commit, lands on
// the first plan (Attempts 1: carried, not planned again) and the table is
// the model's.
func TestOptimizeStatementCarriesDelete(t *testing.T) {
	for _, version := range []int{2, 3} {
		t.Run(fmt.Sprint(version), func(t *testing.T) {
			f := newFixture(t, version, ModeMergeOnRead, nil)
			f.appendRows(genRows(0, 40))
			f.appendRows(genRows(40, 80))
			deleted := false
			commit := func(ctx context.Context, ident table.Identifier, plan lake.ChangeFunc) (*table.Table, error) {
				between := func(ctx context.Context, head *table.Table) (lake.FileChange, []string, error) {
					c, w, err := plan(ctx, head)
					if !deleted {
						deleted = true
						f.deleteAndCheck(idPred(iceberg.AlwaysTrue{}, false, func(id int64) bool { return id%3 == 0 }),
							func(r row) bool { return r.id%3 == 0 }, Options{})
					}
					return c, w, err
				}
				return lake.CommitLoop{Catalog: f.cat}.Commit(ctx, ident, between)
			}
			out, err := Optimize(f.ctx, commitVia{Autocommit(f.cat), commit}, f.ident, OptimizeOptions{SizeThreshold: 1 << 30, RatioThreshold: 0.1})
			if err != nil {
				t.Fatal(err)
			}
			if !deleted || out.Attempts != 1 || out.RewrittenFiles != 2 {
				t.Fatalf("optimize %+v (delete ran: %v): want 2 files rewritten on the first plan", out, deleted)
			}
			f.checkReadBack()
		})
	}
}

// commitVia is a CommitTarget whose commits go through commit.
type commitVia struct {
	CommitTarget
	commit func(ctx context.Context, ident table.Identifier, plan lake.ChangeFunc) (*table.Table, error)
}

func (c commitVia) Commit(ctx context.Context, ident table.Identifier, plan lake.ChangeFunc) (*table.Table, error) {
	return c.commit(ctx, ident, plan)
}
