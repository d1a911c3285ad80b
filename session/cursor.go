package session

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/magmalake/magmalake/engine"
	"github.com/magmalake/magmalake/lake"
	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql"
	"github.com/magmalake/magmalake/stmt"
)

// cursorSet is a session's open SQL cursors by name.
type cursorSet struct {
	open map[string]*sqlCursor
}

// sqlCursor is one DECLAREd query, partially read: the query's rows and the
// unread tail of the batch the last FETCH stopped in.
type sqlCursor struct {
	cols    []stmt.Column
	rows    stmt.Rows
	pending arrow.RecordBatch // retained; nil when no batch is half read
	off     int64             // rows of pending already returned
	done    bool
	hold    bool
	inBlock bool // declared in the current transaction block
	// reads pins the snapshots the query reads, which expiry keeps until
	// the cursor is closed (past its block, WITH HOLD); mem is the
	// server's memory its query holds, for as long.
	reads *lake.ReadSet
	mem   *engine.MemAccount
}

func (cs *cursorSet) get(name string) (*sqlCursor, error) {
	if cs != nil {
		if c, ok := cs.open[name]; ok {
			return c, nil
		}
	}
	return nil, pgerr.Errorf(pgerr.InvalidCursorName, "cursor %q does not exist", name)
}

func (cs *cursorSet) add(name string, c *sqlCursor) error {
	if _, ok := cs.open[name]; ok {
		return pgerr.Errorf(pgerr.DuplicateCursor, "cursor %q already exists", name)
	}
	if cs.open == nil {
		cs.open = map[string]*sqlCursor{}
	}
	cs.open[name] = c
	return nil
}

// closeWhere closes the cursors drop selects; nil-safe so the transaction
// hooks need not care whether a cursor was ever declared.
func (cs *cursorSet) closeWhere(drop func(*sqlCursor) bool) {
	if cs == nil {
		return
	}
	for name, c := range cs.open {
		if drop(c) {
			c.close()
			delete(cs.open, name)
		}
	}
}

// commit closes the cursors without HOLD; the held ones outlive the block.
func (cs *cursorSet) commit() {
	cs.closeWhere(func(c *sqlCursor) bool {
		c.inBlock = false
		return !c.hold
	})
}

// rollback closes every cursor the abandoned block declared.
func (cs *cursorSet) rollback() {
	cs.closeWhere(func(c *sqlCursor) bool { return c.inBlock })
}

func (cs *cursorSet) closeAll() {
	cs.closeWhere(func(*sqlCursor) bool { return true })
}

func (c *sqlCursor) close() {
	if c.pending != nil {
		c.pending.Release()
		c.pending = nil
	}
	c.rows.Close()
	c.reads.Release()
	c.mem.Close()
}

// take returns the next at most max rows (max < 0: no bound) as a batch
// the caller owns, or io.EOF once the query is exhausted.
func (c *sqlCursor) take(ctx context.Context, max int64) (arrow.RecordBatch, error) {
	defer c.mem.Enter(ctx)()
	for c.pending == nil {
		if c.done {
			return nil, io.EOF
		}
		b, err := c.rows.Next(ctx)
		if errors.Is(err, io.EOF) {
			c.done = true
			return nil, io.EOF
		}
		if err != nil {
			return nil, err
		}
		if b.NumRows() > 0 {
			// Rows reuses its batch on the next call; the cursor keeps the
			// tail across statements.
			b.Retain()
			c.pending, c.off = b, 0
		}
	}
	n := c.pending.NumRows() - c.off
	if max >= 0 && max < n {
		n = max
	}
	out := c.pending.NewSlice(c.off, c.off+n)
	c.off += n
	if c.off == c.pending.NumRows() {
		c.pending.Release()
		c.pending = nil
	}
	return out, nil
}

// advance reads up to count rows (count < 0: all), handing each batch to
// keep (which takes ownership), and returns how many rows there were.
func (c *sqlCursor) advance(ctx context.Context, count int64, keep func(arrow.RecordBatch)) (int64, error) {
	var got int64
	for count < 0 || got < count {
		max := int64(-1)
		if count >= 0 {
			max = count - got
		}
		b, err := c.take(ctx, max)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return got, err
		}
		got += b.NumRows()
		keep(b)
	}
	return got, nil
}

// openCursors returns the session's cursor set, creating it on first use.
func (b *txBlock) openCursors() *cursorSet {
	if b.cursors == nil {
		b.cursors = &cursorSet{}
	}
	return b.cursors
}

// prepareDeclare plans DECLARE CURSOR: the query is planned now and run at
// execution, so the cursor reads the snapshot of its DECLARE.
func (s *Session) prepareDeclare(ctx context.Context, st *sql.DeclareCursor, params *sql.Params) (plan, []stmt.Column, error) {
	sel, _, err := s.prepareSelect(ctx, st.Query, params)
	if err != nil {
		return nil, nil, err
	}
	run := func(ctx context.Context, s *Session, args []stmt.Param) (*stmt.Result, error) {
		if !st.Hold && !s.tx.active {
			return nil, pgerr.Errorf(pgerr.NoActiveSQLTransaction, "DECLARE CURSOR can only be used in transaction blocks")
		}
		if _, err := s.tx.openCursors().get(st.Name); err == nil {
			return nil, pgerr.Errorf(pgerr.DuplicateCursor, "cursor %q already exists", st.Name)
		}
		// The scan outlives this statement, whose context ends with it;
		// each FETCH's context still cancels the reads it drives.
		// The query's memory is the cursor's, not DECLARE's.
		reads, mem := s.engine.wh.Commits().Readers().NewReadSet(), s.engine.mem.Open(s)
		leave := mem.Enter(ctx)
		res, err := sel.execute(engine.WithMemAccount(lake.WithReadSet(context.WithoutCancel(ctx), reads), mem), s, args)
		leave()
		if err != nil {
			reads.Release()
			mem.Close()
			return nil, err
		}
		c := &sqlCursor{cols: res.Columns, rows: res.Rows, hold: st.Hold, inBlock: s.tx.active, reads: reads, mem: mem}
		if err := s.tx.openCursors().add(st.Name, c); err != nil {
			c.close()
			return nil, err
		}
		return stmt.TagOnly("DECLARE CURSOR"), nil
	}
	return planFunc(run), nil, nil
}

// prepareFetch plans FETCH and MOVE. The row description is the cursor's
// as it is now; an unknown cursor is reported when the statement runs.
func (s *Session) prepareFetch(st *sql.Fetch) (plan, []stmt.Column, error) {
	var cols []stmt.Column
	if c, err := s.tx.openCursors().get(st.Name); err == nil && !st.Move {
		cols = c.cols
	}
	run := func(ctx context.Context, s *Session, _ []stmt.Param) (*stmt.Result, error) {
		c, err := s.tx.openCursors().get(st.Name)
		if err != nil {
			return nil, err
		}
		if st.Move {
			n, err := c.advance(ctx, st.Count, func(b arrow.RecordBatch) { b.Release() })
			if err != nil {
				return nil, err
			}
			return stmt.TagOnly(fmt.Sprintf("MOVE %d", n)), nil
		}
		var batches []arrow.RecordBatch
		if _, err := c.advance(ctx, st.Count, func(b arrow.RecordBatch) { batches = append(batches, b) }); err != nil {
			engine.ReleaseAll(batches)
			return nil, err
		}
		return &stmt.Result{Columns: c.cols, Rows: engine.NewBatchRows("FETCH", batches)}, nil
	}
	return planFunc(run), cols, nil
}

// prepareClose plans CLOSE name and CLOSE ALL.
func (s *Session) prepareClose(st *sql.CloseCursor) (plan, []stmt.Column, error) {
	run := func(ctx context.Context, s *Session, _ []stmt.Param) (*stmt.Result, error) {
		cs := s.tx.openCursors()
		if st.All {
			cs.closeAll()
			return stmt.TagOnly("CLOSE CURSOR ALL"), nil // PostgreSQL's tag for CLOSE ALL
		}
		c, err := cs.get(st.Name)
		if err != nil {
			return nil, err
		}
		c.close()
		delete(cs.open, st.Name)
		return stmt.TagOnly("CLOSE CURSOR"), nil
	}
	return planFunc(run), nil, nil
}
