package deletes

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
	"github.com/apache/iceberg-go/table/dv"

	"github.com/magmalake/magmalake/internal/parallel"
	"github.com/magmalake/magmalake/internal/progress"
	"github.com/magmalake/magmalake/internal/rowruns"
	"github.com/magmalake/magmalake/lake"
)

// PlanOptions tune planning. The zero value is usable.
type PlanOptions struct {
	// Workers is how many data files are read in parallel; default 4 on a
	// local file system, more on object storage (lake.ReadWorkers).
	Workers         int
	BatchSize       int64      // rows per record batch; default 65536
	CaseInsensitive bool       // resolve column names case-insensitively
	ReturnColumns   []string   // collect these columns of deleted rows (RETURNING)
	Cache           *FileCache // small files' decoded columns, kept across statements; nil: none
	// Manifests keeps decoded manifests across statements (the
	// warehouse's); nil: each plan reads the snapshot's manifests.
	Manifests *lake.ManifestCache
	// rowIDs appends the _row_id of each deleted row to the ReturnColumns
	// on a v3 table (an UPDATE keeps it for the new version of the row).
	rowIDs bool
}

func (o PlanOptions) withDefaults() PlanOptions {
	if o.BatchSize <= 0 {
		o.BatchSize = 1 << 16
	}
	return o
}

// RowDelete is one data file and which of its rows a delete takes out.
type RowDelete struct {
	Task table.FileScanTask // the file's first scan task
	File iceberg.DataFile
	// Positions the predicate matched, ascending, live rows only. Empty for a
	// file dropped unread.
	Positions []uint64
	// Existing holds positions already deleted by deletion vectors and
	// position delete files: what a new deletion vector has to absorb.
	Existing *dv.RoaringPositionBitmap
	// LiveRows is the rows still alive before this delete (record count minus
	// existing position and equality deletes).
	LiveRows int64
	// WholeFile: every live row matched, so the file is removed.
	WholeFile bool
	// Unread: the decision came from partition data alone; the data file was
	// never opened.
	Unread bool
	// Superseded are the file's deletion vectors, replaced by any new one.
	Superseded []iceberg.DataFile
	// PositionDeleteFiles are the v2 position delete files naming this file.
	PositionDeleteFiles []iceberg.DataFile
	// BytesRead from the data file while planning.
	BytesRead int64
	// Returned holds the ReturnColumns of the deleted rows (whole-file drops
	// are read when ReturnColumns is set). The caller releases them.
	Returned []arrow.RecordBatch

	eqDeleted  *dv.RoaringPositionBitmap // rows equality deletes already remove
	eqPaths    []string                  // the equality delete files that apply (OPTIMIZE's clean-up)
	posTargets map[string][]string       // position delete file → data files it names
}

// Deleted is the number of rows this plan removes.
func (r *RowDelete) Deleted() int64 {
	if r.WholeFile {
		return r.LiveRows
	}
	return int64(len(r.Positions))
}

// survivors is the number of rows a copy-on-write rewrite keeps.
func (r *RowDelete) survivors() int64 {
	return r.File.Count() - int64(r.dropped().Cardinality())
}

// dropped is every position absent after this delete: matched ∪ existing ∪
// equality-deleted; what a copy-on-write rewrite must leave out.
func (r *RowDelete) dropped() *dv.RoaringPositionBitmap {
	bm := dv.NewRoaringPositionBitmap()
	if r.Existing != nil {
		bm.Or(r.Existing)
	}
	if r.eqDeleted != nil {
		bm.Or(r.eqDeleted)
	}
	for _, p := range r.Positions {
		bm.Set(p)
	}
	return bm
}

// planner holds what every per-file plan shares.
type planner struct {
	tbl   *table.Table
	pred  Predicate
	opts  PlanOptions
	bound iceberg.BooleanExpression // strict-proof form of Filter; nil unless Exact
	rd    positionalReader
	ix    *deleteIndex
	// layouts are the columns files are read with, by column names.
	layouts readLayouts
}

// readLayout is how a file is read for a list of column names: the
// requested schema, and where the predicate's and RETURNING's columns sit
// in its batches. Every file of a statement with the same equality deletes
// reads the same names, so each layout is worked out once (per file it
// was an eighth of a contended statement's planning). Read-only once made.
type readLayout struct {
	req             *iceberg.Schema
	cols            columnIndex
	predIdx, retIdx []int
}

// readLayouts memoises layouts; safe for the planner's parallel reads.
type readLayouts struct {
	mu sync.Mutex
	by map[string]*readLayout
}

func (ls *readLayouts) of(p *planner, names, predCols []string, withLineage bool) (*readLayout, error) {
	key := fmt.Sprintf("%d\x00%t\x00%s", len(predCols), withLineage, strings.Join(names, "\x00"))
	ls.mu.Lock()
	defer ls.mu.Unlock()
	if l, ok := ls.by[key]; ok {
		return l, nil
	}
	l, err := p.newReadLayout(names, predCols, withLineage)
	if err != nil {
		return nil, err
	}
	if ls.by == nil {
		ls.by = map[string]*readLayout{}
	}
	ls.by[key] = l
	return l, nil
}

func (p *planner) newReadLayout(names, predCols []string, withLineage bool) (*readLayout, error) {
	sc := p.tbl.Schema()
	req, err := requestedSchema(sc, names, !p.opts.CaseInsensitive)
	if err != nil {
		return nil, err
	}
	if withLineage {
		req = lineageSchema(req)
	}
	l := &readLayout{req: req, cols: newColumnIndex(req)}
	if l.predIdx, err = l.cols.indices(sc, predCols, !p.opts.CaseInsensitive); err != nil {
		return nil, err
	}
	if l.retIdx, err = l.cols.indices(sc, p.opts.ReturnColumns, !p.opts.CaseInsensitive); err != nil {
		return nil, err
	}
	if withLineage {
		l.retIdx = append(l.retIdx, l.cols.byID[iceberg.RowIDFieldID])
	}
	return l, nil
}

// PlanRowDeletes finds which live rows of which data files pred deletes.
// Files are pruned with iceberg-go's inclusive evaluation of pred.Filter, read
// in parallel, one record batch at a time, only pred.Columns (plus equality
// delete keys and ReturnColumns).
func PlanRowDeletes(ctx context.Context, tbl *table.Table, pred Predicate, opts PlanOptions) ([]RowDelete, error) {
	results, err := eachFile(ctx, tbl, pred, opts, (*planner).planFile)
	if err != nil {
		for _, r := range results {
			if r != nil {
				releaseAll(r.Returned)
			}
		}
		return nil, err
	}
	var out []RowDelete
	for _, r := range results {
		if r != nil {
			out = append(out, *r)
		}
	}
	return out, nil
}

// eachFile runs fn, in parallel, on each data file pred's filter keeps
// (its scan tasks); the results come in scan order, and on an error
// whatever was computed so far.
func eachFile[T any](ctx context.Context, tbl *table.Table, pred Predicate, opts PlanOptions,
	fn func(*planner, context.Context, []table.FileScanTask) (T, error)) ([]T, error) {
	opts = opts.withDefaults()
	groups, err := planTasks(ctx, tbl, pred, opts)
	if err != nil {
		return nil, err
	}
	p, err := newPlanner(ctx, tbl, pred, opts)
	if err != nil {
		return nil, err
	}
	planReads(progress.Of(ctx), p.rd.reads, groups)
	defer p.rd.reads.end() // delete files, and data files known without reading
	results := make([]T, len(groups))
	err = forEachParallel(ctx, len(groups), p.workers(), func(ctx context.Context, i int) error {
		r, err := fn(p, ctx, groups[i])
		p.rd.reads.of(groups[i][0].File.FilePath()).Done()
		results[i] = r
		return err
	})
	return results, err
}

// planReads counts in prog the files a plan may read: each data file of
// groups and each position or equality delete file they name, once.
func planReads(prog *progress.Progress, reads *fileReads, groups [][]table.FileScanTask) {
	if prog == nil {
		return
	}
	for _, g := range groups {
		reads.plan(prog, g[0].File.FilePath(), g[0].File.FileSizeBytes())
	}
	for _, g := range groups {
		for _, t := range g {
			for _, d := range slices.Concat(t.DeleteFiles, t.EqualityDeleteFiles) {
				if reads.of(d.FilePath()) == nil {
					reads.plan(prog, d.FilePath(), d.FileSizeBytes())
				}
			}
		}
	}
}

// localWorkers is PlanOptions.Workers' default on a local file system.
const localWorkers = 4

// workers is how many files the planner reads at once.
func (p *planner) workers() int {
	if p.opts.Workers > 0 {
		return p.opts.Workers
	}
	return lake.ReadWorkers(p.rd.fs, localWorkers)
}

func newPlanner(ctx context.Context, tbl *table.Table, pred Predicate, opts PlanOptions) (*planner, error) {
	fs, err := tbl.FS(ctx)
	if err != nil {
		return nil, fmt.Errorf("table io: %w", err)
	}
	p := &planner{tbl: tbl, pred: pred, opts: opts}
	p.rd = positionalReader{fs: fs, nameMapping: tbl.NameMapping(), formatVersion: tbl.Metadata().Version(),
		batchSize: opts.BatchSize, mem: memory.DefaultAllocator, cache: opts.Cache, keys: &sync.Map{}, reads: &fileReads{}}
	p.ix = newDeleteIndex(p.rd, tbl.Schema())
	if pred.Exact {
		if p.bound, err = bindStrict(tbl.Schema(), pred.filter(), !opts.CaseInsensitive); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// planTasks plans the scan and groups split tasks by data file, in order.
func planTasks(ctx context.Context, tbl *table.Table, pred Predicate, opts PlanOptions) ([][]table.FileScanTask, error) {
	if tbl.CurrentSnapshot() == nil {
		return nil, nil
	}
	tasks, err := lake.PlanFiles(ctx, tbl, lake.PlanRequest{Filter: pred.filter(), CaseSensitive: !opts.CaseInsensitive, Manifests: opts.Manifests})
	if err != nil {
		return nil, fmt.Errorf("plan files: %w", err)
	}
	index := map[string]int{}
	var groups [][]table.FileScanTask
	for _, t := range tasks {
		path := t.File.FilePath()
		i, ok := index[path]
		if !ok {
			i = len(groups)
			index[path] = i
			groups = append(groups, nil)
		}
		groups[i] = append(groups[i], t)
	}
	return groups, nil
}

// planFile plans one data file; nil means no live row of it matches.
func (p *planner) planFile(ctx context.Context, tasks []table.FileScanTask) (*RowDelete, error) {
	df := tasks[0].File
	ex, err := p.ix.load(ctx, df.FilePath(), tasks)
	if err != nil {
		return nil, fmt.Errorf("existing deletes of %s: %w", df.FilePath(), err)
	}
	r := &RowDelete{Task: tasks[0], File: df, Existing: ex.positions, Superseded: ex.superseded,
		PositionDeleteFiles: ex.posFiles, eqDeleted: dv.NewRoaringPositionBitmap(), posTargets: ex.posTargets}
	if p.provenUnread(df) && len(p.opts.ReturnColumns) == 0 {
		err = p.planWhole(ctx, r, ex)
	} else {
		err = p.planRead(ctx, r, ex)
	}
	if err != nil || r.Deleted() == 0 {
		releaseAll(r.Returned)
		return nil, err
	}
	return r, nil
}

// provenUnread tells whether every row of df matches without reading it:
// from its partition tuple, or from exact statistics of integer columns
// without nulls (a range covering whole files).
func (p *planner) provenUnread(df iceberg.DataFile) bool {
	if p.bound == nil {
		return false
	}
	spec := p.tbl.Metadata().PartitionSpecByID(int(df.SpecID()))
	return partitionProof{spec: spec, part: df.Partition()}.provesAll(p.bound) ||
		metricsProof{df: df}.provesAll(p.bound)
}

// planWhole counts the live rows of a file every row of which matches. Only
// equality deletes force opening it (their key columns alone).
func (p *planner) planWhole(ctx context.Context, r *RowDelete, ex *existingDeletes) error {
	r.WholeFile = true
	r.Unread = len(ex.eqFiles) == 0
	if !r.Unread {
		if err := p.read(ctx, r, ex, nil, false); err != nil {
			return err
		}
	}
	r.LiveRows = r.File.Count() - r.Existing.Cardinality() - r.eqDeleted.Cardinality()
	return nil
}

// planRead reads the file and asks Match which live rows go.
func (p *planner) planRead(ctx context.Context, r *RowDelete, ex *existingDeletes) error {
	if p.pred.Match == nil && !(p.pred.Exact && isAlwaysTrue(p.pred.filter())) {
		return errors.New("predicate has no Match function but rows must be examined")
	}
	if err := p.read(ctx, r, ex, p.pred.Columns, true); err != nil {
		return err
	}
	r.LiveRows = r.File.Count() - r.Existing.Cardinality() - r.eqDeleted.Cardinality()
	r.WholeFile = r.LiveRows > 0 && int64(len(r.Positions)) == r.LiveRows
	return nil
}

func isAlwaysTrue(e iceberg.BooleanExpression) bool {
	_, ok := e.(iceberg.AlwaysTrue)
	return ok
}

// read streams the file once: equality-deleted rows are recorded, and when
// match is set the predicate columns go to Match and live matches are kept.
func (p *planner) read(ctx context.Context, r *RowDelete, ex *existingDeletes, predCols []string, match bool) error {
	names := append([]string{}, predCols...)
	for _, ef := range ex.eqFiles {
		names = append(names, ef.columnNames()...)
	}
	if match {
		names = append(names, p.opts.ReturnColumns...)
	}
	lineage, withLineage := lineageOf(p.tbl, r.Task)
	withLineage = withLineage && match && p.opts.rowIDs
	lay, err := p.layouts.of(p, names, predCols, withLineage)
	if err != nil {
		return err
	}
	req, predIdx, retIdx := lay.req, lay.predIdx, lay.retIdx
	eq := eqMatcher{files: ex.eqFiles, colIndex: lay.cols.byID}
	n, err := p.rd.read(ctx, r.File.FilePath(), r.File.FileSizeBytes(), req, func(b arrow.RecordBatch, base int64) error {
		if withLineage {
			filled, err := lineage.fill(b, base)
			if err != nil {
				return err
			}
			defer filled.Release()
			b = filled
		}
		dead := p.deadRows(r, ex, eq, b, base)
		var mask []bool
		if match {
			var err error
			if mask, err = p.matchLive(ctx, b, predIdx, dead); err != nil {
				return err
			}
		}
		if match && dead == nil && len(retIdx) == 0 {
			// Nothing to skip or collect: the matches are the positions.
			for i, m := range mask {
				if m {
					r.Positions = append(r.Positions, uint64(base)+uint64(i))
				}
			}
			return nil
		}
		if !match {
			return nil
		}
		keep := make([]bool, b.NumRows())
		kept := false
		for i := range keep {
			if mask[i] && (dead == nil || !dead[i]) {
				r.Positions = append(r.Positions, uint64(base)+uint64(i))
				keep[i], kept = true, true
			}
		}
		if kept && len(retIdx) > 0 {
			// Most files of a selective delete keep no row: filtering
			// them for RETURNING was a third of planning a cached file.
			return p.collect(ctx, r, b, retIdx, keep)
		}
		return nil
	})
	r.BytesRead += n
	return err
}

// deadRows marks the rows of b already deleted (nil: none): by existing
// deletion vectors and position deletes, or by equality deletes, which it
// records in r.
func (p *planner) deadRows(r *RowDelete, ex *existingDeletes, eq eqMatcher, b arrow.RecordBatch, base int64) []bool {
	if r.Existing.IsEmpty() && len(eq.files) == 0 {
		return nil
	}
	var dead []bool
	for i := range int(b.NumRows()) {
		pos := uint64(base) + uint64(i)
		gone := r.Existing.Contains(pos)
		if !gone && len(eq.files) > 0 && eq.deleted(b, i) {
			r.eqDeleted.Set(pos)
			gone = true
		}
		if gone {
			if dead == nil {
				dead = make([]bool, b.NumRows())
			}
			dead[i] = true
		}
	}
	return dead
}

// matchLive runs Match over the live rows of b only (dead marks the others;
// they read as unmatched): a row already deleted is not there for the
// predicate to see, which matters to one that counts what it saw (MERGE).
func (p *planner) matchLive(ctx context.Context, b arrow.RecordBatch, idx []int, dead []bool) ([]bool, error) {
	if dead == nil {
		return p.match(ctx, b, idx)
	}
	keep := make([]bool, len(dead))
	var live []int
	for i, d := range dead {
		keep[i] = !d
		if !d {
			live = append(live, i)
		}
	}
	mask := make([]bool, len(dead))
	if len(live) == 0 {
		return mask, nil
	}
	lb, err := rowruns.Filter(ctx, b, keep)
	if err != nil {
		return nil, fmt.Errorf("select live rows: %w", err)
	}
	defer lb.Release()
	got, err := p.match(ctx, lb, idx)
	if err != nil {
		return nil, err
	}
	for k, i := range live {
		mask[i] = got[k]
	}
	return mask, nil
}

// match runs pred.Match on the predicate columns of b.
func (p *planner) match(ctx context.Context, b arrow.RecordBatch, idx []int) ([]bool, error) {
	if p.pred.Match == nil {
		mask := make([]bool, b.NumRows())
		for i := range mask {
			mask[i] = true
		}
		return mask, nil
	}
	sub := subBatch(b, idx)
	defer sub.Release()
	mask, err := p.pred.Match(ctx, sub)
	if err != nil {
		return nil, fmt.Errorf("evaluate predicate: %w", err)
	}
	if len(mask) != int(b.NumRows()) {
		return nil, fmt.Errorf("predicate returned %d results for %d rows", len(mask), b.NumRows())
	}
	return mask, nil
}

// collect keeps the RETURNING columns of the rows this delete removes.
func (p *planner) collect(ctx context.Context, r *RowDelete, b arrow.RecordBatch, idx []int, keep []bool) error {
	sub := subBatch(b, idx)
	defer sub.Release()
	out, err := rowruns.Filter(ctx, sub, keep)
	if err != nil {
		return fmt.Errorf("collect returned rows: %w", err)
	}
	if out.NumRows() == 0 {
		out.Release()
		return nil
	}
	r.Returned = append(r.Returned, out)
	return nil
}

// columnIndex locates requested columns in the batches a read produces.
type columnIndex struct{ byID map[int]int }

func newColumnIndex(req *iceberg.Schema) columnIndex {
	ci := columnIndex{byID: map[int]int{}}
	for i, f := range req.Fields() {
		ci.byID[f.ID] = i
	}
	return ci
}

func (ci columnIndex) indices(sc *iceberg.Schema, names []string, caseSensitive bool) ([]int, error) {
	sel, err := requestedSchema(sc, names, caseSensitive)
	if err != nil {
		return nil, err
	}
	out := make([]int, 0, len(names))
	for _, f := range sel.Fields() {
		out = append(out, ci.byID[f.ID])
	}
	return out, nil
}

func subBatch(b arrow.RecordBatch, idx []int) arrow.RecordBatch {
	if identity(idx, int(b.NumCols())) {
		b.Retain()
		return b
	}
	fields := make([]arrow.Field, len(idx))
	cols := make([]arrow.Array, len(idx))
	for k, i := range idx {
		fields[k] = b.Schema().Field(i)
		cols[k] = b.Column(i)
	}
	return array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, b.NumRows())
}

// identity reports whether idx picks all n columns in order.
func identity(idx []int, n int) bool {
	if len(idx) != n {
		return false
	}
	for k, i := range idx {
		if i != k {
			return false
		}
	}
	return true
}

func releaseAll(bs []arrow.RecordBatch) {
	for _, b := range bs {
		b.Release()
	}
}

// forEachParallel runs fn for 0..n-1 on at most workers goroutines (see
// parallel.ForEach), with compute kernels single-threaded under fn
// (sequentialCompute): the files are the parallelism.
func forEachParallel(ctx context.Context, n, workers int, fn func(ctx context.Context, i int) error) error {
	return parallel.ForEach(sequentialCompute(ctx), n, workers, fn)
}

// sequentialCompute makes arrow's compute kernels under ctx run on the
// calling goroutine. FilterRecordBatch otherwise filters each column on its
// own goroutine and waits for them all: for a small file's batch that wait
// for the scheduler cost far more than the filtering, under load most of a
// contended DELETE's plan time.
func sequentialCompute(ctx context.Context) context.Context {
	ec := compute.GetExecCtx(ctx)
	if ec.NumParallel == 1 {
		return ctx
	}
	ec.NumParallel = 1
	return compute.SetExecCtx(ctx, ec)
}
