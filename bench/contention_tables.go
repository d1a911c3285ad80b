package bench

import (
	"context"
	"fmt"
)

// createTable creates a scenario's table through the first server and
// fills it with one INSERT per data file.
func (l *sharedLake) createTable(ctx context.Context, name, columns string, m TableMode, fill []string) error {
	c, err := l.connect(ctx, 0)
	if err != nil {
		return err
	}
	defer c.close()
	stmts := []string{fmt.Sprintf("CREATE TABLE %s (%s) %s", name, columns, m.with())}
	if r := l.cfg.SnapshotRetention; r > 0 {
		stmts = append(stmts, fmt.Sprintf("ALTER TABLE %s SET ('history.expire.max-snapshot-age-ms' = '%d')", name, r.Milliseconds()))
	}
	stmts = append(stmts, fill...)
	for _, sql := range stmts {
		if o := c.exec(ctx, sql); !o.ok() {
			return fmt.Errorf("set up table %s: %s: %w", name, clip(sql, 120), o.err)
		}
	}
	return nil
}

// finishTable drops a table that passed its checks unless the run keeps
// its tables; one that failed stays for a look, and so does the scratch
// data directory holding it.
func (l *sharedLake) finishTable(ctx context.Context, name string, res ContentionResult) {
	if len(res.Failures()) > 0 {
		l.keepData.Store(true)
		l.cfg.Progress(fmt.Sprintf("contention: table %s kept for inspection", name))
		return
	}
	if l.cfg.Keep {
		return
	}
	c, err := l.connect(ctx, 0)
	if err != nil {
		l.cfg.Progress(fmt.Sprintf("contention: drop %s: %v", name, err))
		return
	}
	defer c.close()
	if o := c.exec(ctx, "DROP TABLE "+name+" PURGE"); !o.ok() {
		l.cfg.Progress(fmt.Sprintf("contention: drop %s: %v", name, o.err))
	}
}
