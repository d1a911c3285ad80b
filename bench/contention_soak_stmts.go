package bench

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// insert adds one to three fresh ids of the session's own range.
func (s *soakSession) insert(ctx context.Context) soakEvent {
	ids := make([]int64, 1+s.rnd.IntN(3))
	vals := make([]string, len(ids))
	for i := range ids {
		ids[i] = s.fresh()
		vals[i] = fmt.Sprintf("(%d, 0)", ids[i])
	}
	o := s.c.exec(ctx, fmt.Sprintf("INSERT INTO %s VALUES %s", s.table, strings.Join(vals, ", ")))
	ev := soakEvent{kind: kindInsert, o: o}
	if o.ok() {
		ev.inserted = ids
	}
	return ev
}

// delete removes a residue class of every autocommit writer's ids.
func (s *soakSession) delete(ctx context.Context) soakEvent {
	k := int64(s.rnd.IntN(deleteModulus))
	ids, o := s.c.ids(ctx, s.c.conn, fmt.Sprintf("DELETE FROM %s WHERE id %% %d = %d AND id < %d RETURNING id", s.table, deleteModulus, k, blockIDs))
	return soakEvent{kind: kindDelete, o: o, deleted: ids,
		mayDelete: func(id int64) bool { return id%deleteModulus == k && id < blockIDs }}
}

// update increments v of a residue class of every autocommit writer's ids.
func (s *soakSession) update(ctx context.Context) soakEvent {
	k := int64(s.rnd.IntN(updateModulus))
	ids, o := s.c.ids(ctx, s.c.conn, fmt.Sprintf("UPDATE %s SET v = v + 1 WHERE id %% %d = %d AND id < %d RETURNING id", s.table, updateModulus, k, blockIDs))
	return soakEvent{kind: kindUpdate, o: o, updated: ids,
		mayUpdate: func(id int64) bool { return id%updateModulus == k && id < blockIDs }}
}

// merge increments three distinct generated ids (those still there) and
// inserts one fresh id: a deleted generated id is not matched and, not
// being fresh, not inserted either, so no id is ever written twice.
func (s *soakSession) merge(ctx context.Context) soakEvent {
	src := map[int64]bool{} // id -> fresh
	for len(src) < min(3, s.rows) {
		src[1+s.rnd.Int64N(int64(s.rows))] = false
	}
	src[s.fresh()] = true
	var vals []string
	for id, fresh := range src {
		vals = append(vals, fmt.Sprintf("(%d::bigint, %t)", id, fresh))
	}
	sql := fmt.Sprintf("MERGE INTO %[1]s t USING (VALUES %[2]s) AS s(id, fresh) ON t.id = s.id "+
		"WHEN MATCHED THEN UPDATE SET v = t.v + 1 WHEN NOT MATCHED AND s.fresh THEN INSERT (id, v) VALUES (s.id, 0) "+
		"RETURNING merge_action(), t.id", s.table, strings.Join(vals, ", "))
	ev := soakEvent{kind: kindMerge,
		mayUpdate: func(id int64) bool { fresh, in := src[id]; return in && !fresh },
		mayInsert: func(id int64) bool { return src[id] }}
	ev.o = s.c.query(ctx, s.c.conn, sql, func(r pgx.Rows) error {
		var action string
		var id int64
		if err := r.Scan(&action, &id); err != nil {
			return fmt.Errorf("scan RETURNING merge_action(), id: %w", err)
		}
		if action == "INSERT" {
			ev.inserted = append(ev.inserted, id)
		} else {
			ev.updated = append(ev.updated, id)
		}
		return nil
	})
	if !ev.o.ok() {
		ev.inserted, ev.updated = nil, nil
	}
	return ev
}

// block is BEGIN; INSERT two new ids; UPDATE one and DELETE another of the
// session's earlier block ids (or, before there are two, of this block's);
// COMMIT. Nobody else touches these ids, so a correct commit never has a
// reason to fail. Its effects count only once COMMIT succeeded.
func (s *soakSession) block(ctx context.Context) soakEvent {
	n1, n2 := s.nextBlock+1, s.nextBlock+2
	s.nextBlock += 2
	upd, del := n1, n2
	if len(s.liveBlocks) >= 2 {
		i := s.rnd.IntN(len(s.liveBlocks))
		j := (i + 1 + s.rnd.IntN(len(s.liveBlocks)-1)) % len(s.liveBlocks)
		upd, del = s.liveBlocks[i], s.liveBlocks[j]
	}
	ev := soakEvent{kind: kindBlock, inserted: []int64{n1, n2},
		mayUpdate: func(id int64) bool { return id == upd }, mayDelete: func(id int64) bool { return id == del }}
	ev.o = s.runBlock(ctx, []string{
		fmt.Sprintf("INSERT INTO %s VALUES (%d, 0), (%d, 0)", s.table, n1, n2),
		fmt.Sprintf("UPDATE %s SET v = v + 1 WHERE id = %d RETURNING id", s.table, upd),
		fmt.Sprintf("DELETE FROM %s WHERE id = %d RETURNING id", s.table, del),
	}, &ev)
	if !ev.o.ok() {
		ev.inserted = nil
		return ev
	}
	s.liveBlocks = append(s.liveBlocks, n1, n2)
	for _, id := range ev.deleted {
		if i := slices.Index(s.liveBlocks, id); i >= 0 {
			s.liveBlocks = slices.Delete(s.liveBlocks, i, i+1)
		}
	}
	return ev
}

// runBlock runs the statements in one transaction and commits; the outcome
// is the first failure (after which it rolls back) or the commit's.
func (s *soakSession) runBlock(ctx context.Context, stmts []string, ev *soakEvent) outcome {
	start := time.Now()
	o := s.blockSteps(ctx, stmts, ev)
	o.start = start
	if !o.ok() {
		ev.updated, ev.deleted = nil, nil
	}
	return o
}

func (s *soakSession) blockSteps(ctx context.Context, stmts []string, ev *soakEvent) outcome {
	o := outcome{sql: "BEGIN"}
	tx, err := s.c.conn.Begin(ctx)
	if err != nil {
		o.err, o.code, o.end = err, errCode(err), time.Now()
		return o
	}
	results := []*[]int64{nil, &ev.updated, &ev.deleted}
	for i, sql := range stmts {
		ids, so := s.c.ids(ctx, tx, sql)
		if !so.ok() {
			tx.Rollback(context.WithoutCancel(ctx))
			return so
		}
		if results[i] != nil {
			*results[i] = ids
		}
	}
	o.sql = "COMMIT"
	o.err = tx.Commit(ctx)
	o.code, o.end = errCode(o.err), time.Now()
	if errors.Is(o.err, pgx.ErrTxCommitRollback) { // answered ROLLBACK: certainly not committed
		o.code = "ROLLBACK"
	}
	return o
}
