package engine

import (
	"context"
	"iter"
	"os"
	"path/filepath"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/magmalake/magmalake/pgerr"
)

// spillPartitions is the fan-out of a hash-partitioned spill (GROUP BY's,
// a hash join's).
const spillPartitions = 16

// partitionFiles are rows written, by a hash of their key, to one of
// spillPartitions temporary files (Arrow IPC) in a directory of their own.
type partitionFiles struct {
	dir    string
	schema *arrow.Schema
	files  [spillPartitions]*os.File
	writes [spillPartitions]*ipc.Writer
	paths  [spillPartitions]string // "": nothing written there
}

// newPartitionFiles makes the directory under root ("": os.TempDir()).
func newPartitionFiles(root, prefix string, schema *arrow.Schema) (*partitionFiles, error) {
	dir, err := os.MkdirTemp(root, prefix)
	if err != nil {
		return nil, spillError(err)
	}
	return &partitionFiles{dir: dir, schema: schema}, nil
}

// write appends rows of b to partition i.
func (s *partitionFiles) write(i int, b arrow.RecordBatch, rows []int32) error {
	if s.writes[i] == nil {
		path := filepath.Join(s.dir, "part-"+strconv.Itoa(i))
		f, err := os.Create(path)
		if err != nil {
			return spillError(err)
		}
		s.files[i], s.writes[i], s.paths[i] = f, ipc.NewWriter(f, ipc.WithSchema(s.schema)), path
	}
	part, err := takeBatch(memory.DefaultAllocator, b, rows)
	if err != nil {
		return err
	}
	defer part.Release()
	if !part.Schema().Equal(s.schema) {
		// Batches of other files may name or type a column alike but
		// not equally; the spill file has one schema.
		retyped := array.NewRecordBatch(s.schema, part.Columns(), part.NumRows())
		defer retyped.Release()
		part = retyped
	}
	if err := s.writes[i].Write(part); err != nil {
		return spillError(err)
	}
	return nil
}

// finish closes the partition files for reading.
func (s *partitionFiles) finish() error {
	var first error
	for i := range s.writes {
		if s.writes[i] == nil {
			continue
		}
		if err := s.writes[i].Close(); err != nil && first == nil {
			first = spillError(err)
		}
		if err := s.files[i].Close(); err != nil && first == nil {
			first = spillError(err)
		}
		s.writes[i], s.files[i] = nil, nil
	}
	return first
}

// remove deletes the files.
func (s *partitionFiles) remove() {
	s.finish()
	if s.dir != "" {
		os.RemoveAll(s.dir)
	}
}

// read streams partition i's batches (none when nothing was written).
func (s *partitionFiles) read(ctx context.Context, i int) iter.Seq2[arrow.RecordBatch, error] {
	return func(yield func(arrow.RecordBatch, error) bool) {
		if s.paths[i] == "" {
			return
		}
		f, err := os.Open(s.paths[i])
		if err != nil {
			yield(nil, spillError(err))
			return
		}
		defer f.Close()
		rd, err := ipc.NewReader(f)
		if err != nil {
			yield(nil, spillError(err))
			return
		}
		defer rd.Release()
		for rd.Next() {
			if err := ctx.Err(); err != nil {
				yield(nil, pgerr.Canceled(err))
				return
			}
			if !yield(restoreTypes(s.schema, rd.RecordBatch()), nil) {
				return
			}
		}
		if err := rd.Err(); err != nil {
			yield(nil, spillError(err))
		}
	}
}
