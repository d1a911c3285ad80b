package wire

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/stmt"
)

// progressSession is the fake whose statements report progress the way an
// session with magmalake.progress on does: from another goroutine,
// while the statement runs, then a last Done report.
type progressSession struct {
	*fakeSession
	f func(stmt.ProgressReport)
}

func (p *progressSession) WatchProgress(_ time.Duration, f func(stmt.ProgressReport)) { p.f = f }

func (p *progressSession) Execute(ctx context.Context, pr *stmt.Prepared, params []stmt.Param) (*stmt.Result, error) {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // the session's reporter goroutine
		defer wg.Done()
		for k := int64(1); k <= 2; k++ {
			r := stmt.ProgressReport{Elapsed: time.Duration(k) * time.Second}
			r.FilesPlanned, r.FilesDone, r.Rows = 2, k, 1000*k
			p.f(r)
		}
		p.f(stmt.ProgressReport{Done: true})
	}()
	wg.Wait()
	return p.fakeSession.Execute(ctx, pr, params)
}

// TestProgressNotices: a session's progress reports reach the client as
// NOTICEs while the statement runs (the last, Done, is not sent), and the
// statement's own answer follows intact.
func TestProgressNotices(t *testing.T) {
	_, addr := testServer(t, func(c *Config) {
		c.NewSession = func(info stmt.SessionInfo) (Session, error) {
			s, _ := newFakeSession(info)
			return &progressSession{fakeSession: s.(*fakeSession)}, nil
		}
	})
	cfg, err := pgx.ParseConfig("postgres://u@" + addr + "/db?sslmode=disable")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var notices []string
	cfg.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) {
		mu.Lock()
		defer mu.Unlock()
		notices = append(notices, n.Severity+" "+n.Code+" "+n.Message)
	}
	ctx := context.Background()
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var n int
	if err := conn.QueryRow(ctx, "SELECT 7", pgx.QueryExecModeSimpleProtocol).Scan(&n); err != nil || n != 7 {
		t.Fatalf("SELECT 7: %v %d", err, n)
	}
	mu.Lock()
	defer mu.Unlock()
	want := []string{
		"NOTICE " + string(pgerr.SuccessfulCompletion) + " progress: 1/2 files, 1,000 rows, 0 B read, 0 B written, 0 B/s, 1.0 s",
		"NOTICE " + string(pgerr.SuccessfulCompletion) + " progress: 2/2 files, 2,000 rows, 0 B read, 0 B written, 0 B/s, 2.0 s",
	}
	if strings.Join(notices, "\n") != strings.Join(want, "\n") {
		t.Errorf("notices:\n%s\nwant:\n%s", strings.Join(notices, "\n"), strings.Join(want, "\n"))
	}
}
