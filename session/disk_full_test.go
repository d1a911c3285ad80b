package session

import (
	"context"
	"errors"
	"fmt"
	"io"
	iofs "io/fs"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"

	iceio "github.com/apache/iceberg-go/io"

	"github.com/magmalake/magmalake/lake"
	"github.com/magmalake/magmalake/pgerr"
)

func TestDiskFullMapsTo53100(t *testing.T) {
	full := &os.PathError{Op: "write", Path: "/lake/public.db/t/data/x.parquet", Err: syscall.ENOSPC}
	quota := &os.PathError{Op: "write", Path: "/lake/m.avro", Err: syscall.EDQUOT}
	cases := []struct {
		err  error
		want string
	}{
		{fmt.Errorf("write data files for public.t: %w", full), `could not write file "/lake/public.db/t/data/x.parquet": No space left on device`},
		{errors.Join(errors.New("first"), fmt.Errorf("commit: %w", quota)), `could not write file "/lake/m.avro": Disk quota exceeded`},
		{fmt.Errorf("flush: %w", syscall.ENOSPC), "could not write file: No space left on device"},
		// Parallel writers cancel each other: the full disk is the cause.
		{errors.Join(context.Canceled, fmt.Errorf("write: %w", full)), `could not write file "/lake/public.db/t/data/x.parquet": No space left on device`},
	}
	for _, c := range cases {
		var se *pgerr.Error
		if !errors.As(toSQLError(c.err), &se) || se.Code != pgerr.DiskFull || se.Message != c.want {
			t.Fatalf("%v: got %+v, want 53100 %q", c.err, se, c.want)
		}
	}
	var se *pgerr.Error
	if errors.As(toSQLError(&os.PathError{Op: "open", Path: "/x", Err: syscall.ENOENT}), &se) && se.Code == pgerr.DiskFull {
		t.Fatal("a missing file is not a full disk")
	}
}

// fullFS is the local file system behind the scheme fullfs://, with a disk
// that fills up: once writesLeft file creations have happened, every write
// fails with ENOSPC, as on a real full disk (the file exists, partly written).
type fullFS struct{}

const fullScheme = "fullfs"

var (
	registerFullFS sync.Once
	writesLeft     atomic.Int64 // < 0: the disk never fills
)

func fullLocal(name string) string {
	return strings.TrimPrefix(name, fullScheme+"://")
}

func (fullFS) Open(name string) (iceio.File, error) { return iceio.LocalFS{}.Open(fullLocal(name)) }
func (fullFS) ReadFile(name string) ([]byte, error) {
	return iceio.LocalFS{}.ReadFile(fullLocal(name))
}
func (fullFS) Remove(name string) error { return iceio.LocalFS{}.Remove(fullLocal(name)) }
func (fullFS) Stat(name string) (iofs.FileInfo, error) {
	return iceio.LocalFS{}.Stat(fullLocal(name))
}
func (fullFS) WalkDir(root string, fn iofs.WalkDirFunc) error {
	return iceio.LocalFS{}.WalkDir(fullLocal(root), fn)
}

func (fullFS) Create(name string) (iceio.FileWriter, error) {
	w, err := iceio.LocalFS{}.Create(fullLocal(name))
	if err != nil {
		return nil, err
	}
	return &fullWriter{w: w, path: fullLocal(name), full: !roomForFile()}, nil
}

// roomForFile takes one file from writesLeft, or reports the disk full.
func roomForFile() bool {
	for {
		n := writesLeft.Load()
		switch {
		case n < 0:
			return true
		case n == 0:
			return false
		case writesLeft.CompareAndSwap(n, n-1):
			return true
		}
	}
}

func (f fullFS) WriteFile(name string, p []byte) error {
	w, err := f.Create(name)
	if err != nil {
		return err
	}
	if _, err := w.Write(p); err != nil {
		w.Close()
		return err
	}
	return w.Close()
}

type fullWriter struct {
	w    iceio.FileWriter
	path string
	full bool
}

func (w *fullWriter) Write(p []byte) (int, error) {
	if w.full {
		return 0, &os.PathError{Op: "write", Path: w.path, Err: syscall.ENOSPC}
	}
	return w.w.Write(p)
}

func (w *fullWriter) ReadFrom(r io.Reader) (int64, error) {
	return io.Copy(struct{ io.Writer }{w}, r)
}

func (w *fullWriter) Close() error { return w.w.Close() }

// newFullEnv is a delete test environment whose warehouse is on fullfs.
func newFullEnv(t *testing.T) *delSQLEnv {
	t.Helper()
	registerFullFS.Do(func() {
		iceio.Register(fullScheme, func(context.Context, *url.URL, map[string]string) (iceio.IO, error) {
			return fullFS{}, nil
		})
	})
	writesLeft.Store(-1)
	t.Cleanup(func() { writesLeft.Store(-1) })
	dir := t.TempDir()
	eng := testEngineWith(t, lake.Config{DataDir: dir, WarehouseURI: fullScheme + "://" + dir + "/warehouse"})
	s := testSessionOn(t, eng)
	return &delSQLEnv{s: s, eng: eng, dir: dir}
}

// TestDiskFullStatementLeavesTableUnchanged fills the disk at the 1st, 2nd,
// ... file a statement creates (data files, delete files, manifests, the
// manifest list, the metadata file) until the statement fits: every run
// that hit the full disk answers 53100 naming a file, and leaves the
// table's rows, snapshots and files exactly as they were.
func TestDiskFullStatementLeavesTableUnchanged(t *testing.T) {
	stmts := []string{
		"INSERT INTO t VALUES (1000, 1, 'n', true), (1001, 2, 'm', false)",
		"DELETE FROM t WHERE grp = 1 OR id < 5",
		"UPDATE t SET s = 'x' WHERE grp = 2",
		"INSERT OVERWRITE t SELECT * FROM t WHERE grp <> 3",
	}
	for _, m := range delSQLModes {
		for _, q := range stmts {
			t.Run(m.mode+"/v"+m.version+"/"+strings.Join(strings.Fields(q)[:2], " "), func(t *testing.T) {
				e := newFullEnv(t)
				model := e.createModelTable(t, m.mode, m.version, 2, 12)
				snaps, files := e.snapshotCount(t), e.files(t)
				for n := int64(0); ; n++ {
					if n > 50 {
						t.Fatal("the statement never fit on the disk")
					}
					writesLeft.Store(n)
					_, err := e.s.query(context.Background(), q)
					writesLeft.Store(-1)
					if err == nil {
						break
					}
					var se *pgerr.Error
					if !errors.As(err, &se) || se.Code != pgerr.DiskFull ||
						!strings.HasPrefix(se.Message, `could not write file "`) || !strings.HasSuffix(se.Message, `": No space left on device`) {
						t.Fatalf("disk full after %d files: %v", n, err)
					}
					if e.snapshotCount(t) != snaps || !slices.Equal(e.files(t), files) {
						t.Fatalf("disk full after %d files (%s): table or files changed: %d -> %d snapshots, files left %v, files gone %v",
							n, se.Message, snaps, e.snapshotCount(t), fileDiff(e.files(t), files), fileDiff(files, e.files(t)))
					}
					e.assertContents(t, model)
				}
				if e.snapshotCount(t) != snaps+1 {
					t.Fatalf("%d snapshots after the statement fit, want %d", e.snapshotCount(t), snaps+1)
				}
			})
		}
	}
}

// fileDiff lists the files of a that b lacks.
func fileDiff(a, b []string) []string {
	var out []string
	for _, f := range a {
		if !slices.Contains(b, f) {
			out = append(out, f)
		}
	}
	return out
}
