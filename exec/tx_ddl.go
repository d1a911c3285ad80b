package exec

import (
	"context"
	"fmt"
	"strings"

	"github.com/apache/iceberg-go/table"

	"github.com/magmalake/magmalake/iceberg"
	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql"
	"github.com/magmalake/magmalake/stmt"
)

// DDL inside BEGIN ... COMMIT, as drivers that open a transaction for every
// statement (psycopg2, SQLAlchemy, pgjdbc with autocommit off, dbt) need:
//
//   - CREATE SCHEMA / CREATE TABLE run at once, so the block's own statements
//     can use what they create; ROLLBACK (or a COMMIT that fails) drops it
//     again, files included. Other sessions can see the new, empty table
//     before COMMIT: the catalog has no private namespace.
//   - DROP TABLE / DROP SCHEMA / ALTER TABLE are applied at COMMIT, in order,
//     after the block's DML; until then the block no longer sees a dropped
//     table (nor an altered table's new columns or name), and ROLLBACK
//     forgets them.

// ddlLog is a block's DDL: what to undo on rollback and what to do at commit.
type ddlLog struct {
	undo     []func(context.Context) error // newest last; run in reverse
	deferred []func(context.Context) error // in statement order
	hidden   map[string]bool               // "schema.table" or "schema." dropped in the block
}

func (l *ddlLog) hide(key string) {
	if l.hidden == nil {
		l.hidden = map[string]bool{}
	}
	l.hidden[key] = true
}

// hides reports whether the block dropped the table (or its schema).
func (l *ddlLog) hides(ident table.Identifier) bool {
	if len(ident) < 2 {
		return false
	}
	return l.hidden[identKey(ident)] || l.hidden[ident[0]+"."]
}

// rollback undoes the block's creations, newest first. Errors are dropped:
// nothing is left to report them to, and the next CREATE says what exists.
func (l *ddlLog) rollback() {
	for i := len(l.undo) - 1; i >= 0; i-- {
		_ = l.undo[i](context.Background())
	}
}

// commit applies the deferred statements; the first failure is returned.
func (l *ddlLog) commit(ctx context.Context) error {
	for _, f := range l.deferred {
		if err := f(ctx); err != nil {
			return err
		}
	}
	return nil
}

// ddlInBlock runs or stages one DDL statement inside a block.
func (s *Session) ddlInBlock(ctx context.Context, st sql.Statement) (*stmt.Result, error) {
	log := &s.tx.ddl
	switch x := st.(type) {
	case *sql.CreateSchema:
		return s.createInBlock(ctx, func(ctx context.Context) (*stmt.Result, error) { return s.createSchema(ctx, x) },
			func(ctx context.Context) error { return s.engine.wh.DropNamespace(ctx, x.Name) })
	case *sql.CreateTable:
		schema, err := s.creationSchema(ctx, x.Name)
		if err != nil {
			return nil, err
		}
		ident := iceberg.Ident(schema, x.Name.Table)
		if log.hides(ident) {
			return nil, pgerr.Errorf(pgerr.FeatureNotSupported, "CREATE TABLE of %q after its DROP in the same transaction block is not supported", x.Name.Table)
		}
		return s.createInBlock(ctx, func(ctx context.Context) (*stmt.Result, error) { return s.createTable(ctx, x) },
			func(ctx context.Context) error { return s.engine.wh.DropTable(ctx, ident, true) })
	case *sql.DropTable:
		return s.dropTableInBlock(ctx, x)
	case *sql.DropSchema:
		if ok, err := s.engine.wh.NamespaceExists(ctx, x.Name); err != nil || !ok || log.hidden[x.Name+"."] {
			return s.dropSchema(ctx, x) // reports the missing schema (or its IF EXISTS notice) now
		}
		log.hide(x.Name + ".")
		log.deferred = append(log.deferred, func(ctx context.Context) error { _, err := s.dropSchema(ctx, x); return err })
		return tagOnly("DROP SCHEMA"), nil
	case *sql.AlterTableProperties:
		if _, err := s.propertiesTarget(ctx, x.Name); err != nil {
			return nil, err
		}
		log.deferred = append(log.deferred, func(ctx context.Context) error { _, err := s.alterTable(ctx, x); return err })
		return tagOnly("ALTER TABLE"), nil
	case *sql.CreateView:
		ns, err := s.creationSchema(ctx, x.Name)
		if err != nil {
			return nil, err
		}
		ident := iceberg.Ident(ns, x.Name.Table)
		if x.OrReplace {
			return nil, pgerr.Errorf(pgerr.FeatureNotSupported, "CREATE OR REPLACE VIEW inside a transaction block is not supported")
		}
		return s.createInBlock(ctx, func(ctx context.Context) (*stmt.Result, error) { return s.createView(ctx, x) },
			func(ctx context.Context) error { return s.engine.wh.DropView(ctx, ident) })
	case *sql.DropView:
		return s.dropView(ctx, x)
	case *sql.AlterTable:
		if _, err := s.resolveTable(ctx, x.Name); err != nil && !x.IfExists {
			return nil, err
		}
		if err := checkRenameTarget(x); err != nil { // now, not at COMMIT
			return nil, err
		}
		log.deferred = append(log.deferred, func(ctx context.Context) error { _, err := s.alterSchema(ctx, x); return err })
		return tagOnly("ALTER TABLE"), nil
	}
	return nil, notSupported("this statement is not supported")
}

// createInBlock runs a CREATE and, when it created something (not IF NOT
// EXISTS skipping), records how to undo it.
func (s *Session) createInBlock(ctx context.Context, create func(context.Context) (*stmt.Result, error), undo func(context.Context) error) (*stmt.Result, error) {
	r, err := create(ctx)
	if err != nil {
		return nil, err
	}
	if len(r.Notices) == 0 {
		s.tx.ddl.undo = append(s.tx.ddl.undo, undo)
	}
	return r, nil
}

// dropTableInBlock hides the table from the block now and drops it at
// COMMIT; the block's staged changes to it are abandoned.
func (s *Session) dropTableInBlock(ctx context.Context, x *sql.DropTable) (*stmt.Result, error) {
	rt, err := s.resolveTable(ctx, x.Name)
	if err != nil {
		if x.IfExists {
			r := tagOnly("DROP TABLE")
			r.Notices = []stmt.Notice{notice(fmt.Sprintf("table %q does not exist, skipping", x.Name.Table))}
			return r, nil
		}
		return nil, err
	}
	if err := tableItself(rt, x.Name); err != nil {
		return nil, err
	}
	key := identKey(rt.Ident)
	if tt, ok := s.tx.tables[key]; ok {
		tt.abandon()
		tt.leave()
		delete(s.tx.tables, key)
	}
	s.tx.ddl.hide(key)
	ident := rt.Ident
	drop := *x
	drop.Name = sql.TableName{Schema: ident[0], Table: strings.Join(ident[1:], ".")}
	s.tx.ddl.deferred = append(s.tx.ddl.deferred, func(ctx context.Context) error { _, err := s.dropTable(ctx, &drop); return err })
	return tagOnly("DROP TABLE"), nil
}
