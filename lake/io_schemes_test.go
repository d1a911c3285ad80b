package lake

import (
	"bytes"
	"context"
	"errors"
	"io"
	iofs "io/fs"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	iceio "github.com/apache/iceberg-go/io"

	"github.com/magmalake/magmalake/internal/s3test"
	"github.com/magmalake/magmalake/internal/testenv"
)

// s3Lake is a warehouse in bucket lake of a versitygw behind a recording
// proxy, with the embedded SQLite catalog.
func s3Lake(t *testing.T) (*Warehouse, *s3test.Proxy) {
	t.Helper()
	srv := s3test.StartVersity(t)
	srv.CreateBucket(t, "lake")
	proxy := srv.Proxy(t)
	w, err := Open(context.Background(), Config{DataDir: t.TempDir(), WarehouseURI: "s3://lake/wh", CatalogProps: proxy.Props()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return w, proxy
}

// How the S3 IO talks to the server: a file larger than a part is a
// multipart upload, a small one a single PUT; Open is a HEAD, ReadAt a GET
// of exactly the bytes asked for, Read a GET from the offset; a missing
// object is fs.ErrNotExist; at most objectReadsInFlight GETs run at once
// however many readers there are; a Remove under a cancelled context still
// removes.
func TestS3IORequests(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	fsys, proxy := s3Bucket(ctx, t)
	wfs := fsys.(iceio.WriteFileIO)
	big := bytes.Repeat([]byte("0123456789abcdef"), 20<<20/16) // 20 MiB
	write := func(name string, data []byte) []s3test.Request {
		t.Helper()
		proxy.Requests()
		fw, err := wfs.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := fw.Write(data); err != nil {
			t.Fatal(err)
		}
		if err := fw.Close(); err != nil {
			t.Fatal(err)
		}
		return proxy.Requests()
	}
	reqs := write("s3://lake/big.bin", big)
	parts := 0
	for _, r := range reqs {
		if r.Method == http.MethodPut && strings.Contains(r.Query, "partNumber") {
			parts++
		}
	}
	if parts < 2 {
		t.Fatalf("a 20 MiB write is not a multipart upload: %+v", reqs)
	}
	reqs = write("s3://lake/small.bin", []byte("tiny"))
	if len(reqs) != 1 || reqs[0].Method != http.MethodPut || reqs[0].Multipart() {
		t.Fatalf("a 4-byte write: want one PUT, got %+v", reqs)
	}

	f, err := fsys.Open("s3://lake/big.bin")
	if err != nil {
		t.Fatal(err)
	}
	if reqs := proxy.Requests(); len(reqs) != 1 || reqs[0].Method != http.MethodHead {
		t.Fatalf("Open: want one HEAD, got %+v", reqs)
	}
	if fi, err := f.Stat(); err != nil || fi.Size() != int64(len(big)) {
		t.Fatalf("Stat: %v, %v", fi, err)
	}
	buf := make([]byte, 100)
	if n, err := f.ReadAt(buf, 1<<20+3); err != nil || n != 100 || !bytes.Equal(buf, big[1<<20+3:1<<20+103]) {
		t.Fatalf("ReadAt: %d, %v", n, err)
	}
	if reqs := proxy.Requests(); len(reqs) != 1 || reqs[0].Range != "bytes=1048579-1048678" {
		t.Fatalf("ReadAt of 100 bytes: want one ranged GET, got %+v", reqs)
	}
	if n, err := f.ReadAt(buf, int64(len(big))-10); n != 10 || !errors.Is(err, io.EOF) {
		t.Fatalf("ReadAt past the end: %d, %v", n, err)
	}
	if _, err := f.Seek(int64(len(big))-16, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	proxy.Requests()
	tail, err := io.ReadAll(f)
	if err != nil || string(tail) != "0123456789abcdef" {
		t.Fatalf("Read from an offset: %q, %v", tail, err)
	}
	if reqs := proxy.Requests(); len(reqs) != 1 || !strings.HasPrefix(reqs[0].Range, "bytes=20971504-") {
		t.Fatalf("Read from offset: want one GET from there, got %+v", reqs)
	}
	f.Close()
	if _, err := fsys.Open("s3://lake/missing.bin"); !errors.Is(err, iofs.ErrNotExist) {
		t.Fatalf("Open of a missing object: %v", err)
	}

	// Many readers at once: the GETs in flight stay bounded.
	proxy.ResetMax()
	var wg sync.WaitGroup
	errs := make(chan error, 400)
	for i := range 400 {
		wg.Go(func() {
			f, err := fsys.Open("s3://lake/big.bin")
			if err != nil {
				errs <- err
				return
			}
			defer f.Close()
			b := make([]byte, 256<<10)
			if _, err := f.ReadAt(b, int64(i%64)<<18); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if m := proxy.MaxGetsInFlight(); m > objectReadsInFlight {
		t.Fatalf("%d GETs in flight at once, want at most %d", m, objectReadsInFlight)
	} else {
		t.Logf("400 concurrent readers: at most %d GETs in flight", m)
	}

	cancel()
	if err := fsys.Remove("s3://lake/small.bin"); err != nil {
		t.Fatalf("Remove after cancel: %v", err)
	}
	if keys := proxy.Keys(t, "lake", ""); strings.Join(keys, ",") != "big.bin" {
		t.Fatalf("bucket holds %v", keys)
	}
}

// A table on S3 through the warehouse: every read of a data file is a
// ranged GET (no whole-object GET that nobody reads), and a write that fails
// leaves nothing in the bucket.
func TestS3TableReadsAreRanged(t *testing.T) {
	ctx := context.Background()
	w, proxy := s3Lake(t)
	cols := allTypeCols()
	ident := Ident("public", "ranged")
	tbl, err := w.Tables().CreateTable(ctx, ident, icebergSchema(cols), TableSpec{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	prefix := strings.TrimPrefix(tbl.Location(), "s3://lake/") + "/"
	before := proxy.Keys(t, "lake", prefix)
	if _, err := WriteDataFiles(ctx, tbl, failingBatches(t, cols, 3)); err == nil {
		t.Fatal("the failing write succeeded")
	}
	if after := proxy.Keys(t, "lake", prefix); strings.Join(after, ",") != strings.Join(before, ",") {
		t.Fatalf("a failed write left objects: before %v, after %v", before, after)
	}
	tbl = appendRows(t, w, ident, cols, genRows(cols, 0, 500))
	proxy.Requests()
	_, got := scanAll(t, tbl, ScanOptions{})
	assertSameRows(t, got, genRows(cols, 0, 500))
	reqs := proxy.Requests()
	for _, r := range reqs {
		if r.Method == http.MethodHead && strings.HasSuffix(r.Path, ".parquet") {
			t.Fatalf("our scan sent a HEAD of a data file (the manifest gives its size): %+v", r)
		}
	}
	assertSameRows(t, icebergGoRows(t, tbl), genRows(cols, 0, 500))
	gets := 0
	for _, r := range append(reqs, proxy.Requests()...) {
		if r.Method == http.MethodGet && strings.HasSuffix(r.Path, ".parquet") {
			gets++
			if r.Range == "" {
				t.Fatalf("an unranged GET of a data file: %+v", r)
			}
		}
	}
	if gets == 0 {
		t.Fatal("the scans read no data file")
	}
}

// What a file fetches ahead counts against its bucket's prefetchBudget
// until Close; a fetch that fails gives its share back at once; with the
// budget used up Prefetch fetches nothing and reads go to the store.
func TestS3PrefetchBudget(t *testing.T) {
	fsys, proxy := s3Bucket(context.Background(), t)
	data := bytes.Repeat([]byte("0123456789abcdef"), 4<<20/16)
	if err := fsys.(iceio.WriteFileIO).WriteFile("s3://lake/obj", data); err != nil {
		t.Fatal(err)
	}
	client := fsys.(*objectIO).client
	gets := func() int { return requestCount(proxy, http.MethodGet) }
	ranges := []ByteRange{{Off: 0, Len: 1 << 20}, {Off: 3 << 20, Len: 512 << 10}}
	read := func(f iceio.File) {
		t.Helper()
		buf := make([]byte, 1000)
		if _, err := f.ReadAt(buf, 3<<20+5); err != nil || !bytes.Equal(buf, data[3<<20+5:3<<20+1005]) {
			t.Fatalf("ReadAt: %v", err)
		}
	}

	proxy.Requests()
	f, err := OpenSized(fsys, "s3://lake/obj", int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	Prefetch(f, ranges)
	if n, held := gets(), client.ahead.Load(); n != 2 || held != 1<<20+512<<10 {
		t.Fatalf("prefetch: %d GETs, %d bytes held; want 2 and %d", n, held, 1<<20+512<<10)
	}
	read(f)
	Prefetch(f, ranges[1:])
	if n := gets(); n != 0 {
		t.Fatalf("a read and a prefetch of prefetched bytes made %d GETs", n)
	}
	f.Close()
	if held := client.ahead.Load(); held != 0 {
		t.Fatalf("%d bytes still held after Close", held)
	}

	missing, err := OpenSized(fsys, "s3://lake/missing", int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	Prefetch(missing, ranges)
	if held := client.ahead.Load(); held != 0 {
		t.Fatalf("failed fetches hold %d bytes", held)
	}
	missing.Close()

	client.ahead.Store(prefetchBudget - 100)
	defer client.ahead.Store(0)
	proxy.Requests()
	f, err = OpenSized(fsys, "s3://lake/obj", int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	Prefetch(f, ranges)
	if n := gets(); n != 0 {
		t.Fatalf("over budget, Prefetch made %d GETs", n)
	}
	read(f)
	if n := gets(); n != 1 {
		t.Fatalf("over budget, a read made %d GETs, want 1", n)
	}
	f.Close()
	if held := client.ahead.Load(); held != prefetchBudget-100 {
		t.Fatalf("budget moved to %d without a prefetch", held)
	}
}

// A small object opened with its size is fetched once, by the first read,
// and kept: opening it again reads nothing from the store. The same key
// under another size is another object; a larger object, or one opened
// without its size, is not kept.
func TestS3SmallObjectsKept(t *testing.T) {
	fsys, proxy := s3Bucket(context.Background(), t)
	small := bytes.Repeat([]byte("small object "), 1000)
	large := bytes.Repeat([]byte("0123456789abcdef"), tailBytes/8)
	for name, data := range map[string][]byte{"s3://lake/small": small, "s3://lake/large": large} {
		if err := fsys.(iceio.WriteFileIO).WriteFile(name, data); err != nil {
			t.Fatal(err)
		}
	}
	gets := func() int { return requestCount(proxy, http.MethodGet, http.MethodHead) }
	read := func(name string, size int64, data []byte) {
		t.Helper()
		f, err := OpenSized(fsys, name, size)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		buf := make([]byte, 100)
		if _, err := f.ReadAt(buf, 50); err != nil || !bytes.Equal(buf, data[50:150]) {
			t.Fatalf("ReadAt %s: %v", name, err)
		}
	}
	proxy.Requests()
	for i, want := range []int{1, 0, 0} {
		read("s3://lake/small", int64(len(small)), small)
		if n := gets(); n != want {
			t.Fatalf("open %d of a small object: %d requests, want %d", i+1, n, want)
		}
	}
	read("s3://lake/small", int64(len(small))-1, small) // another object, as far as the cache knows
	if n := gets(); n != 1 {
		t.Fatalf("another size: %d requests, want 1", n)
	}
	for range 2 {
		read("s3://lake/large", int64(len(large)), large)
		if n := gets(); n != 1 {
			t.Fatalf("a large object: %d requests, want its ranged GET", n)
		}
		f, err := fsys.Open("s3://lake/small")
		if err != nil {
			t.Fatal(err)
		}
		f.Close()
		if n := gets(); n != 1 {
			t.Fatalf("an open without size: %d requests, want its HEAD", n)
		}
	}
}

// Readers of one small object at once share one GET; when that GET fails
// because its statement was cancelled, the others fetch for themselves.
func TestS3SmallObjectFetchedOnce(t *testing.T) {
	bg := context.Background()
	fsys, proxy := s3Bucket(bg, t)
	data := bytes.Repeat([]byte("shared "), 1000)
	for _, name := range []string{"s3://lake/a", "s3://lake/b"} {
		if err := fsys.(iceio.WriteFileIO).WriteFile(name, data); err != nil {
			t.Fatal(err)
		}
	}
	readAll := func(fsys iceio.IO, name string) error {
		f, err := OpenSized(fsys, name, int64(len(data)))
		if err != nil {
			return err
		}
		defer f.Close()
		buf := make([]byte, len(data))
		if _, err := f.ReadAt(buf, 0); err != nil {
			return err
		}
		if !bytes.Equal(buf, data) {
			return errors.New("wrong bytes")
		}
		return nil
	}

	// Eight readers, the first GET held until all eight wait.
	proxy.Requests()
	release := make(chan struct{})
	proxy.OnRequest(func(r *http.Request) {
		if r.Method == http.MethodGet {
			<-release
		}
	})
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Go(func() { errs <- readAll(fsys, "s3://lake/a") })
	}
	testenv.WaitFor(t, 10*time.Second, "7 readers waiting on the first's fetch", func() bool { return smallWaiters("a") == 7 })
	close(release)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	proxy.OnRequest(nil)
	if n := requestCount(proxy, http.MethodGet); n != 1 {
		t.Fatalf("eight readers at once made %d GETs, want 1", n)
	}

	// The fetching reader's statement is cancelled: the waiting one
	// fetches on its own and reads the object.
	cctx, cancel := context.WithCancel(bg)
	cfs, err := iceio.LoadFS(cctx, proxy.Props(), "s3://lake/")
	if err != nil {
		t.Fatal(err)
	}
	held, unhold := make(chan struct{}, 1), make(chan struct{})
	proxy.OnRequest(func(r *http.Request) {
		if r.Method == http.MethodGet {
			select {
			case held <- struct{}{}:
				<-unhold
			default:
			}
		}
	})
	defer proxy.OnRequest(nil)
	first := make(chan error, 1)
	go func() { first <- readAll(cfs, "s3://lake/b") }()
	<-held
	second := make(chan error, 1)
	go func() { second <- readAll(fsys, "s3://lake/b") }()
	testenv.WaitFor(t, 10*time.Second, "the second reader waiting on the first's fetch", func() bool { return smallWaiters("b") == 1 })
	cancel()
	if err := <-first; !errors.Is(err, context.Canceled) {
		t.Fatalf("the cancelled reader: %v", err)
	}
	close(unhold)
	if err := <-second; err != nil {
		t.Fatalf("the other reader, after the cancelled fetch: %v", err)
	}
}

// smallWaiters is how many readers wait for the fetch of small object key.
func smallWaiters(key string) int {
	smallFetches.Lock()
	defer smallFetches.Unlock()
	for k, sf := range smallFetches.m {
		if k.key == key {
			return sf.waiters
		}
	}
	return 0
}

// s3Bucket is the IO, under ctx, of bucket lake of a fresh versitygw behind
// the recording proxy.
func s3Bucket(ctx context.Context, t *testing.T) (iceio.IO, *s3test.Proxy) {
	t.Helper()
	srv := s3test.StartVersity(t)
	srv.CreateBucket(t, "lake")
	proxy := srv.Proxy(t)
	fsys, err := iceio.LoadFS(ctx, proxy.Props(), "s3://lake/")
	if err != nil {
		t.Fatal(err)
	}
	return fsys, proxy
}

// requestCount is how many of the proxy's requests since the last
// Requests used one of methods.
func requestCount(proxy *s3test.Proxy, methods ...string) int {
	n := 0
	for _, r := range proxy.Requests() {
		if slices.Contains(methods, r.Method) {
			n++
		}
	}
	return n
}
