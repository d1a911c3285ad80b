package session

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/magmalake/magmalake/internal/pgtest"
	"github.com/magmalake/magmalake/internal/s3test"
	"github.com/magmalake/magmalake/lake"
	"github.com/magmalake/magmalake/pgerr"
)

// lakeRow is the model of one row of the test table (id, v, s).
type lakeRow struct {
	v int
	s string
}

// lakeModel is the table as the statements that succeeded left it.
type lakeModel map[int]lakeRow

// rows renders the model as SELECT * FROM t ORDER BY id prints it, and as
// iceberg-go's scan canonicalises it (fndBatch), sorted.
func (m lakeModel) rows() (text string, scan [][]string) {
	var b strings.Builder
	for _, id := range slices.Sorted(maps.Keys(m)) {
		r := m[id]
		fmt.Fprintf(&b, "%d|%d|%s\n", id, r.v, r.s)
		scan = append(scan, []string{"i:" + strconv.Itoa(id), "i:" + strconv.Itoa(r.v), "s:" + r.s})
	}
	return b.String(), fndSorted(scan)
}

// Every command on a warehouse in S3 (versitygw), with the SQL catalog on
// the embedded SQLite and on PostgreSQL 15, in the four table modes: each
// step's result equals a model computed here, and iceberg-go's own scan
// reads the same rows; statements that fail with their files half written
// (a division by zero, a cancel) leave the bucket exactly as it was.
func TestS3LakeCommands(t *testing.T) {
	srv := s3test.StartVersity(t)
	srv.CreateBucket(t, "lake")
	proxy := srv.Proxy(t)
	catalogs := []struct {
		name string
		cfg  func(t *testing.T) lake.Config
	}{
		{"sqlite", func(t *testing.T) lake.Config {
			return lake.Config{DataDir: t.TempDir(), WarehouseURI: "s3://lake/sqlite", CatalogProps: proxy.Props()}
		}},
		{"postgres", func(t *testing.T) lake.Config {
			pg := pgtest.Start(t)
			pg.CreateDatabase(t, "catalog")
			props := proxy.Props()
			props["type"], props["uri"], props["sql.dialect"] = "sql", pg.URL("catalog"), "postgres"
			return lake.Config{CatalogName: "pg", WarehouseURI: "s3://lake/pg", CatalogProps: props}
		}},
	}
	modes := []struct{ version, mode string }{
		{"2", "copy-on-write"}, {"2", "merge-on-read"}, {"3", "copy-on-write"}, {"3", "merge-on-read"},
	}
	for _, c := range catalogs {
		t.Run(c.name, func(t *testing.T) {
			eng := testEngineWith(t, c.cfg(t))
			for _, m := range modes {
				name := fmt.Sprintf("t_v%s_%s", m.version, strings.ReplaceAll(m.mode, "-", "_"))
				t.Run(name, func(t *testing.T) {
					runLakeCommands(t, eng, proxy, name, m.version, m.mode)
				})
			}
		})
	}
}

func runLakeCommands(t *testing.T, eng *Engine, proxy *s3test.Proxy, name, version, mode string) {
	s := testSessionOn(t, eng)
	ctx := context.Background()
	model := lakeModel{}
	t0 := time.Now()
	lap := func(what string) { t.Logf("%6.2fs %s", time.Since(t0).Seconds(), what); t0 = time.Now() }
	defer lap("end")
	check := func(step string) {
		t.Helper()
		text, scan := model.rows()
		if got := mustQuery(t, s, "SELECT * FROM "+name+" ORDER BY id").text(); got != text {
			t.Fatalf("after %s: SELECT gives\n%s\nthe model is\n%s", step, got, text)
		}
		if got := fndSorted(fndIcebergRows(t, s, "public", name)); !slices.EqualFunc(got, scan, slices.Equal) {
			t.Fatalf("after %s: iceberg-go's scan reads\n%v\nthe model is\n%v", step, got, scan)
		}
	}

	mustQuery(t, s, fmt.Sprintf(`CREATE TABLE %s (id int, v int, s text) WITH ('format-version' = '%s',
		'write.delete.mode' = '%s', 'write.update.mode' = '%s', 'write.merge.mode' = '%s')`, name, version, mode, mode, mode))
	tbl, err := eng.wh.LoadTable(ctx, lake.Ident("public", name))
	if err != nil {
		t.Fatal(err)
	}
	loc := tbl.Location()
	if !strings.HasPrefix(loc, "s3://lake/") {
		t.Fatalf("table location %s is not in the bucket", loc)
	}
	prefix := strings.TrimPrefix(loc, "s3://lake/") + "/"

	var values []string
	for id := 1; id <= 10; id++ {
		values = append(values, fmt.Sprintf("(%d, %d, 'r%d')", id, id, id))
		model[id] = lakeRow{id, fmt.Sprintf("r%d", id)}
	}
	mustQuery(t, s, "INSERT INTO "+name+" VALUES "+strings.Join(values, ", "))
	var copyData strings.Builder
	for id := 11; id <= 20; id++ {
		fmt.Fprintf(&copyData, "%d\t%d\tc%d\n", id, id*2, id)
		model[id] = lakeRow{id * 2, fmt.Sprintf("c%d", id)}
	}
	mustCopyIn(t, s, "COPY "+name+" FROM STDIN", copyData.String(), 10)
	check("INSERT and COPY")
	lap("INSERT and COPY")

	mustQuery(t, s, "DELETE FROM "+name+" WHERE id % 4 = 0")
	for id := range model {
		if id%4 == 0 {
			delete(model, id)
		}
	}
	check("DELETE")
	lap("DELETE")
	mustQuery(t, s, "UPDATE "+name+" SET v = v + 100, s = 'u' WHERE id <= 6")
	for id, r := range model {
		if id <= 6 {
			model[id] = lakeRow{r.v + 100, "u"}
		}
	}
	check("UPDATE")
	lap("UPDATE")
	mustQuery(t, s, "MERGE INTO "+name+` AS t USING (VALUES (3, 7), (5, 0), (30, 1)) AS m(id, op) ON t.id = m.id
		WHEN MATCHED AND m.op = 0 THEN DELETE
		WHEN MATCHED THEN UPDATE SET v = m.op
		WHEN NOT MATCHED THEN INSERT VALUES (m.id, m.op, 'm')`)
	model[3] = lakeRow{7, model[3].s}
	delete(model, 5)
	model[30] = lakeRow{1, "m"}
	check("MERGE")
	lap("MERGE")

	// Statements that fail after writing files. Small target files make
	// the writer finish objects while the statement still runs.
	mustQuery(t, s, "ALTER TABLE "+name+" SET ('write.target-file-size-bytes' = '1024')")
	before := proxy.Keys(t, "lake", prefix)
	proxy.Requests()
	mustFail(t, s, pgerr.DivisionByZero, "INSERT INTO "+name+" SELECT g, 1 / (g - 20000), 'x' FROM generate_series(1, 20000) g")
	if puts := countWrites(proxy.Requests()); puts == 0 {
		t.Fatal("the failing INSERT wrote no object: the test does not test clean-up")
	}
	assertKeys(t, proxy, prefix, before, "a failed INSERT")
	lap("a failed INSERT")
	mustFail(t, s, pgerr.DivisionByZero, "UPDATE "+name+" SET v = v / (id - 30)")
	t.Logf("the failing UPDATE sent %d writes", countWrites(proxy.Requests()))
	assertKeys(t, proxy, prefix, before, "a failed UPDATE")
	lap("a failed UPDATE")

	// A cancel once the first object is written.
	cctx, cancel := context.WithCancel(ctx)
	var once sync.Once
	proxy.OnServed(func(r *http.Request) {
		if r.Method == http.MethodPut || r.Method == http.MethodPost {
			once.Do(cancel)
		}
	})
	_, err = s.query(cctx, "INSERT INTO "+name+" SELECT g + 1000, g, 'c' FROM generate_series(1, 20000) g")
	proxy.OnServed(nil)
	cancel()
	var se *pgerr.Error
	if !errors.As(err, &se) || se.Code != pgerr.QueryCanceled {
		t.Fatalf("cancelled INSERT: want 57014, got %v", err)
	}
	if puts := countWrites(proxy.Requests()); puts == 0 {
		t.Fatal("the cancelled INSERT wrote no object: the test does not test clean-up")
	}
	assertKeys(t, proxy, prefix, before, "a cancelled INSERT")
	lap("a cancelled INSERT")
	mustQuery(t, s, "ALTER TABLE "+name+" RESET ('write.target-file-size-bytes')")
	check("failed statements")

	mustQuery(t, s, "ALTER TABLE "+name+" EXECUTE optimize(file_size_threshold => '128MB', delete_ratio_threshold => 0.0)")
	check("OPTIMIZE")
	lap("OPTIMIZE")
	filesBefore := len(proxy.Keys(t, "lake", prefix))
	r := mustQuery(t, s, "ALTER TABLE "+name+" EXECUTE expire_snapshots(retention_threshold => '0s', retain_last => 1)")
	check("expire_snapshots")
	lap("expire_snapshots")
	if filesAfter := len(proxy.Keys(t, "lake", prefix)); filesAfter >= filesBefore {
		t.Fatalf("expire_snapshots (%s) deleted nothing: %d objects before, %d after", r.text(), filesBefore, filesAfter)
	}

	// An object no snapshot references, as a crashed writer leaves.
	stray := prefix + "data/00000-0-stray.parquet"
	if _, err := proxy.Client().PutObject(ctx, &s3.PutObjectInput{
		Bucket: aws.String("lake"), Key: aws.String(stray), Body: strings.NewReader("not parquet"),
	}); err != nil {
		t.Fatal(err)
	}
	mustQuery(t, s, "SET magmalake.remove_orphan_files_min_retention = '0s'")
	r = mustQuery(t, s, "ALTER TABLE "+name+" EXECUTE remove_orphan_files(retention_threshold => '0s')")
	if slices.Contains(proxy.Keys(t, "lake", prefix), stray) {
		t.Fatalf("remove_orphan_files (%s) left %s", r.text(), stray)
	}
	if r.rows[0][0] != "1" {
		t.Fatalf("remove_orphan_files deleted %s files, want only the stray one", r.rows[0][0])
	}
	check("remove_orphan_files")
	lap("remove_orphan_files")
	mustQuery(t, s, "VACUUM "+name)
	check("VACUUM")
	lap("VACUUM")

	mustQuery(t, s, "DROP TABLE "+name+" PURGE")
	if left := proxy.Keys(t, "lake", prefix); len(left) > 0 {
		t.Fatalf("DROP TABLE PURGE left %d objects: %v", len(left), left)
	}
}

// countWrites counts the object writes among reqs: PUTs and multipart
// upload POSTs.
func countWrites(reqs []s3test.Request) int {
	n := 0
	for _, r := range reqs {
		if r.Method == http.MethodPut || r.Method == http.MethodPost && r.Multipart() {
			n++
		}
	}
	return n
}

func assertKeys(t *testing.T, proxy *s3test.Proxy, prefix string, want []string, after string) {
	t.Helper()
	got := proxy.Keys(t, "lake", prefix)
	if !slices.Equal(got, want) {
		var added, gone []string
		for _, k := range got {
			if !slices.Contains(want, k) {
				added = append(added, k)
			}
		}
		for _, k := range want {
			if !slices.Contains(got, k) {
				gone = append(gone, k)
			}
		}
		t.Fatalf("after %s the bucket changed: new objects %v, vanished %v", after, added, gone)
	}
}
