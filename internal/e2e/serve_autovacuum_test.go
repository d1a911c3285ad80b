package e2e

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/magmalake/magmalake/internal/testenv"
)

// TestServeAutoVacuum: serve --auto-vacuum pays a table's delete debt and
// small files back in the background: the server logs the pass, the dead
// rows and the extra files are gone, and the rows read as before.
func TestServeAutoVacuum(t *testing.T) {
	bin := buildMagmalake(t)
	conn, logs := startServeLogged(t, bin, []string{"--data", t.TempDir(), "--log-format", "json",
		"--auto-vacuum", "200ms", "--auto-vacuum-max-bytes", "64MB"})
	ctx := context.Background()
	defer conn.Close(ctx)
	for _, q := range []string{
		"CREATE TABLE t (id int) WITH ('format-version' = '3', 'write.delete.mode' = 'merge-on-read')",
		"INSERT INTO t SELECT i FROM generate_series(1, 100) i",
		"DELETE FROM t WHERE id <= 30",
		"INSERT INTO t VALUES (1001)",
	} {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	// A pass may come between the statements: wait for the end state.
	var files, dead int64
	testenv.WaitFor(t, 30*time.Second, "autovacuum's end state", func() bool {
		err := conn.QueryRow(ctx, `SELECT data_files, deleted_rows FROM "t$delete_debt_summary"`).Scan(&files, &dead)
		return err == nil && files == 1 && dead == 0
	})
	var rows, sum int64
	if err := conn.QueryRow(ctx, "SELECT count(*), sum(id) FROM t").Scan(&rows, &sum); err != nil {
		t.Fatal(err)
	}
	if want := int64((31+100)*70/2 + 1001); rows != 71 || sum != want {
		t.Errorf("after the passes: %d rows summing to %d; want 71, %d", rows, sum, want)
	}
	var purged float64
	for _, line := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		var e map[string]any
		if json.Unmarshal([]byte(line), &e) == nil && e["msg"] == "autovacuum" && e["table"] == "public.t" {
			purged += e["purged_rows"].(float64)
		}
	}
	if purged != 30 {
		t.Errorf("autovacuum lines purged %v rows, want 30:\n%s", purged, logs.String())
	}
}
