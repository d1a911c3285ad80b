package lake

import (
	"context"

	"github.com/apache/iceberg-go"
	iceio "github.com/apache/iceberg-go/io"
	"github.com/apache/iceberg-go/table"
)

// sizedScan is tbl reading through an IO that opens the files of tasks
// with the sizes their manifests record. iceberg-go's scans open every
// data and delete file through the IO's Open, which on object storage is
// a HEAD (a round trip) before the first read. Elsewhere tbl is returned
// as it is.
func sizedScan(ctx context.Context, tbl *table.Table, tasks []table.FileScanTask) *table.Table {
	fs, err := tbl.FS(ctx)
	if err != nil {
		return tbl
	}
	// A scan counting its progress reads through progressIO: size the
	// object store beneath it, and count above.
	wrap := func(io iceio.IO) iceio.IO { return io }
	if p, ok := fs.(*progressIO); ok {
		fs = p.IO
		wrap = func(io iceio.IO) iceio.IO { return &progressIO{IO: io, expect: p.expect} }
	}
	o, ok := fs.(*objectIO)
	if !ok {
		return tbl
	}
	sized := &sizedFiles{objectIO: o, sizes: map[string]int64{}}
	note := func(files ...iceberg.DataFile) {
		for _, f := range files {
			sized.sizes[f.FilePath()] = f.FileSizeBytes()
		}
	}
	for _, t := range tasks {
		note(t.File)
		note(t.DeleteFiles...)
		note(t.EqualityDeleteFiles...)
		note(t.DeletionVectorFiles...)
	}
	return table.New(tbl.Identifier(), tbl.Metadata(), tbl.MetadataLocation(),
		func(context.Context) (iceio.IO, error) { return wrap(sized), nil }, nil)
}

// sizedFiles is an object store IO that knows the sizes of some files.
type sizedFiles struct {
	*objectIO
	sizes map[string]int64 // read-only once made
}

func (s *sizedFiles) Open(name string) (iceio.File, error) {
	if size, ok := s.sizes[name]; ok && size > 0 {
		return s.objectIO.openSized(name, size)
	}
	return s.objectIO.Open(name)
}
