package lake

import (
	"context"
	"errors"
	"fmt"
	iofs "io/fs"
	"strings"
	"time"

	iceio "github.com/apache/iceberg-go/io"
)

// listedFile is a file found under a table's location.
type listedFile struct {
	path     string
	size     int64
	modified time.Time
}

// listOlder lists the files under root modified before cutoff. Files come
// and go meanwhile on a table other statements write (their uncommitted
// files, removed when they fail or give way, and a block's staged views):
// a file or directory gone between being listed and being looked at is
// left out, as if listed a moment later. A file gone is no orphan to remove.
func listOlder(ctx context.Context, fs iceio.IO, root string, cutoff time.Time) ([]listedFile, error) {
	list, ok := fs.(iceio.ListableIO)
	if !ok {
		return nil, errors.New("the table's file system cannot list files")
	}
	var out []listedFile
	err := list.WalkDir(root, func(p string, d iofs.DirEntry, err error) error {
		if cerr := ctx.Err(); cerr != nil {
			return cerr
		}
		if errors.Is(err, iofs.ErrNotExist) && p != root {
			return nil
		}
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if errors.Is(err, iofs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		if info.ModTime().Before(cutoff) {
			out = append(out, listedFile{path: p, size: info.Size(), modified: info.ModTime()})
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", root, err)
	}
	return out, nil
}

// fileKey is how a listed path and a path metadata names are compared:
// a local path with or without its file: scheme, and s3a:// or s3n:// as
// s3://, as other engines write them.
func fileKey(p string) string {
	p = strings.TrimPrefix(strings.TrimPrefix(p, "file://"), "file:")
	for _, alias := range []string{"s3a://", "s3n://"} {
		if strings.HasPrefix(p, alias) {
			return "s3://" + p[len(alias):]
		}
	}
	return p
}

// objectPath is p without its scheme and authority: a listed file and a
// referenced one with the same object path under another scheme or bucket
// name may be one file spelt two ways.
func objectPath(p string) string {
	p = fileKey(p)
	if i := strings.Index(p, "://"); i >= 0 {
		rest := p[i+3:]
		if j := strings.IndexByte(rest, '/'); j >= 0 {
			return rest[j:]
		}
		return "/"
	}
	return p
}
