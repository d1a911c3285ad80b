package engine

import (
	"context"
	"maps"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/apache/iceberg-go/table"

	"github.com/magmalake/magmalake/lake"
	"github.com/magmalake/magmalake/plan"
	"github.com/magmalake/magmalake/sql"
)

// Deps are what a plan's binding read of the catalog: every name it
// resolved and what that name denoted then (a table's metadata, a view's
// text). A plan bound over them stays good while each name still denotes
// the same: Current resolves them again, which costs the catalog's lookups
// but none of the binding. Binding reads a table's schema, properties and
// format version, not its snapshot: a table that only gained snapshots
// since (a commit anywhere, a transaction block's staged write) is read
// at its new one by the plan as it is, bind once and read current data,
// as PostgreSQL's plan cache does. A plan that reads a table at a given
// snapshot (a ref, FOR VERSION AS OF) is kept only while the table's
// metadata is the same.
type Deps struct {
	// generation is the session's Env.Generation when binding began;
	// generationOf reads it again.
	generation   uint64
	generationOf func() uint64
	mu           sync.Mutex
	reads        []depRead
	sealed       bool
	// volatile: binding read rows a relation computes when it is read
	// (pg_catalog, information_schema), the clock (FOR TIMESTAMP AS OF)
	// or files (read_csv); such a plan is never current.
	volatile bool
	// pinned: the plan reads some table at a snapshot binding chose (a
	// ref, FOR VERSION AS OF), so no table moves to a newer one.
	pinned bool
}

// depRead is one resolution: how to make it again and what it gave.
type depRead struct {
	again  func(ctx context.Context) (*plan.Table, error)
	got    tableStamp
	failed bool
	// rt is the relation handed to binding, which the plan reads through:
	// Current moves it to the table's newer snapshot.
	rt *plan.Table
}

// tableStamp is what binding took from a resolved name.
type tableStamp struct {
	ident     string
	meta, ref string
	tbl       *table.Table
	loc       string
	snapshot  int64 // the current snapshot's id; -1: none
	schema    int
	view      *plan.View
}

func stampOf(rt *plan.Table) tableStamp {
	st := tableStamp{ident: lake.IdentKey(rt.Ident), meta: rt.Meta, ref: rt.Ref, tbl: rt.Table, view: rt.View, snapshot: -1}
	if rt.Table != nil {
		st.loc = rt.Table.MetadataLocation()
		if s := rt.Table.CurrentSnapshot(); s != nil {
			st.snapshot = s.SnapshotID
		}
		st.schema = rt.Table.Metadata().CurrentSchema().ID
	}
	return st
}

// denotes: rt is the relation the stamp was taken of, at the same
// metadata. The catalog usually hands out one *table.Table per metadata
// file; another object for the same file (an external catalog's load, a
// branch's view) is the same when it shows the same snapshot and schema.
func (a tableStamp) denotes(rt *plan.Table) bool {
	if rt.Virtual != nil || a.meta != rt.Meta || a.ref != rt.Ref || a.ident != lake.IdentKey(rt.Ident) || !sameView(a.view, rt.View) {
		return false
	}
	if a.tbl == rt.Table {
		return true
	}
	b := stampOf(rt)
	return a.tbl != nil && b.tbl != nil && a.loc != "" && a.loc == b.loc &&
		a.snapshot == b.snapshot && a.schema == b.schema
}

func sameView(a, b *plan.View) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.SQL == b.SQL && slices.Equal(a.Columns, b.Columns)
}

// NewDeps starts recording a binding against env.
func NewDeps(env *Env) *Deps {
	d := &Deps{generationOf: env.Generation}
	if d.generationOf != nil {
		d.generation = d.generationOf()
	}
	return d
}

// Record notes one resolution binding made: rt (or the error) and how to
// resolve the name again. Nothing is recorded once the plan is sealed
// (resolutions while it runs are not binding's).
func (d *Deps) Record(rt *plan.Table, err error, again func(ctx context.Context) (*plan.Table, error)) {
	if d == nil {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.sealed {
		return
	}
	if rt != nil && rt.Virtual != nil {
		d.volatile = true
		return
	}
	r := depRead{again: again, failed: err != nil, rt: rt}
	if err == nil && rt != nil {
		r.got = stampOf(rt)
	}
	d.reads = append(d.reads, r)
}

// Reads: binding resolved some name (or read a computed relation).
func (d *Deps) Reads() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.reads) > 0 || d.volatile
}

// Seal ends recording: the plan is bound.
func (d *Deps) Seal() {
	d.mu.Lock()
	d.sealed = true
	d.mu.Unlock()
}

// Current is false once the session changed something binding may have
// read (Env.Generation); else it resolves every name again (in ctx: as the
// statement executing now sees them, pinning what it loads, flushing what
// its block buffered) and reports whether each still denotes what binding
// read. A name that no longer resolves, or whose lookup fails, is not
// current: binding again reports the error.
func (d *Deps) Current(ctx context.Context) (bool, error) {
	if d.volatile || (d.generationOf != nil && d.generationOf() != d.generation) {
		return false, nil
	}
	var moved []moveTo
	for i, r := range d.reads {
		rt, err := r.again(ctx)
		if r.failed || err != nil || rt == nil {
			if r.failed && err != nil {
				continue
			}
			return false, nil
		}
		if r.got.denotes(rt) {
			continue
		}
		if d.pinned || !r.got.sameShape(r.rt, rt) {
			return false, nil
		}
		moved = append(moved, moveTo{i, rt})
	}
	for _, m := range moved {
		d.reads[m.read].rt.Table = m.rt.Table
		d.reads[m.read].got = stampOf(m.rt)
	}
	return true, nil
}

// moveTo is a read whose table only gained snapshots: the plan reads rt's.
type moveTo struct {
	read int
	rt   *plan.Table
}

// sameShape: now is the relation binding read (was), at other metadata
// that binding would read alike: the same schema, properties (declared
// types, modes) and format version (lineage columns). Metadata tables are
// read whole when bound, and views are bound from their text, so neither
// moves.
func (a tableStamp) sameShape(was, now *plan.Table) bool {
	if was == nil || was.Table == nil || now.Table == nil || now.Virtual != nil || now.View != nil || a.view != nil ||
		a.meta != "" || now.Meta != "" || a.ref != "" || now.Ref != "" || a.ident != lake.IdentKey(now.Ident) {
		return false
	}
	wm, nm := was.Table.Metadata(), now.Table.Metadata()
	return wm.CurrentSchema().ID == nm.CurrentSchema().ID && wm.Version() == nm.Version() &&
		maps.Equal(was.Table.Properties(), now.Table.Properties())
}

// recordingCatalog resolves through a catalog, recording each resolution.
type recordingCatalog struct {
	inner plan.Catalog
	deps  *Deps
}

func (c recordingCatalog) ResolveTable(ctx context.Context, n sql.TableName) (*plan.Table, error) {
	rt, err := c.inner.ResolveTable(ctx, n)
	inner, again := c.inner, ResolvedName(n, rt)
	c.deps.Record(rt, err, func(ctx context.Context) (*plan.Table, error) { return inner.ResolveTable(ctx, again) })
	return rt, err
}

// ResolvedName is n qualified with the schema it resolved in (rt): a plan
// checks the table it was bound over, not search_path again, as
// PostgreSQL's plan cache does (a SET search_path moves the session's
// generation; a table created later earlier in the path goes unnoticed),
// which spares a lookup per schema before it.
func ResolvedName(n sql.TableName, rt *plan.Table) sql.TableName {
	if n.Schema == "" && rt != nil && rt.Virtual == nil && len(rt.Ident) == 2 {
		n.Schema = rt.Ident[0]
	}
	return n
}

// Recording is env with its catalog's resolutions recorded in deps.
func (e *Env) Recording(deps *Deps) *Env {
	r := *e
	r.Catalog = recordingCatalog{inner: e.Catalog, deps: deps}
	return &r
}

// notePlan marks what of a bound plan no catalog name tells: a read of
// what may change without the catalog knowing (FOR TIMESTAMP AS OF an
// expression: the same names may mean another snapshot later; files read
// by read_csv: a pattern may match more files, a file may have other
// columns) makes it never current; a table read at a snapshot binding
// chose (a ref, FOR VERSION AS OF) keeps the plan from moving any table
// to a newer snapshot.
func (d *Deps) notePlan(q *plan.Query, subs []*plan.Subquery) {
	d.mu.Lock()
	defer d.mu.Unlock()
	note := func(n plan.Node) {
		switch x := n.(type) {
		case *plan.Scan:
			d.pinned = d.pinned || x.SnapshotID != nil
			d.volatile = d.volatile || x.AsOf
		case *plan.Files:
			d.volatile = true
		}
	}
	plan.Walk(q, note)
	for _, s := range subs {
		plan.Walk(s.Query, note)
	}
}

// BindCount counts the statements bound against an Env (Plan and
// SubqueryPlanner): the session's tests prove with it that a plan is
// bound once and then reused.
type BindCount struct{ n atomic.Int64 }

// Load is the bindings counted so far.
func (c *BindCount) Load() int64 {
	if c == nil {
		return 0
	}
	return c.n.Load()
}

func (c *BindCount) add() {
	if c != nil {
		c.n.Add(1)
	}
}
