package ddl

import (
	"context"
	"fmt"
	"strings"

	"github.com/magmalake/magmalake/lake"
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

// inBlock runs or stages one DDL statement inside block b.
func inBlock(ctx context.Context, p Port, b Block, st sql.Statement) (*stmt.Result, error) {
	wh := p.Warehouse()
	switch x := st.(type) {
	case *sql.CreateSchema:
		return createInBlock(ctx, b, func(ctx context.Context) (*stmt.Result, error) { return createSchema(ctx, p, x) },
			func(ctx context.Context) error { return wh.Tables().DropNamespace(ctx, x.Name) })
	case *sql.CreateTable:
		schema, err := p.CreationSchema(ctx, x.Name)
		if err != nil {
			return nil, err
		}
		ident := lake.Ident(schema, x.Name.Table)
		if b.HidesTable(ident) {
			return nil, pgerr.Errorf(pgerr.FeatureNotSupported, "CREATE TABLE of %q after its DROP in the same transaction block is not supported", x.Name.Table)
		}
		return createInBlock(ctx, b, func(ctx context.Context) (*stmt.Result, error) { return createTable(ctx, p, x) },
			func(ctx context.Context) error { return wh.Tables().DropTable(ctx, ident, true) })
	case *sql.DropTable:
		return dropTableInBlock(ctx, p, b, x)
	case *sql.DropSchema:
		if ok, err := wh.Tables().NamespaceExists(ctx, x.Name); err != nil || !ok || b.HidesSchema(x.Name) {
			return dropSchema(ctx, p, x) // reports the missing schema (or its IF EXISTS notice) now
		}
		b.HideSchema(x.Name)
		b.AtCommit(func(ctx context.Context) error { _, err := dropSchema(ctx, p, x); return err })
		return stmt.TagOnly("DROP SCHEMA"), nil
	case *sql.AlterTableProperties:
		if _, err := propertiesTarget(ctx, p, x.Name); err != nil {
			return nil, err
		}
		b.AtCommit(func(ctx context.Context) error { _, err := alterTable(ctx, p, x); return err })
		return stmt.TagOnly("ALTER TABLE"), nil
	case *sql.CreateView:
		ns, err := p.CreationSchema(ctx, x.Name)
		if err != nil {
			return nil, err
		}
		ident := lake.Ident(ns, x.Name.Table)
		if x.OrReplace {
			return nil, pgerr.Errorf(pgerr.FeatureNotSupported, "CREATE OR REPLACE VIEW inside a transaction block is not supported")
		}
		return createInBlock(ctx, b, func(ctx context.Context) (*stmt.Result, error) { return createView(ctx, p, x) },
			func(ctx context.Context) error { return wh.Views().DropView(ctx, ident) })
	case *sql.DropView:
		return dropView(ctx, p, x)
	case *sql.AlterTable:
		if _, err := p.ResolveTable(ctx, x.Name); err != nil && !x.IfExists {
			return nil, err
		}
		if err := checkRenameTarget(x); err != nil { // now, not at COMMIT
			return nil, err
		}
		b.AtCommit(func(ctx context.Context) error { _, err := alterSchema(ctx, p, x); return err })
		return stmt.TagOnly("ALTER TABLE"), nil
	}
	return nil, pgerr.Errorf(pgerr.FeatureNotSupported, "this statement is not supported")
}

// createInBlock runs a CREATE and, when it created something (not IF NOT
// EXISTS skipping), records how to undo it.
func createInBlock(ctx context.Context, b Block, create func(context.Context) (*stmt.Result, error), undo func(context.Context) error) (*stmt.Result, error) {
	r, err := create(ctx)
	if err != nil {
		return nil, err
	}
	if len(r.Notices) == 0 {
		b.OnRollback(undo)
	}
	return r, nil
}

// dropTableInBlock hides the table from the block now and drops it at
// COMMIT; the block's staged changes to it are abandoned.
func dropTableInBlock(ctx context.Context, p Port, b Block, x *sql.DropTable) (*stmt.Result, error) {
	rt, err := p.ResolveTable(ctx, x.Name)
	if err != nil {
		if x.IfExists {
			r := stmt.TagOnly("DROP TABLE")
			r.Notices = []stmt.Notice{stmt.NewNotice(fmt.Sprintf("table %q does not exist, skipping", x.Name.Table))}
			return r, nil
		}
		return nil, err
	}
	if err := p.TableItself(rt, x.Name); err != nil {
		return nil, err
	}
	b.HideTable(rt.Ident)
	ident := rt.Ident
	drop := *x
	drop.Name = sql.TableName{Schema: ident[0], Table: strings.Join(ident[1:], ".")}
	b.AtCommit(func(ctx context.Context) error { _, err := dropTable(ctx, p, &drop); return err })
	return stmt.TagOnly("DROP TABLE"), nil
}
