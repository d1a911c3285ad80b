package session

import (
	"context"
	"errors"
	"iter"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/iceberg-go/table"

	"github.com/magmalake/magmalake/engine"
	"github.com/magmalake/magmalake/lake"
	logical "github.com/magmalake/magmalake/plan"
)

// INSERTs inside a block are buffered per table instead of each writing a
// data file and restaging the block's view: drivers' executemany and
// addBatch send thousands of one-row INSERTs in one transaction, which
// otherwise cost a file, a manifest rewrite of everything staged so far
// and a manifest list each (quadratic in the batch). The rows are written,
// one file per partition, when anything else touches the table (a read, a
// DELETE or UPDATE, COMMIT, a savepoint) or when they pass flushBytes.

// flushBytes bounds the Arrow memory a table's buffered rows may hold.
const flushBytes = 64 << 20

// pendingRows are a table's buffered INSERT batches, already checked
// against the table's constraints and declared types.
type pendingRows struct {
	batches []arrow.RecordBatch
	bytes   int64
}

func (p *pendingRows) add(b arrow.RecordBatch) {
	b.Retain()
	p.batches = append(p.batches, b)
	p.bytes += engine.BatchBytes(b)
}

// take hands the batches over and empties the buffer.
func (p *pendingRows) take() []arrow.RecordBatch {
	out := p.batches
	*p = pendingRows{}
	return out
}

func (p *pendingRows) drop() {
	engine.ReleaseAll(p.take())
}

// bufferRows adds an INSERT's rows to its table's buffer inside a block;
// *n counts them as seq yields them.
func (b *txBlock) bufferRows(ctx context.Context, ident table.Identifier, seq iter.Seq2[arrow.RecordBatch, error], n *int64) (int64, error) {
	tt, err := b.txEntry(ctx, ident)
	if err != nil {
		return 0, droppedConcurrently(ident, err)
	}
	// A statement that fails leaves no row of its own in the buffer.
	mark := len(tt.pending.batches)
	for batch, err := range seq {
		if err != nil {
			tt.pending.truncate(mark)
			return 0, err
		}
		if batch.NumRows() > 0 {
			tt.pending.add(batch)
		}
		batch.Release()
	}
	if tt.pending.bytes >= flushBytes {
		if err := tt.flush(ctx); err != nil {
			return 0, err
		}
	}
	return *n, nil
}

// truncate releases the batches added after the first n.
func (p *pendingRows) truncate(n int) {
	for _, b := range p.batches[n:] {
		p.bytes -= engine.BatchBytes(b)
		b.Release()
	}
	p.batches = p.batches[:n]
}

// flush writes the buffered rows as data files and stages them as one
// append; the files are the block's, removed if it does not commit.
func (tt *txTable) flush(ctx context.Context) error {
	if len(tt.pending.batches) == 0 {
		return nil
	}
	batches, err := coalesce(tt.pending.take())
	if err != nil {
		return err
	}
	seq := func(yield func(arrow.RecordBatch, error) bool) {
		for i, b := range batches {
			if !yield(b, nil) {
				for _, rest := range batches[i+1:] {
					rest.Release()
				}
				return
			}
		}
	}
	files, err := lake.WriteDataFiles(ctx, tt.base, seq) // a block changes files, not the schema or spec
	for _, f := range files {
		tt.written = append(tt.written, f.FilePath())
	}
	if err != nil || len(files) == 0 {
		return err
	}
	return tt.stage(lake.FileChange{AddData: files})
}

// flushAll writes every table's buffered rows (COMMIT, SAVEPOINT).
func (t *txState) flushAll(ctx context.Context) error {
	for _, tt := range t.sortedTables() {
		if err := tt.flush(ctx); err != nil {
			return err
		}
	}
	return nil
}

// coalesceRows is how many buffered rows one written batch gathers.
const coalesceRows = 64 << 10

// coalesce concatenates runs of small batches of one schema into batches of
// up to coalesceRows, releasing its input: the Parquet writer pays per batch
// and per column chunk, and one-row INSERTs give one-row batches.
func coalesce(in []arrow.RecordBatch) ([]arrow.RecordBatch, error) {
	var out, run []arrow.RecordBatch
	var rows int64
	emit := func() error {
		defer func() { run, rows = run[:0], 0 }()
		if len(run) == 1 {
			out = append(out, run[0])
			return nil
		}
		b, err := engine.ConcatBatches(run)
		engine.ReleaseAll(run)
		if err == nil {
			out = append(out, b)
		}
		return err
	}
	for i, b := range in {
		if len(run) > 0 && (!run[0].Schema().Equal(b.Schema()) || rows+b.NumRows() > coalesceRows) {
			if err := emit(); err != nil {
				engine.ReleaseAll(in[i:])
				engine.ReleaseAll(out)
				return nil, err
			}
		}
		run = append(run, b)
		rows += b.NumRows()
	}
	if len(run) > 0 {
		if err := emit(); err != nil {
			engine.ReleaseAll(out)
			return nil, err
		}
	}
	return out, nil
}

// appendRows writes the batches as data files and publishes them as one
// append (buffered, inside a transaction block: tx_append.go); an empty
// input changes nothing. Files of an append that did not land are removed.
func (b *txBlock) appendRows(ctx context.Context, rt *logical.Table, seq iter.Seq2[arrow.RecordBatch, error]) (int64, error) {
	var n int64
	counted := func(yield func(arrow.RecordBatch, error) bool) {
		for batch, err := range seq {
			if err == nil {
				n += batch.NumRows()
			}
			if !yield(batch, err) {
				return
			}
		}
	}
	if b.active {
		return b.bufferRows(ctx, rt.Ident, counted, &n)
	}
	// Its files are as old as this: a sweep of another server that began
	// after it makes the commit fail rather than name a swept file.
	since, err := b.engine.wh.Commits().WriteStart(ctx, rt.Table)
	if err != nil {
		return 0, err
	}
	ctx = lake.WithWriteStart(ctx, since)
	files, err := lake.WriteDataFiles(ctx, rt.Table, counted)
	if err != nil {
		return 0, err
	}
	if len(files) == 0 || n == 0 {
		return 0, nil
	}
	_, err = b.commitChange(ctx, rt.Ident, func(context.Context, *table.Table) (lake.FileChange, []string, error) {
		return lake.FileChange{AddData: files}, nil, nil
	})
	if err != nil {
		if !errors.Is(err, lake.ErrCommitUnknown) {
			paths := make([]string, len(files))
			for i, f := range files {
				paths[i] = f.FilePath()
			}
			removeTableFiles(rt.Table, paths)
		}
		return 0, err
	}
	return n, nil
}
