package session

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"

	"github.com/magmalake/magmalake/lake"
	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/stmt"
)

// dropBeforeCommit is a catalog on which another server drops the table
// between a statement's planning and its commit: the next CommitTable, once
// armed, first drops its table, then commits as asked.
type dropBeforeCommit struct {
	catalog.Catalog
	armed atomic.Bool
}

func (c *dropBeforeCommit) CommitTable(ctx context.Context, ident table.Identifier, reqs []table.Requirement, upds []table.Update) (table.Metadata, string, error) {
	if c.armed.CompareAndSwap(true, false) {
		if err := c.Catalog.DropTable(ctx, ident); err != nil {
			return nil, "", err
		}
	}
	return c.Catalog.CommitTable(ctx, ident, reqs, upds)
}

// newDropEnv is a delete test table on a catalog that can drop it mid-statement.
func newDropEnv(t *testing.T) (*delSQLEnv, *dropBeforeCommit) {
	t.Helper()
	dir := t.TempDir()
	cat := &dropBeforeCommit{}
	eng := testEngineWith(t, lake.Config{DataDir: dir, WrapCatalog: func(c catalog.Catalog) catalog.Catalog {
		cat.Catalog = c
		return cat
	}})
	s := testSessionOn(t, eng)
	return &delSQLEnv{s: s, eng: eng, dir: dir}, cat
}

// mustFailDropped checks a statement on a concurrently dropped table answers
// 42P01 in SQL words.
func mustFailDropped(t *testing.T, s *Session, q string) {
	t.Helper()
	_, err := s.query(context.Background(), q)
	var se *pgerr.Error
	if !errors.As(err, &se) || se.Code != pgerr.UndefinedTable {
		t.Fatalf("%s: want 42P01, got %v", q, err)
	}
	if se.Message != `relation "t" does not exist` || !strings.Contains(se.Detail, "dropped") {
		t.Fatalf("%s: message %q, detail %q", q, se.Message, se.Detail)
	}
}

// TestDMLOnTableDroppedBeforeCommit: every kind of DML, in every delete
// mode, whose table is dropped between planning and commit answers 42P01
// and removes every file it wrote (the dropped table's files stay, as DROP
// without PURGE keeps them).
func TestDMLOnTableDroppedBeforeCommit(t *testing.T) {
	stmts := []string{
		"DELETE FROM t WHERE grp = 1 OR id < 5",
		"UPDATE t SET s = 'x' WHERE grp = 2",
		"INSERT INTO t VALUES (1000, 1, 'n', true)",
		"INSERT OVERWRITE t SELECT * FROM t WHERE grp <> 3",
		"TRUNCATE t",
	}
	for _, m := range delSQLModes {
		for _, q := range stmts {
			t.Run(m.mode+"/v"+m.version+"/"+strings.Join(strings.Fields(q)[:2], " "), func(t *testing.T) {
				e, cat := newDropEnv(t)
				e.createModelTable(t, m.mode, m.version, 2, 12)
				files := e.files(t)
				cat.armed.Store(true)
				mustFailDropped(t, e.s, q)
				if cat.armed.Load() {
					t.Fatal("the statement never committed")
				}
				if got := e.files(t); !slices.Equal(got, files) {
					t.Fatalf("files left behind:\nbefore %v\nafter  %v", files, got)
				}
				mustFail(t, e.s, pgerr.UndefinedTable, "SELECT * FROM t")
			})
		}
	}
}

// TestCommitBlockOnDroppedTable: a block's COMMIT on a table another
// session dropped since the block changed it answers 42P01 and removes
// everything the block wrote.
func TestCommitBlockOnDroppedTable(t *testing.T) {
	for _, m := range delSQLModes {
		t.Run(m.mode+"/v"+m.version, func(t *testing.T) {
			e := newDelSQLEnv(t)
			e.createModelTable(t, m.mode, m.version, 2, 12)
			files := e.files(t)
			other := e.eng.NewSession(stmt.SessionInfo{User: "other", Database: "db"})
			t.Cleanup(other.Close)
			mustQuery(t, e.s, "BEGIN")
			mustQuery(t, e.s, "DELETE FROM t WHERE grp = 1")
			mustQuery(t, e.s, "INSERT INTO t VALUES (1000, 1, 'n', true)")
			mustQuery(t, other, "DROP TABLE t")
			mustFailDropped(t, e.s, "COMMIT")
			if got := e.s.TxStatus(); got != stmt.TxIdle {
				t.Fatalf("after the failed COMMIT the session is %c, want idle", got)
			}
			if got := e.files(t); !slices.Equal(got, files) {
				t.Fatalf("files left behind:\nbefore %v\nafter  %v", files, got)
			}
		})
	}
}
