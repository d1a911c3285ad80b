package e2e

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/magmalake/magmalake/pgerr"
)

// TestServeReadsFilesOnlyWhereAllowed: over the wire read_csv and
// read_parquet read only under serve --allow-file-read's directories
// (42501 elsewhere and on a server without the flag); the shell reads
// whatever its user can, and loads a table with CREATE TABLE AS.
func TestServeReadsFilesOnlyWhereAllowed(t *testing.T) {
	bin := buildMagmalake(t)
	allowed, other := t.TempDir(), t.TempDir()
	csv := "id,name\n1,ann\n2,bob\n"
	in := filepath.Join(allowed, "people.csv")
	out := filepath.Join(other, "people.csv")
	for _, p := range []string{in, out} {
		if err := os.WriteFile(p, []byte(csv), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	conn := startServe(t, bin, []string{"--data", t.TempDir(), "--allow-file-read", allowed})
	defer conn.Close(ctx)
	if got := queryText(t, conn, "SELECT id, name FROM read_csv('"+in+"') ORDER BY id"); got != "1|ann\n2|bob\n" {
		t.Errorf("allowed file: %q", got)
	}
	if _, err := conn.Exec(ctx, "CREATE TABLE people AS SELECT * FROM read_csv('"+in+"')"); err != nil {
		t.Fatal(err)
	}
	if got := queryText(t, conn, "SELECT sum(id), string_agg(name, ',' ORDER BY id) FROM people"); got != "3|ann,bob\n" {
		t.Errorf("table from the file: %q", got)
	}
	wantCode(t, conn, "SELECT * FROM read_csv('"+out+"')", pgerr.InsufficientPrivilege)
	wantCode(t, conn, "SELECT * FROM read_parquet('"+other+"/*.parquet')", pgerr.UndefinedFile)

	closed := startServe(t, bin, []string{"--data", t.TempDir()})
	defer closed.Close(ctx)
	wantCode(t, closed, "SELECT * FROM read_csv('"+in+"')", pgerr.InsufficientPrivilege)

	cmd := exec.Command(bin, "repl", "--data", t.TempDir(), "-A", "-t", "-c", "SELECT count(*) FROM read_csv('"+out+"')")
	got, err := cmd.CombinedOutput()
	if err != nil || strings.TrimSpace(string(got)) != "2" {
		t.Errorf("the shell reading a file: %v %q", err, got)
	}
	if err := exec.Command(bin, "serve", "--allow-file-read", filepath.Join(other, "nope")).Run(); err == nil {
		t.Errorf("serve accepted --allow-file-read of a missing directory")
	}
}

func queryText(t *testing.T, conn *pgx.Conn, q string) string {
	t.Helper()
	rows, err := conn.Query(context.Background(), q, pgx.QueryExecModeSimpleProtocol)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	var b strings.Builder
	for rows.Next() {
		vals := rows.RawValues()
		parts := make([]string, len(vals))
		for i, v := range vals {
			parts[i] = string(v)
		}
		b.WriteString(strings.Join(parts, "|") + "\n")
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return b.String()
}

func wantCode(t *testing.T, conn *pgx.Conn, q string, code pgerr.Code) {
	t.Helper()
	_, err := conn.Exec(context.Background(), q)
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pgerr.Code(pe.Code) != code {
		t.Errorf("%s: got %v, want SQLSTATE %s", q, err, code)
	}
}
