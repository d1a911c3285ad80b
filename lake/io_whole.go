package lake

import (
	"bytes"
	"fmt"
	iofs "io/fs"
	"path"

	iceio "github.com/apache/iceberg-go/io"
)

// WholeReadMax is the largest local file OpenWhole reads in one call. A
// Parquet reader makes a system call for the tail, one for the footer and
// one per column chunk; for a file of a few KiB that is most of its cost,
// and OPTIMIZE of thousands of one-row files spent a sixth of its CPU there.
const WholeReadMax = 256 << 10

// OpenWhole opens a file the caller is about to read most of: a local file
// of at most WholeReadMax bytes (size as its manifest records) is read
// into memory at once, so the reads that follow cost no system calls; any
// other file opens as OpenSized does. whole reports whether it was read
// whole (its size bytes were then read from storage).
func OpenWhole(fsys iceio.IO, name string, size int64) (f iceio.File, whole bool, err error) {
	if size <= 0 || size > WholeReadMax || !isLocal(fsys) {
		f, err := OpenSized(fsys, name, size)
		return f, false, err
	}
	data, err := fsys.(iceio.ReadFileIO).ReadFile(name)
	if err != nil {
		return nil, false, err
	}
	if int64(len(data)) != size {
		return nil, false, fmt.Errorf("%s holds %d bytes, its manifest says %d", name, len(data), size)
	}
	return &memFile{Reader: bytes.NewReader(data), name: path.Base(name), size: size}, true, nil
}

func isLocal(fsys iceio.IO) bool {
	switch fsys.(type) {
	case iceio.LocalFS, *iceio.LocalFS:
		return true
	}
	return false
}

// memFile is a file's bytes held in memory.
type memFile struct {
	*bytes.Reader
	name string
	size int64
}

func (m *memFile) Close() error { return nil }
func (m *memFile) Stat() (iofs.FileInfo, error) {
	return fileInfo{name: m.name, size: m.size, mode: 0o444}, nil
}
