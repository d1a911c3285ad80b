package session

import (
	"context"
	"fmt"
	"testing"

	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/stmt"
)

// SET is transactional (issue 11: psycopg2's set_session and a SET in a
// rolled-back block): statement by statement against PostgreSQL 15.
func TestTransactionalSettingsMatchPostgres(t *testing.T) {
	conn := connectTestPostgres(t)
	s := testSession(t)
	for _, q := range []string{
		"SET TRANSACTION ISOLATION LEVEL SERIALIZABLE",
		"SHOW transaction_isolation",
		"SET transaction_isolation = 'serializable'",
		"SHOW transaction_isolation",
		"SET LOCAL application_name = 'loc'",
		"SHOW application_name",
		"BEGIN ISOLATION LEVEL REPEATABLE READ",
		"SHOW transaction_isolation",
		"SET application_name = 'inblock'",
		"SET LOCAL search_path = x",
		"SHOW search_path",
		"SAVEPOINT a",
		"SET application_name = 'aftersp'",
		"ROLLBACK TO SAVEPOINT a",
		"SHOW application_name",
		"SHOW transaction_isolation",
		"COMMIT",
		"SHOW transaction_isolation",
		"SHOW application_name",
		"SHOW search_path",
		"BEGIN",
		"SET application_name = 'x2'",
		"SELECT 1/0",
		"COMMIT",
		"SHOW application_name",
		"BEGIN",
		"SET application_name = 'a'",
		"SET LOCAL application_name = 'b'",
		"SHOW application_name",
		"COMMIT",
		"SHOW application_name",
		"BEGIN",
		"SET LOCAL application_name = 'c'",
		"SET application_name = 'd'",
		"COMMIT",
		"SHOW application_name",
		"BEGIN",
		"SET LOCAL application_name = 'e'",
		"SAVEPOINT s",
		"SET application_name = 'f'",
		"ROLLBACK TO s",
		"SHOW application_name",
		"COMMIT",
		"SHOW application_name",
		"SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL REPEATABLE READ",
		"BEGIN",
		"SHOW transaction_isolation",
		"ROLLBACK",
		"SHOW transaction_isolation",
		"SHOW default_transaction_isolation",
	} {
		compareStatement(t, s, conn, q)
	}
}

// A ROLLBACK that restores a reported parameter sends its ParameterStatus
// again, and a transaction-scoped SET outside a block warns 25P01.
func TestRollbackReportsRestoredSettings(t *testing.T) {
	s := testSession(t)
	ctx := context.Background()
	exec := func(q string) *stmt.Result {
		t.Helper()
		p, err := s.Prepare(ctx, q, nil)
		if err != nil {
			t.Fatal(err)
		}
		r, err := s.Execute(ctx, p, nil)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return r
	}
	exec("BEGIN")
	exec("SET application_name = 'x'")
	exec("SET extra_float_digits = 2")
	if got := fmt.Sprint(exec("ROLLBACK").ParameterChanges); got != "[{application_name }]" {
		t.Errorf("ROLLBACK reports %s, want application_name back to ''", got)
	}
	for _, q := range []string{"SET LOCAL application_name = 'y'", "SET TRANSACTION READ ONLY"} {
		if n := exec(q).Notices; len(n) != 1 || n[0].Code != pgerr.NoActiveSQLTransaction {
			t.Errorf("%s outside a block: notices %v, want a 25P01 warning", q, n)
		}
	}
	if v, _ := s.settings.Get("application_name"); v != "" {
		t.Errorf("SET LOCAL outside a block set application_name to %q", v)
	}
}
