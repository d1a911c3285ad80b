package session

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/magmalake/magmalake/internal/s3test"
	"github.com/magmalake/magmalake/lake"
)

// A merge-on-read DELETE on S3 reads each data file it plans with at most
// two requests, whatever its row groups: no HEAD (the manifest gives the
// size), one GET of the file's tail (footer length and footer), one GET of
// the predicate column's chunks of every row group, coalesced. The rows it
// deletes are the ones the predicate matches.
func TestS3DeleteRequestsPerFile(t *testing.T) {
	cfg, proxy := s3Lake(t, "req")
	s := testSessionOn(t, testEngineWith(t, cfg))
	mustQuery(t, s, "CREATE TABLE r (id int, s text, v bigint) WITH ('format-version' = '3', "+
		"'write.delete.mode' = 'merge-on-read', 'write.parquet.row-group-limit' = '2000')")
	const files, perFile = 4, 20000
	for f := range files {
		mustQuery(t, s, fmt.Sprintf("INSERT INTO r SELECT g, repeat(md5(g::text), 4), g * 3 FROM generate_series(%d, %d) g", f*perFile, (f+1)*perFile-1))
	}
	proxy.Requests()
	res := mustQuery(t, s, "DELETE FROM r WHERE id % 7 = 3")
	heads, gets := map[string]int{}, map[string]int{}
	for _, r := range proxy.Requests() {
		if !strings.Contains(r.Path, "/data/") || !strings.HasSuffix(r.Path, ".parquet") {
			continue
		}
		switch r.Method {
		case http.MethodHead:
			heads[r.Path]++
		case http.MethodGet:
			gets[r.Path]++
		}
	}
	if len(gets) != files {
		t.Fatalf("the DELETE read %d data files, want %d: %v", len(gets), files, gets)
	}
	for p, n := range gets {
		if n > 2 || heads[p] > 0 {
			t.Errorf("%s: %d GETs and %d HEADs, want at most 2 GETs and no HEAD", p, n, heads[p])
		}
	}
	want := 0
	for id := range files * perFile {
		if id%7 == 3 {
			want++
		}
	}
	if res.tag != fmt.Sprintf("DELETE %d", want) {
		t.Fatalf("tag %q, want DELETE %d", res.tag, want)
	}
	left := 0
	for id := range files * perFile {
		if id%7 != 3 {
			left += 3 * id
		}
	}
	if got, w := mustQuery(t, s, "SELECT count(*), sum(v) FROM r").text(), fmt.Sprintf("%d|%d\n", files*perFile-want, left); got != w {
		t.Fatalf("left %q, want %q", got, w)
	}
}

// A point lookup on S3 reads the one data file holding its id with few
// requests, whatever it decodes: no HEAD; at planning the file's tail
// (footer and page index, which narrows the kept row group to its pages);
// then that row group's column chunks and page index, coalesced into one
// GET and held while the reader seeks to the page (arrow-go would read a
// chunk again on every seek). So too with the progress line counting the reads
// (its IO over the object store's hid the sizes: a HEAD per file).
func TestS3PointLookupRequests(t *testing.T) {
	t.Run("progress-off", func(t *testing.T) { testS3PointLookup(t, false) })
	t.Run("progress-on", func(t *testing.T) { testS3PointLookup(t, true) })
}

func testS3PointLookup(t *testing.T, progress bool) {
	cfg, proxy := s3Lake(t, "pt")
	s := testSessionOn(t, testEngineWith(t, cfg))
	if progress {
		watchManually(s)
		mustQuery(t, s, "SET magmalake.progress = on")
	}
	mustQuery(t, s, "CREATE TABLE r (id bigint, s text, v bigint)")
	mustQuery(t, s, "INSERT INTO r SELECT g, md5(g::text), g * 3 FROM generate_series(0, 99999) g")
	mustQuery(t, s, "INSERT INTO r SELECT g, md5(g::text), g * 3 FROM generate_series(100000, 199999) g")
	proxy.Requests()
	const id = 170017
	if got, want := mustQuery(t, s, fmt.Sprintf("SELECT id, v FROM r WHERE id = %d", id)).text(), fmt.Sprintf("%d|%d\n", id, 3*id); got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	gets, heads := map[string]int{}, 0
	for _, r := range proxy.Requests() {
		if !strings.Contains(r.Path, "/data/") || !strings.HasSuffix(r.Path, ".parquet") {
			continue
		}
		switch r.Method {
		case http.MethodHead:
			heads++
		case http.MethodGet:
			gets[r.Path]++
		}
	}
	if len(gets) != 1 || heads > 0 {
		t.Fatalf("the lookup read data files %v and sent %d HEADs, want one file and none", gets, heads)
	}
	for p, n := range gets {
		if n > 2 {
			t.Errorf("%s: %d GETs, want at most 2 (tail, the row group's chunks and page index)", p, n)
		}
	}
}

// On S3 a DELETE reads many data files at once, more than the four it
// reads locally: their GETs wait for first bytes, not for the CPU. The
// proxy holds each data file's first GET until twelve files have one
// waiting; a planner reading four at a time never gets there. Each small
// file is one GET.
func TestS3DeleteReadsFilesAtOnce(t *testing.T) {
	cfg, proxy := s3Lake(t, "par")
	s := testSessionOn(t, testEngineWith(t, cfg))
	mustQuery(t, s, "CREATE TABLE p (id int, v int) WITH ('write.delete.mode' = 'merge-on-read')")
	const files, perFile, atOnce = 16, 50, 12
	for f := range files {
		mustQuery(t, s, fmt.Sprintf("INSERT INTO p SELECT g, g FROM generate_series(%d, %d) g", f*perFile, (f+1)*perFile-1))
	}
	proxy.Requests()
	held := holdRequests(proxy, atOnce, func(r *http.Request) bool {
		return r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, ".parquet") && strings.Contains(r.URL.Path, "/data/")
	})
	res := mustQuery(t, s, "DELETE FROM p WHERE id % 10 = 7")
	if most, ok := held(); !ok {
		t.Fatalf("the DELETE had at most %d data files waiting at once, want %d", most, atOnce)
	}
	// The files are smaller than the tail a first read fetches: one GET
	// each, the predicate's chunk served from it.
	gets := map[string]int{}
	for _, r := range proxy.Requests() {
		if r.Method == http.MethodGet && strings.HasSuffix(r.Path, ".parquet") {
			gets[r.Path]++
		}
	}
	for p, n := range gets {
		if n != 1 {
			t.Errorf("%s: %d GETs, want 1", p, n)
		}
	}
	if len(gets) != files {
		t.Errorf("the DELETE read %d data files, want %d", len(gets), files)
	}
	if want := fmt.Sprintf("DELETE %d", files*perFile/10); res.tag != want {
		t.Fatalf("tag %q, want %q", res.tag, want)
	}
	if got, want := mustQuery(t, s, "SELECT count(*) FROM p WHERE id % 10 = 7").text(), "0\n"; got != want {
		t.Fatalf("rows left matching: %q", got)
	}
}

// A commit on S3 writes its manifests and its manifest list at once: a
// merge-on-read UPDATE's data manifest, delete manifest and list are held
// in the proxy until all three wait together, which one PUT after another
// never do. The table then reads as the UPDATE left it.
func TestS3CommitWritesManifestsAtOnce(t *testing.T) {
	cfg, proxy := s3Lake(t, "up")
	s := testSessionOn(t, testEngineWith(t, cfg))
	mustQuery(t, s, "CREATE TABLE u (id int, v int) WITH ('format-version' = '3', 'write.update.mode' = 'merge-on-read')")
	mustQuery(t, s, "INSERT INTO u SELECT g, g FROM generate_series(1, 100) g")
	held := holdRequests(proxy, 3, func(r *http.Request) bool {
		return r.Method == http.MethodPut && strings.HasSuffix(r.URL.Path, ".avro")
	})
	if res := mustQuery(t, s, "UPDATE u SET v = v + 1000 WHERE id % 4 = 0"); res.tag != "UPDATE 25" {
		t.Fatalf("tag %q", res.tag)
	}
	if most, ok := held(); !ok {
		t.Fatalf("the commit wrote at most %d of its manifests and list at once, want 3", most)
	}
	if got, want := mustQuery(t, s, "SELECT count(*), sum(v) FROM u").text(), fmt.Sprintf("100|%d\n", 5050+25*1000); got != want {
		t.Fatalf("after the UPDATE: %q, want %q", got, want)
	}
}

// holdRequests holds the requests match picks, each until n of them wait
// together, or for at most 10 s if that never happens (after which none
// is held). The returned func stops holding and reports the most that
// waited at once and whether n did.
func holdRequests(proxy *s3test.Proxy, n int, match func(r *http.Request) bool) func() (int, bool) {
	var mu sync.Mutex
	seen := map[string]bool{}
	waiting, most, released := 0, 0, false
	all, timedOut := make(chan struct{}), make(chan struct{})
	proxy.OnRequest(func(r *http.Request) {
		if !match(r) {
			return
		}
		mu.Lock()
		if seen[r.URL.Path] {
			mu.Unlock()
			return
		}
		seen[r.URL.Path] = true
		waiting++
		most = max(most, waiting)
		if waiting == n && !released {
			released = true
			close(all)
		}
		mu.Unlock()
		select {
		case <-all:
		case <-timedOut:
		case <-time.After(10 * time.Second):
			mu.Lock()
			select {
			case <-timedOut:
			default:
				close(timedOut)
			}
			mu.Unlock()
		}
		mu.Lock()
		waiting--
		mu.Unlock()
	})
	return func() (int, bool) {
		proxy.OnRequest(nil)
		mu.Lock()
		defer mu.Unlock()
		return most, released
	}
}

// A deletion vector on S3 is read with one GET and no HEAD: the manifest
// gives its Puffin file's size, and the file's tail holds the footer and
// the blob. A fresh engine (nothing cached) deletes more rows of a file
// that already has a vector, which it must read and merge.
func TestS3DeletionVectorRequests(t *testing.T) {
	cfg, proxy := s3Lake(t, "dv")
	s := testSessionOn(t, testEngineWith(t, cfg))
	mustQuery(t, s, "CREATE TABLE d (id int, v int) WITH ('format-version' = '3', 'write.delete.mode' = 'merge-on-read')")
	mustQuery(t, s, "INSERT INTO d SELECT g, g FROM generate_series(1, 2000) g")
	mustQuery(t, s, "DELETE FROM d WHERE id % 10 = 1")
	fresh := testSessionOn(t, testEngineWith(t, cfg))
	proxy.Requests()
	if res := mustQuery(t, fresh, "DELETE FROM d WHERE id % 10 = 2"); res.tag != "DELETE 200" {
		t.Fatalf("tag %q", res.tag)
	}
	if n := puffinGets(t, proxy); n != 1 {
		t.Fatalf("reading the deletion vector made %d GETs, want 1", n)
	}
	left, sum := 0, 0
	for id := 1; id <= 2000; id++ {
		if id%10 != 1 && id%10 != 2 {
			left, sum = left+1, sum+id
		}
	}
	if got, want := mustQuery(t, fresh, "SELECT count(*), sum(v) FROM d").text(), fmt.Sprintf("%d|%d\n", left, sum); got != want {
		t.Fatalf("left %q, want %q", got, want)
	}
}

// A merge-on-read UPDATE on S3 writes its new rows and its deletion
// vector at once: the proxy holds both PUTs until they wait together.
func TestS3UpdateWritesRowsAndDeletesAtOnce(t *testing.T) {
	cfg, proxy := s3Lake(t, "rd")
	s := testSessionOn(t, testEngineWith(t, cfg))
	mustQuery(t, s, "CREATE TABLE u (id int, v int) WITH ('format-version' = '3', 'write.update.mode' = 'merge-on-read')")
	mustQuery(t, s, "INSERT INTO u SELECT g, g FROM generate_series(1, 100) g")
	held := holdRequests(proxy, 2, func(r *http.Request) bool {
		return r.Method == http.MethodPut && (strings.HasSuffix(r.URL.Path, ".parquet") || strings.HasSuffix(r.URL.Path, ".puffin"))
	})
	if res := mustQuery(t, s, "UPDATE u SET v = -v WHERE id <= 10"); res.tag != "UPDATE 10" {
		t.Fatalf("tag %q", res.tag)
	}
	if most, ok := held(); !ok {
		t.Fatalf("the UPDATE wrote at most %d of its data and deletion vector files at once, want 2", most)
	}
	if got, want := mustQuery(t, s, "SELECT count(*), sum(v) FROM u").text(), fmt.Sprintf("100|%d\n", 5050-2*55); got != want {
		t.Fatalf("after the UPDATE: %q, want %q", got, want)
	}
}

// A Puffin file larger than a tail, holding the vectors of many data
// files, is fetched once, whole, by a statement reading all its vectors
// (a fresh engine, nothing cached): not a footer and a blob per vector.
func TestS3LargePuffinFetchedOnce(t *testing.T) {
	cfg, proxy := s3Lake(t, "pf")
	s := testSessionOn(t, testEngineWith(t, cfg))
	mustQuery(t, s, "CREATE TABLE d (id int) WITH ('format-version' = '3', 'write.delete.mode' = 'merge-on-read')")
	const files, perFile = 12, 20000
	for f := range files {
		mustQuery(t, s, fmt.Sprintf("INSERT INTO d SELECT g FROM generate_series(%d, %d) g", f*perFile, (f+1)*perFile-1))
	}
	mustQuery(t, s, "DELETE FROM d WHERE id % 2 = 0")
	var puffin int64
	for _, o := range proxy.List(t, "lake", "pf/") {
		if strings.HasSuffix(o.Key, ".puffin") {
			puffin = max(puffin, o.Size)
		}
	}
	if puffin <= 64<<10 {
		t.Fatalf("the Puffin file is %d bytes, want more than a tail (64 KiB) for this test", puffin)
	}
	fresh := testSessionOn(t, testEngineWith(t, cfg))
	proxy.Requests()
	want := 0
	for id := range files * perFile {
		if id%2 != 0 && id%3 == 0 {
			want++
		}
	}
	if res := mustQuery(t, fresh, "DELETE FROM d WHERE id % 3 = 0"); res.tag != fmt.Sprintf("DELETE %d", want) {
		t.Fatalf("tag %q, want DELETE %d", res.tag, want)
	}
	if n := puffinGets(t, proxy); n != 1 {
		t.Fatalf("reading %d vectors of a %d-byte Puffin file made %d GETs, want 1", files, puffin, n)
	}
}

// puffinGets counts the GETs of Puffin files since the last Requests,
// failing the test on a HEAD of one (the manifest gives its size).
func puffinGets(t *testing.T, proxy *s3test.Proxy) int {
	t.Helper()
	n := 0
	for _, r := range proxy.Requests() {
		if !strings.HasSuffix(r.Path, ".puffin") {
			continue
		}
		switch r.Method {
		case http.MethodHead:
			t.Fatalf("a HEAD of a deletion vector's file: %+v", r)
		case http.MethodGet:
			n++
		}
	}
	return n
}

// s3Lake is the configuration of an engine whose warehouse is s3://lake/
// prefix on a fresh versitygw, behind the recording proxy.
func s3Lake(t *testing.T, prefix string) (lake.Config, *s3test.Proxy) {
	t.Helper()
	srv := s3test.StartVersity(t)
	srv.CreateBucket(t, "lake")
	proxy := srv.Proxy(t)
	return lake.Config{DataDir: t.TempDir(), WarehouseURI: "s3://lake/" + prefix, CatalogProps: proxy.Props()}, proxy
}
