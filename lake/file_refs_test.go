package lake

import (
	"context"
	"errors"
	"maps"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/catalog"
	iceio "github.com/apache/iceberg-go/io"
	"github.com/apache/iceberg-go/table"
)

// closedIO opens nothing: a walk through it can only use what is cached.
type closedIO struct{ iceio.IO }

func (closedIO) Open(string) (iceio.File, error) { return nil, errors.New("closed") }

func refsTable(t *testing.T, appends int) (*Warehouse, table.Identifier) {
	t.Helper()
	ctx := context.Background()
	w := openTest(t, t.TempDir())
	ident := table.Identifier{"public", "t"}
	cols := []testCol{{"id", iceberg.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int64, func(i int) any { return int64(i) }}}
	if _, err := w.Tables().CreateTable(ctx, ident, icebergSchema(cols), TableSpec{}, nil); err != nil {
		t.Fatal(err)
	}
	for i := range appends {
		appendRows(t, w, ident, cols, genRows(cols, i*3, i*3+3))
	}
	return w, ident
}

// TestFileRefsServeAWalkAgain: a second walk over the same snapshots reads
// no file (every manifest list and manifest comes from the cache) and
// finds the same files; without the cache the same walk fails.
func TestFileRefsServeAWalkAgain(t *testing.T) {
	ctx := context.Background()
	w, ident := refsTable(t, 6)
	tbl, err := w.LoadTable(ctx, ident)
	if err != nil {
		t.Fatal(err)
	}
	fs, err := tbl.FS(ctx)
	if err != nil {
		t.Fatal(err)
	}
	snaps := tbl.Metadata().Snapshots()
	refs := NewFileRefs(1 << 20)
	want, err := referencedFiles(ctx, fs, snaps, refs)
	if err != nil {
		t.Fatal(err)
	}
	// 6 manifest lists, and at least one manifest and one data file each.
	if len(want) < 18 {
		t.Fatalf("the walk found %d files in 6 snapshots", len(want))
	}
	got, err := referencedFiles(ctx, closedIO{fs}, snaps, refs)
	if err != nil {
		t.Fatalf("second walk read a file: %v", err)
	}
	if !maps.Equal(got, want) {
		t.Fatalf("second walk found\n%v\nfirst found\n%v", got, want)
	}
	if _, err := referencedFiles(ctx, closedIO{fs}, snaps, nil); err == nil {
		t.Fatal("a walk without the cache read nothing: the test checks nothing")
	}
}

// turnProbe records, at each load of the table while armed, whether this
// process's turn at the table was held.
type turnProbe struct {
	catalog.Catalog
	w     *Warehouse
	armed bool
	held  []bool
}

func (p *turnProbe) LoadTable(ctx context.Context, ident table.Identifier) (*table.Table, error) {
	if p.armed {
		turn := p.w.commits.queue.turnOf(ident, table.MainBranch)
		select {
		case turn.turn <- struct{}{}:
			<-turn.turn
			p.held = append(p.held, false)
		default:
			p.held = append(p.held, true)
		}
	}
	return p.Catalog.LoadTable(ctx, ident)
}

// TestExpiryTakesTheCommitTurn: expiry reads the head and commits within
// this process's turn at the table, so that none of its statements can
// commit in between and make it lose.
func TestExpiryTakesTheCommitTurn(t *testing.T) {
	ctx := context.Background()
	probe := &turnProbe{}
	w, err := Open(ctx, Config{DataDir: t.TempDir(), WrapCatalog: func(c catalog.Catalog) catalog.Catalog {
		probe.Catalog = c
		return probe
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	probe.w = w
	ident := table.Identifier{"public", "t"}
	cols := []testCol{{"id", iceberg.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int64, func(i int) any { return int64(i) }}}
	if _, err := w.Tables().CreateTable(ctx, ident, icebergSchema(cols), TableSpec{}, nil); err != nil {
		t.Fatal(err)
	}
	for i := range 4 {
		appendRows(t, w, ident, cols, genRows(cols, i*3, i*3+3))
	}
	probe.armed = true
	out, err := w.Maintenance().ExpireSnapshots(ctx, ident, 0, 1)
	probe.armed = false
	if err != nil {
		t.Fatal(err)
	}
	if out.ExpiredSnapshots != 3 || out.DeletedFiles == 0 {
		t.Fatalf("expiry: %+v, want 3 snapshots and their files", out)
	}
	if len(probe.held) != 1 || !probe.held[0] {
		t.Fatalf("turn held at the expiry's loads of the head: %v, want [true]", probe.held)
	}
}
