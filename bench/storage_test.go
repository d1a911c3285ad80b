package bench

import (
	"context"
	"strings"
	"testing"

	"github.com/magmalake/magmalake/internal/s3test"
)

// The delete bench on a warehouse in S3 (versitygw) deletes the same rows
// as on local disk, says where it ran, and leaves the bucket empty.
func TestRunOnS3(t *testing.T) {
	srv := s3test.StartVersity(t)
	srv.CreateBucket(t, "lake")
	cfg := Config{Dir: t.TempDir(), Rows: 2000, Files: 4, MaxRuns: 1, Layouts: []Layout{Unpartitioned},
		Modes: []Mode{CopyOnWrite, MergeOnReadV3}, Cases: []string{caseScattered}}
	local := runAll(t, cfg, func() {})
	cfg.Storage = s3Storage(srv, "s3://lake/bench")
	var during int
	remote := runAll(t, cfg, func() { during = len(srv.Keys(t, "lake", "bench/")) })
	if during == 0 {
		t.Error("no objects under s3://lake/bench while the run was on S3")
	}
	if len(local) != 2 || len(remote) != len(local) {
		t.Fatalf("%d results locally, %d on S3; want 2 each", len(local), len(remote))
	}
	for i, l := range local {
		r := remote[i]
		if l.Storage != StorageLocal || r.Storage != StorageS3 {
			t.Errorf("storage %q locally and %q on S3", l.Storage, r.Storage)
		}
		if r.Case != l.Case || r.Mode != l.Mode || r.Rows != l.Rows || r.RowsDeleted != l.RowsDeleted || r.RowsDeleted == 0 {
			t.Errorf("on S3 %s %s rows %d deleted %d; locally %s %s rows %d deleted %d",
				r.Case, r.Mode, r.Rows, r.RowsDeleted, l.Case, l.Mode, l.Rows, l.RowsDeleted)
		}
		if !strings.Contains(r.Line(), "storage s3") || !strings.Contains(r.JSON(), `"storage":"s3"`) {
			t.Errorf("S3 result does not say so: %s / %s", r.Line(), r.JSON())
		}
	}
	if left := srv.Keys(t, "lake", ""); len(left) > 0 {
		t.Errorf("the run left %d objects in the bucket, e.g. %s", len(left), left[0])
	}
}

// The select bench answers the same on S3 as locally (row counts; every
// query must run), refuses DuckDB there, and cleans up after itself.
func TestSelectOnS3(t *testing.T) {
	srv := s3test.StartVersity(t)
	srv.CreateBucket(t, "lake")
	cfg := SelectConfig{Dir: t.TempDir(), Rows: 4000, Files: 4, LookupRows: 2000, Repeat: 1, NoPostgres: true, NoDuckDB: true}
	local, err := RunSelect(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Storage = s3Storage(srv, "s3://lake/select")
	var during int
	cfg.Progress = func(string) { during = max(during, len(srv.Keys(t, "lake", "select/"))) }
	remote, err := RunSelect(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if during == 0 {
		t.Error("no objects under s3://lake/select while the run was on S3")
	}
	if remote.Storage != StorageS3 || len(remote.Results) != len(local.Results) {
		t.Fatalf("on S3: storage %q, %d results; locally %d", remote.Storage, len(remote.Results), len(local.Results))
	}
	for i, r := range remote.Results {
		l := local.Results[i]
		if r.Error != "" || r.Query != l.Query || r.ResultRows != l.ResultRows || r.Storage != StorageS3 {
			t.Errorf("%s on %s: on S3 error %q, %d rows, storage %q; locally %d rows", r.Query, r.Table, r.Error, r.ResultRows, r.Storage, l.ResultRows)
		}
	}
	if left := srv.Keys(t, "lake", ""); len(left) > 0 {
		t.Errorf("the run left %d objects in the bucket, e.g. %s", len(left), left[0])
	}
	cfg.NoDuckDB = false
	if _, err := RunSelect(context.Background(), cfg); err == nil || !strings.Contains(err.Error(), "--no-duckdb") {
		t.Errorf("DuckDB on S3: %v", err)
	}
}

func s3Storage(srv *s3test.Server, warehouse string) Storage {
	st := Storage{Warehouse: warehouse}
	for k, v := range srv.Props() {
		st.CatalogProps = append(st.CatalogProps, k+"="+v)
	}
	return st
}

// runAll runs the bench, calling each after every result, and returns the
// results.
func runAll(t *testing.T, cfg Config, each func()) []Result {
	t.Helper()
	var out []Result
	err := Run(context.Background(), cfg, func(r Result) error {
		out = append(out, r)
		each()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
