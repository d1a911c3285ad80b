package lake

import (
	"cmp"
	"io"
	iofs "io/fs"
	"path"
	"slices"
	"sync"

	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/iceberg-go"
	iceio "github.com/apache/iceberg-go/io"
	"github.com/apache/iceberg-go/table/dv"
	"gocloud.dev/gcerrors"

	"github.com/magmalake/magmalake/internal/lru"
)

// Fewer requests to object storage. A request costs a round trip (and the
// store's CPU) whatever its size, so on S3 a Parquet file's reads are
// shaped the way the format allows:
//   - OpenSized takes the size the manifest records, as Java's readers do,
//     instead of asking the store (a HEAD per file).
//   - The first read in a file's last tailBytes fetches the whole tail: a
//     Parquet footer's length and the footer itself, one GET.
//   - Prefetch fetches the byte ranges a reader is about to read (the
//     column chunks it selected, from the footer), merging ranges less than
//     coalesceGap apart into one GET and running the GETs in parallel;
//     the reads are then served from memory.
//   - ReadWorkers has planners read more files at once than locally,
//     so that the waits for first bytes overlap.
//   - An object opened with its size (a data, delete or Puffin file, none
//     of which ever changes) and no larger than tailBytes (puffinKeep for
//     Puffin files) is fetched whole and kept in smallObjects: a Puffin
//     file holding many deletion vectors is opened once per vector, a
//     small data file once for its footer and again for its rows, and the
//     next statement opens them all again.
// Local files ignore all of it: their reads cost no round trip.

const (
	tailBytes     = 64 << 10
	coalesceGap   = 1 << 20
	prefetchLimit = 64 << 20 // bytes one file holds in memory at most
	// prefetchBudget bounds the bytes fetched ahead and not yet let go
	// (Close) per bucket client, whatever the number of sessions and
	// workers: past it Prefetch fetches nothing and reads go to the store.
	prefetchBudget = 256 << 20
	// objectReadWorkers is how many data files a planner reads at once
	// from object storage. A GET there mostly waits for its first byte
	// (tens of milliseconds on S3, against the file's microseconds of
	// decoding), so files in flight, not cores, set the pace;
	// objectReadsInFlight and prefetchBudget still bound the requests and
	// the bytes of all of them.
	objectReadWorkers = 16
)

// smallObjects are whole objects of at most tailBytes (puffinKeep for a
// Puffin file) that were opened with their size, process-wide, by bucket
// client, key and size.
var smallObjects = lru.New[smallKey, []byte](smallObjectsLimit, nil)

const smallObjectsLimit = 32 << 20

type smallKey struct {
	client *bucketClient
	key    string
	size   int64
}

// smallFetches are the small objects being fetched: a Puffin file's
// vectors are read in parallel, and each would otherwise fetch it.
var smallFetches = struct {
	sync.Mutex
	m map[smallKey]*smallFetch
}{m: map[smallKey]*smallFetch{}}

type smallFetch struct {
	done    chan struct{}
	data    []byte
	err     error
	waiters int // readers waiting for it, under smallFetches' lock
}

// fetchSmall returns the whole of a small object opened with its size,
// from smallObjects, or from the one fetch of it in flight, or fetched
// (and kept; shared from then on: spans are only ever copied out of).
// A file's fetches run with its IO's context, its statement's.
func (f *objectFile) fetchSmall() ([]byte, error) {
	k := smallKey{f.io.client, f.key, f.size}
	if data, ok := smallObjects.Get(k, nil); ok {
		return data, nil
	}
	smallFetches.Lock()
	if sf := smallFetches.m[k]; sf != nil {
		sf.waiters++
		smallFetches.Unlock()
		select {
		case <-sf.done:
		case <-f.io.ctx.Done():
			return nil, f.io.ctx.Err()
		}
		if sf.err == nil {
			return sf.data, nil
		}
		// The other fetch failed, perhaps only because its statement was
		// cancelled: this one asks for itself.
		return f.fetch(0, f.size)
	}
	sf := &smallFetch{done: make(chan struct{})}
	smallFetches.m[k] = sf
	smallFetches.Unlock()
	sf.data, sf.err = f.fetch(0, f.size)
	if sf.err == nil {
		smallObjects.Add(k, sf.data, f.size)
	}
	smallFetches.Lock()
	delete(smallFetches.m, k)
	smallFetches.Unlock()
	close(sf.done)
	return sf.data, sf.err
}

// ReadWorkers is how many data files to read at once from fsys: local on
// a local file system (reads there are CPU-bound), at least
// objectReadWorkers on object storage.
func ReadWorkers(fsys iceio.IO, local int) int {
	if _, ok := fsys.(sizedOpener); ok {
		return max(local, objectReadWorkers)
	}
	return local
}

// sizedOpener is object storage, or an IO over it (the progress line's):
// it opens a file of known size without asking the store.
type sizedOpener interface {
	openSized(name string, size int64) (iceio.File, error)
}

// ByteRange is Len bytes of a file from Off.
type ByteRange struct{ Off, Len int64 }

// Prefetcher is a file that can fetch ranges before they are read.
type Prefetcher interface{ Prefetch(ranges []ByteRange) }

// OpenSized opens name, whose size the caller knows from a manifest: on
// object storage without asking the store (a missing object is then
// reported by the first read). size <= 0 is an ordinary Open.
func OpenSized(fsys iceio.IO, name string, size int64) (iceio.File, error) {
	if o, ok := fsys.(sizedOpener); ok && size > 0 {
		return o.openSized(name, size)
	}
	return fsys.Open(name)
}

// Prefetch asks f to fetch ranges ahead of the reads that follow; files
// that gain nothing from it ignore it.
func Prefetch(f iceio.File, ranges []ByteRange) {
	if p, ok := f.(Prefetcher); ok {
		p.Prefetch(ranges)
	}
}

func (o *objectIO) openSized(name string, size int64) (iceio.File, error) {
	return o.openKept(name, size, tailBytes)
}

// openKept opens name, of size bytes, fetching it whole on the first read
// and keeping it in smallObjects when it is at most keep bytes.
func (o *objectIO) openKept(name string, size, keep int64) (iceio.File, error) {
	key, err := o.keyOf(name)
	if err != nil {
		return nil, err
	}
	f := &objectFile{io: o, key: key, name: path.Base(key), size: size, small: size <= keep}
	if f.small {
		if data, ok := smallObjects.Get(smallKey{o.client, key, size}, nil); ok {
			f.ahead.add(span{data: data})
			f.ahead.takeTail()
		}
	}
	return f, nil
}

// span is bytes of an object fetched ahead, from off.
type span struct {
	off  int64
	data []byte
}

// spans are what an objectFile fetched ahead; safe for concurrent use.
type spans struct {
	mu       sync.Mutex
	have     []span
	held     int64
	tailDone bool
}

// read copies [off, off+len(p)) into p if one fetched span holds all of it.
func (s *spans) read(p []byte, off int64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, sp := range s.have {
		if off >= sp.off && off+int64(len(p)) <= sp.off+int64(len(sp.data)) {
			copy(p, sp.data[off-sp.off:])
			return true
		}
	}
	return false
}

// missing are the ranges no single fetched span holds whole.
func (s *spans) missing(ranges []ByteRange) []ByteRange {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []ByteRange
	for _, r := range ranges {
		if !slices.ContainsFunc(s.have, func(sp span) bool {
			return r.Off >= sp.off && r.Off+r.Len <= sp.off+int64(len(sp.data))
		}) {
			out = append(out, r)
		}
	}
	return out
}

func (s *spans) add(sp span) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.have = append(s.have, sp)
	s.held += int64(len(sp.data))
}

func (s *spans) bytes() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.held
}

// takeTail reports whether the caller is the first to want the tail.
func (s *spans) takeTail() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	first := !s.tailDone
	s.tailDone = true
	return first
}

// readAhead serves a ReadAt from what was fetched ahead, fetching the tail
// first when the read falls in it. ok false: the caller issues the GET.
func (f *objectFile) readAhead(p []byte, off int64) (ok bool, err error) {
	if f.ahead.read(p, off) {
		return true, nil
	}
	tail := max(0, f.size-tailBytes)
	if f.small {
		tail = 0
	}
	if off < tail || !f.ahead.takeTail() {
		return false, nil
	}
	var data []byte
	if f.small {
		data, err = f.fetchSmall()
	} else {
		data, err = f.fetch(tail, f.size-tail)
	}
	if err != nil {
		return false, err
	}
	f.ahead.add(span{off: tail, data: data})
	return f.ahead.read(p, off), nil
}

// fetch GETs n bytes from off.
func (f *objectFile) fetch(off, n int64) ([]byte, error) {
	buf := make([]byte, n)
	if err := f.fetchInto(buf, off); err != nil {
		return nil, err
	}
	return buf, nil
}

// fetchInto fills buf from off with one ranged GET, within the bucket's
// bound on reads in flight. A missing object is iofs.ErrNotExist (OpenSized
// skipped the HEAD that would have said so).
func (f *objectFile) fetchInto(buf []byte, off int64) error {
	ctx := f.io.ctx
	select {
	case f.io.client.reads <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-f.io.client.reads }()
	r, err := f.io.client.bucket.NewRangeReader(ctx, f.key, off, int64(len(buf)), nil)
	if err != nil {
		if gcerrors.Code(err) == gcerrors.NotFound {
			err = iofs.ErrNotExist
		}
		return &iofs.PathError{Op: "read", Path: f.name, Err: err}
	}
	_, err = io.ReadFull(r, buf)
	if cerr := r.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return &iofs.PathError{Op: "read", Path: f.name, Err: err}
	}
	return nil
}

// Prefetch fetches ranges, coalesced, in parallel, up to prefetchLimit
// bytes held; ranges already held (a small file's tail is all of it) are
// not fetched again. A failed fetch is dropped: the read that needs it
// fails (or succeeds) on its own.
func (f *objectFile) Prefetch(ranges []ByteRange) {
	var wg sync.WaitGroup
	budget := prefetchLimit - f.ahead.bytes()
	for _, r := range coalesce(f.ahead.missing(ranges), f.size) {
		if r.Len > budget || !f.io.client.reserve(r.Len) {
			break
		}
		budget -= r.Len
		f.reserved.Add(r.Len)
		wg.Go(func() {
			data, err := f.fetch(r.Off, r.Len)
			if err != nil {
				f.reserved.Add(-r.Len)
				f.io.client.release(r.Len)
				return
			}
			f.ahead.add(span{off: r.Off, data: data})
		})
	}
	wg.Wait()
}

// reserve takes n bytes of the bucket's prefetchBudget, if they are free.
func (c *bucketClient) reserve(n int64) bool {
	if c.ahead.Add(n) > prefetchBudget {
		c.ahead.Add(-n)
		return false
	}
	return true
}

func (c *bucketClient) release(n int64) { c.ahead.Add(-n) }

// coalesce sorts ranges, clips them to size, and merges those less than
// coalesceGap apart: reading the gap costs less than another request.
func coalesce(ranges []ByteRange, size int64) []ByteRange {
	var rs []ByteRange
	for _, r := range ranges {
		if r.Off >= 0 && r.Len > 0 && r.Off < size {
			rs = append(rs, ByteRange{r.Off, min(r.Len, size-r.Off)})
		}
	}
	slices.SortFunc(rs, func(a, b ByteRange) int { return cmp.Compare(a.Off, b.Off) })
	var out []ByteRange
	for _, r := range rs {
		if n := len(out); n > 0 && r.Off-(out[n-1].Off+out[n-1].Len) < coalesceGap {
			end := max(out[n-1].Off+out[n-1].Len, r.Off+r.Len)
			out[n-1].Len = end - out[n-1].Off
			continue
		}
		out = append(out, r)
	}
	return out
}

// ChunkRanges are the byte ranges of the leaf columns' chunks in the row
// groups (nil: every row group): what reading those columns will read (as
// arrow-go computes them).
func ChunkRanges(md *metadata.FileMetaData, groups, leaves []int) []ByteRange {
	if groups == nil {
		for g := range md.NumRowGroups() {
			groups = append(groups, g)
		}
	}
	var out []ByteRange
	for _, g := range groups {
		rg := md.RowGroup(g)
		for _, leaf := range leaves {
			col, err := rg.ColumnChunk(leaf)
			if err != nil {
				continue
			}
			start := col.DataPageOffset()
			if col.HasDictionaryPage() && col.DictionaryPageOffset() > 0 && start > col.DictionaryPageOffset() {
				start = col.DictionaryPageOffset()
			}
			out = append(out, ByteRange{Off: start, Len: col.TotalCompressedSize()})
		}
	}
	return out
}

// PageIndexRanges are the byte ranges of row group g's page index, its
// column indexes and its offset indexes, each over every column (as arrow-go
// reads them when a seek in the row group consults the index); none when
// the file has no page index.
func PageIndexRanges(md *metadata.FileMetaData, g int) []ByteRange {
	rg := md.RowGroup(g)
	var cols, offs indexSpan
	for c := range rg.NumColumns() {
		col, err := rg.ColumnChunk(c)
		if err != nil {
			continue
		}
		cols.add(col.GetColumnIndexLocation())
		offs.add(col.GetOffsetIndexLocation())
	}
	return append(cols.ranges(), offs.ranges()...)
}

// indexSpan is the bytes from the first to the end of the last of some
// index locations.
type indexSpan struct{ lo, hi int64 }

func (s *indexSpan) add(l *metadata.IndexLocation) {
	if l == nil || l.Length <= 0 {
		return
	}
	if s.hi == 0 || l.Offset < s.lo {
		s.lo = l.Offset
	}
	s.hi = max(s.hi, l.Offset+int64(l.Length))
}

func (s indexSpan) ranges() []ByteRange {
	if s.hi == 0 {
		return nil
	}
	return []ByteRange{{Off: s.lo, Len: s.hi - s.lo}}
}

// puffinKeep is the largest Puffin file fetched whole and kept. A
// statement's deletion vectors share one Puffin file, and the next
// statements read them one data file at a time: one GET of the file, not
// a footer and a blob per vector. Vectors are compact (a few KiB per data
// file touched), so this holds hundreds.
const puffinKeep = 4 << 20

// ReadDV reads deletion vector d as iceberg-go's dv.ReadDV does, opening
// its Puffin file with the size the manifest records (iceberg-go's Open
// would add a HEAD before the reads) and, on object storage, fetching a
// file of at most puffinKeep whole, once, for all its vectors.
func ReadDV(fsys iceio.IO, d iceberg.DataFile) (*dv.RoaringPositionBitmap, error) {
	return dv.ReadDV(puffinIO{IO: fsys, path: d.FilePath(), size: d.FileSizeBytes()}, d)
}

// puffinIO is fsys knowing the size of the Puffin file at path.
type puffinIO struct {
	iceio.IO
	path string
	size int64
}

func (s puffinIO) Open(name string) (iceio.File, error) {
	if o, ok := s.IO.(*objectIO); ok && name == s.path && s.size > 0 {
		return o.openKept(name, s.size, puffinKeep)
	}
	return s.IO.Open(name)
}
