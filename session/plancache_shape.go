package session

import (
	"context"
	"errors"
	"strings"

	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql"
	"github.com/magmalake/magmalake/stmt"
)

// shapeCacheSize bounds a session's remembered INSERT shapes.
const shapeCacheSize = 64

// shapeCache remembers, per session, the prepared form of INSERT ... VALUES
// statements with their literals taken out (sql.ShapeInsert): psycopg2's
// executemany and ORMs' bulk inserts send thousands that differ only in
// their values, and parsing and binding each was most of their cost. The
// prepared INSERT resolves its table on every execution and binds again
// when the table under its name changed (dml.PrepareInsert), so DDL and
// search_path need no invalidation here.
type shapeCache struct {
	entries map[string]*shapeEntry
}

// shapeEntry is one shape's prepared INSERT, or the failure to prepare it
// (the statement then takes the usual path, which reports its error).
type shapeEntry struct {
	prep     *stmt.Prepared
	failed   bool
	maxDepth int
	input    sql.InputStyle
}

// prepareShaped prepares query through its shape; false when query has
// none, or the shape does not prepare, or the block failed.
func (s *Session) prepareShaped(ctx context.Context, query string) (*stmt.Prepared, bool) {
	if !startsWithInsert(query) || s.tx.failed || sql.CheckUTF8(query) != nil {
		return nil, false
	}
	sh, ok := sql.ShapeInsert(query)
	if !ok {
		return nil, false
	}
	key := sh.Text
	maxDepth := s.settings.maxDepth()
	input := sql.InputStyleOf(s.settings.withInputStyle(ctx))
	e := s.shapes.entries[key]
	if e == nil || e.maxDepth > maxDepth || e.input != input {
		p, err := s.prepare(ctx, sh.Text, nil)
		e = &shapeEntry{prep: p, failed: err != nil, maxDepth: maxDepth, input: input}
		if err == nil || !mayChange(err) {
			s.shapes.put(key, e)
		}
	}
	if e.failed {
		return nil, false
	}
	args := make([]stmt.Param, len(sh.Args))
	for i, a := range sh.Args {
		args[i] = a
	}
	form := formOf(e.prep)
	form.plan = shapedPlan{query: query, inner: form.plan, args: args}
	return &stmt.Prepared{Query: query, Columns: e.prep.Columns, Plan: form}, true
}

// mayChange is a preparation failure that a later statement may undo (the
// table does not exist yet): not remembered.
func mayChange(err error) bool {
	var se *pgerr.Error
	if !errors.As(toSQLError(err), &se) {
		return true
	}
	switch se.Code {
	case pgerr.UndefinedTable, pgerr.InvalidSchemaName, pgerr.UndefinedObject:
		return true
	}
	return false
}

func (c *shapeCache) put(key string, e *shapeEntry) {
	if c.entries == nil {
		c.entries = make(map[string]*shapeEntry)
	}
	if len(c.entries) >= shapeCacheSize {
		clear(c.entries)
	}
	c.entries[key] = e
}

// shapedPlan runs a shape's INSERT with the statement's literals.
type shapedPlan struct {
	query string
	inner plan
	args  []stmt.Param
}

// execute runs the shape. A value its column refuses (class 22, a NULL in
// a NOT NULL column) fails before anything is written; the statement then
// runs the usual way, so that the error is PostgreSQL's for the literal,
// with its position in the text.
func (p shapedPlan) execute(ctx context.Context, s *Session, _ []stmt.Param) (*stmt.Result, error) {
	res, err := p.inner.execute(ctx, s, p.args)
	if err == nil || !valueError(err) {
		return res, err
	}
	full, perr := s.prepare(ctx, p.query, nil)
	if perr != nil {
		return nil, perr
	}
	return formOf(full).plan.execute(ctx, s, nil)
}

// valueError is an error about a value: data exceptions and integrity
// violations.
func valueError(err error) bool {
	var se *pgerr.Error
	if !errors.As(toSQLError(err), &se) {
		return false
	}
	class := se.Code.Class()
	return class == pgerr.DataException || class == pgerr.IntegrityConstraintViolation
}

// startsWithInsert is a cheap test before lexing: the query's first word
// is INSERT.
func startsWithInsert(q string) bool {
	q = strings.TrimLeft(q, " \t\r\n")
	return len(q) >= 6 && strings.EqualFold(q[:6], "insert")
}
