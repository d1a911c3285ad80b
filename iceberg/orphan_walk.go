package iceberg

import (
	"context"
	"errors"
	iofs "io/fs"

	iceio "github.com/apache/iceberg-go/io"
	"github.com/apache/iceberg-go/table"
)

// settledTable is tbl listing its files through settledListing, for
// iceberg-go's orphan scan. That scan stats each file it lists and fails on
// one that is gone by then; on a table other statements write, some often
// are (their uncommitted files, removed when they fail or give way, and a
// block's staged views), so on a busy table the sweep would rarely finish.
func settledTable(ctx context.Context, tbl *table.Table) (*table.Table, error) {
	fs, err := tbl.FS(ctx)
	if err != nil {
		return nil, err
	}
	list, ok := fs.(iceio.ListableIO)
	if !ok {
		return tbl, nil
	}
	wrapped := settledListing{IO: fs, list: list}
	return table.New(tbl.Identifier(), tbl.Metadata(), tbl.MetadataLocation(),
		func(context.Context) (iceio.IO, error) { return wrapped, nil }, nil), nil
}

// settledListing lists a directory whose files come and go meanwhile: a
// file or directory gone between being listed and being looked at is left
// out, as if listed a moment later. A file gone is no orphan to remove.
type settledListing struct {
	iceio.IO
	list iceio.ListableIO
}

func (s settledListing) WalkDir(root string, fn iofs.WalkDirFunc) error {
	return s.list.WalkDir(root, func(p string, d iofs.DirEntry, err error) error {
		if errors.Is(err, iofs.ErrNotExist) && p != root {
			return nil
		}
		if err != nil || d.IsDir() {
			return fn(p, d, err)
		}
		info, err := d.Info()
		if errors.Is(err, iofs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return fn(p, d, err)
		}
		return fn(p, statted{DirEntry: d, info: info}, nil)
	})
}

// statted is a listed file with the one look at it already taken.
type statted struct {
	iofs.DirEntry
	info iofs.FileInfo
}

func (s statted) Info() (iofs.FileInfo, error) { return s.info, nil }
