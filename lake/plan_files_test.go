package lake

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
)

// planModel is what the differential test knows of its table: each live
// data file's ids by position, and which rows are gone.
type planModel struct {
	files   map[string][]int64 // live data file -> ids in file order
	byPath  map[string]iceberg.DataFile
	dvs     map[string]iceberg.DataFile // data file -> its DV (v3)
	dvPos   map[string][]int64          // data file -> positions its DV holds
	deleted map[string]map[int64]bool   // data file -> deleted positions
	eqGone  map[int64]bool              // ids equality-deleted
}

// planFilter is a filter both as an Iceberg expression and as a Go
// predicate over (id, p, s), written independently of any evaluator.
type planFilter struct {
	name string
	expr iceberg.BooleanExpression
	keep func(id int64, p int32, s string) bool
}

func planFilters(r *rand.Rand, maxID int64) []planFilter {
	c := r.Int64N(maxID + 1)
	c2 := r.Int64N(maxID + 1)
	k := int32(r.IntN(10))
	pre := fmt.Sprintf("s%d", r.IntN(10))
	id, p, s := iceberg.Reference("id"), iceberg.Reference("p"), iceberg.Reference("s")
	return []planFilter{
		{"true", nil, func(int64, int32, string) bool { return true }},
		{fmt.Sprintf("id < %d", c), iceberg.LessThan(id, c), func(i int64, _ int32, _ string) bool { return i < c }},
		{fmt.Sprintf("id >= %d", c), iceberg.GreaterThanEqual(id, c), func(i int64, _ int32, _ string) bool { return i >= c }},
		{fmt.Sprintf("id = %d", c), iceberg.EqualTo(id, c), func(i int64, _ int32, _ string) bool { return i == c }},
		{fmt.Sprintf("id in (%d, %d)", c, c2), iceberg.IsIn(id, c, c2), func(i int64, _ int32, _ string) bool { return i == c || i == c2 }},
		{fmt.Sprintf("p = %d", k), iceberg.EqualTo(p, k), func(_ int64, q int32, _ string) bool { return q == k }},
		{fmt.Sprintf("p > %d", k), iceberg.GreaterThan(p, k), func(_ int64, q int32, _ string) bool { return q > k }},
		{fmt.Sprintf("not p = %d", k), iceberg.NewNot(iceberg.EqualTo(p, k)), func(_ int64, q int32, _ string) bool { return q != k }},
		{fmt.Sprintf("s starts with %s", pre), iceberg.StartsWith(s, pre), func(_ int64, _ int32, v string) bool { return strings.HasPrefix(v, pre) }},
		{fmt.Sprintf("id < %d or p = %d", c, k), iceberg.NewOr(iceberg.LessThan(id, c), iceberg.EqualTo(p, k)),
			func(i int64, q int32, _ string) bool { return i < c || q == k }},
		{fmt.Sprintf("not id < %d and p <= %d", c, k), iceberg.NewAnd(iceberg.NewNot(iceberg.LessThan(id, c)), iceberg.LessThanEqual(p, k)),
			func(i int64, q int32, _ string) bool { return i >= c && q <= k }},
		{"id is null", iceberg.IsNull(id), func(int64, int32, string) bool { return false }},
	}
}

// TestPlanFilesMatchesIcebergGo grows v2 and v3 tables partitioned by p
// (and, halfway, by bucket(4, id) too: two specs) through random appends, position deletes or deletion vectors, equality
// deletes (v2, per partition, as other engines write them) and removed
// files, and after every commit plans random filters with PlanFiles and
// with iceberg-go's own scan. PlanFiles must keep every data file
// iceberg-go keeps, attach the same deletion vectors and position delete
// files, at least the same equality deletes; and reading its tasks must
// give exactly the model's live rows that match.
func TestPlanFilesMatchesIcebergGo(t *testing.T) {
	for _, v := range []int{2, 3} {
		for seed := uint64(1); seed <= 2; seed++ {
			t.Run(fmt.Sprintf("v%d/seed%d", v, seed), func(t *testing.T) { planDifferential(t, v, seed) })
		}
	}
}

func planDifferential(t *testing.T, v int, seed uint64) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(seed, uint64(v)))
	w := openTest(t, t.TempDir())
	ident := createPCTable(t, w, "planned", v)
	m := &planModel{files: map[string][]int64{}, byPath: map[string]iceberg.DataFile{}, dvs: map[string]iceberg.DataFile{},
		dvPos: map[string][]int64{}, deleted: map[string]map[int64]bool{}, eqGone: map[int64]bool{}}
	cache := NewManifestCache(DefaultManifestCacheBytes)
	next := int64(0)
	pruned := 0
	for step := range 14 {
		if step == 7 { // files from now on are partitioned by p and bucket(4, id) too
			if _, err := w.Tables().EvolveSpec(ctx, ident, func(_ *table.Table, us *table.UpdateSpec) error {
				us.AddField("id", iceberg.BucketTransform{NumBuckets: 4}, "id_bucket")
				return nil
			}); err != nil {
				t.Fatal(err)
			}
		}
		tbl, err := w.LoadTable(ctx, ident)
		if err != nil {
			t.Fatal(err)
		}
		change := planStep(t, r, tbl, m, v, step, &next)
		if tbl, err = CommitChange(ctx, w.Catalog(), tbl, change); err != nil {
			t.Fatalf("step %d: %v", step, err)
		}
		m.learnFiles(t, tbl)
		for _, f := range planFilters(r, next) {
			pruned += comparePlans(t, tbl, m, f, cache)
		}
	}
	if pruned == 0 {
		t.Fatal("no filter pruned any data file: the test exercised no pruning")
	}
	specs := map[int32]bool{}
	for path := range m.files {
		specs[m.byPath[path].SpecID()] = true
	}
	if len(specs) < 2 {
		t.Fatalf("live files of %d partition specs: the test exercised no evolution", len(specs))
	}
}

// planStep makes one random change to tbl and records it in m.
func planStep(t *testing.T, r *rand.Rand, tbl *table.Table, m *planModel, v, step int, next *int64) FileChange {
	live := slices.Sorted(maps.Keys(m.files))
	action := r.IntN(4)
	if step < 3 || step == 7 || len(live) == 0 { // step 7 appends under the evolved spec
		action = 0
	}
	switch action {
	case 1: // delete positions of one file
		path := live[r.IntN(len(live))]
		df := m.byPath[path]
		pos := randomPositions(r, len(m.files[path]))
		if v == 3 {
			all := slices.Compact(slices.Sorted(slices.Values(append(slices.Clone(m.dvPos[path]), pos...))))
			dvf := writeDV(t, tbl, fmt.Sprintf("dv-%d", step), df, all)
			ch := FileChange{AddDeletes: []iceberg.DataFile{dvf}}
			if old, ok := m.dvs[path]; ok {
				ch.RemoveDeletes = []iceberg.DataFile{old}
			}
			m.dvs[path], m.dvPos[path] = dvf, all
			m.markDeleted(path, all)
			return ch
		}
		m.markDeleted(path, pos)
		return FileChange{AddDeletes: []iceberg.DataFile{writePosDeletes(t, tbl, fmt.Sprintf("pos-%d", step), df, pos)}}
	case 2: // equality delete of some ids of one partition (v2), or remove a file
		path := live[r.IntN(len(live))]
		if v == 2 {
			ids := m.files[path]
			var gone []int64
			for _, i := range randomPositions(r, len(ids)) {
				gone = append(gone, ids[i])
				m.eqGone[ids[i]] = true
			}
			return FileChange{AddDeletes: []iceberg.DataFile{writeEqDeletes(t, tbl, fmt.Sprintf("eq-%d", step), m.byPath[path], gone)}}
		}
		fallthrough
	case 3: // remove a data file (and its DV)
		path := live[r.IntN(len(live))]
		ch := FileChange{RemoveData: []iceberg.DataFile{m.byPath[path]}}
		if dvf, ok := m.dvs[path]; ok {
			ch.RemoveDeletes = []iceberg.DataFile{dvf}
		}
		delete(m.files, path)
		delete(m.dvs, path)
		return ch
	}
	from := *next
	*next += int64(10 + r.IntN(40))
	return FileChange{AddData: writeRows(t, tbl, int(from), int(*next))}
}

func randomPositions(r *rand.Rand, n int) []int64 {
	var out []int64
	for i := range n {
		if r.IntN(4) == 0 {
			out = append(out, int64(i))
		}
	}
	if out == nil {
		out = []int64{int64(r.IntN(n))}
	}
	return out
}

func (m *planModel) markDeleted(path string, pos []int64) {
	if m.deleted[path] == nil {
		m.deleted[path] = map[int64]bool{}
	}
	for _, p := range pos {
		m.deleted[path][p] = true
	}
}

// learnFiles records the ids of data files the model does not know yet,
// read from tbl one file at a time before any delete names them.
func (m *planModel) learnFiles(t *testing.T, tbl *table.Table) {
	t.Helper()
	ids, files := fileIDs(t, tbl)
	for path, got := range ids {
		if _, known := m.files[path]; !known {
			m.files[path], m.byPath[path] = got, files[path]
		}
	}
}

// want is the model's live rows matching f, as sorted ids.
func (m *planModel) want(f planFilter) []int64 {
	var out []int64
	for path, ids := range m.files {
		for pos, id := range ids {
			if m.deleted[path][int64(pos)] || m.eqGone[id] {
				continue
			}
			if f.keep(id, int32((id/10)%10), fmt.Sprintf("s%d", id)) {
				out = append(out, id)
			}
		}
	}
	slices.Sort(out)
	return out
}

// comparePlans checks PlanFiles against iceberg-go and the model for f and
// returns how many data files PlanFiles left out.
func comparePlans(t *testing.T, tbl *table.Table, m *planModel, f planFilter, cache *ManifestCache) int {
	t.Helper()
	ctx := context.Background()
	ours, err := PlanFiles(ctx, tbl, PlanRequest{Filter: f.expr, CaseSensitive: true, Manifests: cache})
	if err != nil {
		t.Fatalf("%s: PlanFiles: %v", f.name, err)
	}
	opts := []table.ScanOption{}
	if f.expr != nil {
		opts = append(opts, table.WithRowFilter(f.expr))
	}
	theirs, err := tbl.Scan(opts...).PlanFiles(ctx)
	if err != nil {
		t.Fatalf("%s: iceberg-go: %v", f.name, err)
	}
	all, err := tbl.Scan().PlanFiles(ctx)
	if err != nil {
		t.Fatal(err)
	}
	unfiltered := tasksByPath(all)
	got := tasksByPath(ours)
	// The cache remembers each file's metrics across filters: it must
	// prune exactly as reading them anew does.
	plain, err := PlanFiles(ctx, tbl, PlanRequest{Filter: f.expr, CaseSensitive: true})
	if err != nil {
		t.Fatalf("%s: PlanFiles without a cache: %v", f.name, err)
	}
	if a, b := slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(tasksByPath(plain))); !slices.Equal(a, b) {
		t.Fatalf("%s: PlanFiles plans %v through the cache, %v without it", f.name, a, b)
	}
	for path := range tasksByPath(theirs) {
		if _, ok := got[path]; !ok {
			t.Fatalf("%s: iceberg-go plans %s, PlanFiles does not", f.name, path)
		}
	}
	for path, task := range got {
		ref, ok := unfiltered[path]
		if !ok {
			t.Fatalf("%s: PlanFiles plans %s, which is not live", f.name, path)
		}
		if a, b := deletePaths(task.DeletionVectorFiles), deletePaths(ref.DeletionVectorFiles); !slices.Equal(a, b) {
			t.Fatalf("%s: %s: deletion vectors %v, iceberg-go %v", f.name, path, a, b)
		}
		if a, b := deletePaths(task.DeleteFiles), deletePaths(ref.DeleteFiles); !slices.Equal(a, b) {
			t.Fatalf("%s: %s: position deletes %v, iceberg-go %v", f.name, path, a, b)
		}
		eq := deletePaths(task.EqualityDeleteFiles)
		for _, p := range deletePaths(ref.EqualityDeleteFiles) {
			if !slices.Contains(eq, p) {
				t.Fatalf("%s: %s: equality delete %s missing (have %v)", f.name, path, p, eq)
			}
		}
		// iceberg-go leaves out equality deletes whose ids cannot overlap
		// the file's; any other must be of the data file's partition.
		for _, d := range task.EqualityDeleteFiles {
			if !maps.Equal(d.Partition(), task.File.Partition()) {
				t.Fatalf("%s: %s (partition %v): equality delete %s of partition %v", f.name, path, task.File.Partition(), d.FilePath(), d.Partition())
			}
		}
	}
	if gotIDs, want := readIDs(t, tbl, ours, f), m.want(f); !slices.Equal(gotIDs, want) {
		t.Fatalf("%s: read %v, model %v", f.name, gotIDs, want)
	}
	return len(unfiltered) - len(got)
}

func tasksByPath(tasks []table.FileScanTask) map[string]table.FileScanTask {
	out := map[string]table.FileScanTask{}
	for _, task := range tasks {
		out[task.File.FilePath()] = task
	}
	return out
}

func deletePaths(files []iceberg.DataFile) []string {
	var out []string
	for _, f := range files {
		out = append(out, f.FilePath())
	}
	slices.Sort(out)
	return out
}

// readIDs reads tasks through iceberg-go (which applies the delete files
// they carry) and keeps the ids f holds for.
func readIDs(t *testing.T, tbl *table.Table, tasks []table.FileScanTask, f planFilter) []int64 {
	t.Helper()
	_, batches, err := tbl.Scan().ReadTasks(context.Background(), tasks)
	if err != nil {
		t.Fatal(err)
	}
	var out []int64
	for _, row := range collectRows(t, batches) {
		id, p, s := row["id"].(int64), row["p"].(int32), row["s"].(string)
		if f.keep(id, p, s) {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return out
}

// writeEqDeletes writes an equality delete file on id for ids, in
// target's spec and partition, as a partitioned writer of another engine
// would.
func writeEqDeletes(t *testing.T, tbl *table.Table, name string, target iceberg.DataFile, ids []int64) iceberg.DataFile {
	t.Helper()
	field, ok := tbl.Schema().FindFieldByName("id")
	if !ok {
		t.Fatal("no id column")
	}
	eqSchema := iceberg.NewSchema(0, field)
	sc := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: !field.Required,
		Metadata: arrow.NewMetadata([]string{"PARQUET:field_id"}, []string{fmt.Sprint(field.ID)})}}, nil)
	bld := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer bld.Release()
	for _, id := range ids {
		bld.Field(0).(*array.Int64Builder).Append(id)
	}
	rec := bld.NewRecordBatch()
	defer rec.Release()
	path, size, md := writeParquetFile(t, tbl, name, sc, rec)
	df, err := table.DataFileFromMetadata(table.DataFileArgs{
		Schema: eqSchema, Spec: *tbl.Metadata().PartitionSpecByID(int(target.SpecID())),
		Format: iceberg.ParquetFile, Metadata: md, FilePath: path, FileSize: size, Content: iceberg.EntryContentEqDeletes,
		PartitionValues: target.Partition(), FormatVersion: tbl.Metadata().Version(), EqualityFieldIDs: []int{field.ID},
	})
	if err != nil {
		t.Fatal(err)
	}
	return df
}

// TestPlanFilesKeepsEmptyStringPartitions: iceberg-go v0.7.0 writes a
// string partition value "" as a missing summary bound, and its own
// manifest evaluator reads that as "every value null" and prunes the
// manifest. PlanFiles reads a missing bound as unknown, so the row whose s
// is the empty string is planned and read.
func TestPlanFilesKeepsEmptyStringPartitions(t *testing.T) {
	ctx := context.Background()
	w := openTest(t, t.TempDir())
	cols := []testCol{
		{"id", iceberg.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int64, nil},
		{"s", iceberg.PrimitiveTypes.String, arrow.BinaryTypes.String, nil},
	}
	ident := Ident("public", "empties")
	spec := TableSpec{Fields: []PartitionField{{Source: "s", Transform: iceberg.IdentityTransform{}}}}
	if _, err := w.Tables().CreateTable(ctx, ident, icebergSchema(cols), spec, nil); err != nil {
		t.Fatal(err)
	}
	appendRows(t, w, ident, cols, []row{{"id": int64(1), "s": ""}})
	tbl := appendRows(t, w, ident, cols, []row{{"id": int64(2), "s": "a"}})
	for _, c := range []struct {
		filter iceberg.BooleanExpression
		keep   func(string) bool
		want   []int64
	}{
		{iceberg.EqualTo(iceberg.Reference("s"), ""), func(s string) bool { return s == "" }, []int64{1}},
		{iceberg.LessThan(iceberg.Reference("s"), "a"), func(s string) bool { return s < "a" }, []int64{1}},
		{iceberg.EqualTo(iceberg.Reference("s"), "a"), func(s string) bool { return s == "a" }, []int64{2}},
	} {
		tasks, err := PlanFiles(ctx, tbl, PlanRequest{Filter: c.filter, CaseSensitive: true})
		if err != nil {
			t.Fatal(err)
		}
		_, batches, err := tbl.Scan().ReadTasks(ctx, tasks)
		if err != nil {
			t.Fatal(err)
		}
		var got []int64
		for _, r := range collectRows(t, batches) {
			if c.keep(r["s"].(string)) {
				got = append(got, r["id"].(int64))
			}
		}
		slices.Sort(got)
		if !slices.Equal(got, c.want) {
			t.Fatalf("%v: read %v, want %v", c.filter, got, c.want)
		}
	}
}
