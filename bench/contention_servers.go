package bench

import (
	"context"
	"fmt"
	"net"
	"os"
	osexec "os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

// lake is the run's shared catalog and warehouse and the servers on it.
type sharedLake struct {
	cfg     ContentionConfig
	dataDir string
	scratch bool // dataDir is ours to remove
	servers []*serveProc
	runID   string
	// keepData is set when a table failed its checks: the scratch data
	// directory then stays for a look.
	keepData atomic.Bool
}

// serveProc is one `magmalake serve` child process.
type serveProc struct {
	cmd  *osexec.Cmd
	addr string
	log  *tailBuffer
	done chan struct{} // closed when the process has exited
	err  error         // its exit status, once done
}

// openLake makes the data directory and starts cfg.Servers servers on it.
func openLake(ctx context.Context, cfg ContentionConfig) (*sharedLake, error) {
	l := &sharedLake{cfg: cfg, dataDir: cfg.DataDir, runID: newRunID()}
	if l.dataDir == "" {
		d, err := os.MkdirTemp(cfg.Dir, "magmalake-contention-")
		if err != nil {
			return nil, fmt.Errorf("scratch data directory: %w", err)
		}
		l.dataDir, l.scratch = d, true
	}
	for i := range cfg.Servers {
		p, err := startServe(ctx, cfg, l.dataDir)
		if err != nil {
			l.close()
			return nil, fmt.Errorf("server %d: %w", i, err)
		}
		l.servers = append(l.servers, p)
	}
	return l, nil
}

func (l *sharedLake) close() {
	for _, p := range l.servers {
		p.stop()
	}
	if l.scratch && !l.cfg.Keep && !l.keepData.Load() {
		os.RemoveAll(l.dataDir)
	} else if l.scratch {
		l.cfg.Progress("contention: data kept in " + l.dataDir)
	}
}

// serveArgs are one server's command line: trust authentication on a free
// loopback port, the shared catalog flags passed through.
func serveArgs(cfg ContentionConfig, dataDir, addr string) []string {
	args := []string{"serve", "--data", dataDir, "--listen", addr, "--auth", "trust", "--max-connections", "1000"}
	for _, kv := range cfg.CatalogProps {
		args = append(args, "--catalog-prop", kv)
	}
	if cfg.Warehouse != "" {
		args = append(args, "--warehouse", cfg.Warehouse)
	}
	if cfg.AutoVacuum > 0 {
		args = append(args, "--auto-vacuum", cfg.AutoVacuum.String())
	}
	return args
}

// startServe starts a server and waits until it accepts a login.
func startServe(ctx context.Context, cfg ContentionConfig, dataDir string) (*serveProc, error) {
	return launchServe(ctx, cfg.Binary, func(addr string) []string { return serveArgs(cfg, dataDir, addr) })
}

// launchServe runs binary with the arguments args gives for a free
// loopback address and waits until the server accepts a login.
func launchServe(ctx context.Context, binary string, args func(addr string) []string) (*serveProc, error) {
	addr, err := freeLoopbackAddr()
	if err != nil {
		return nil, err
	}
	cmd := osexec.Command(binary, args(addr)...)
	// The AWS SDK must never try the EC2 metadata address from a bench.
	cmd.Env = append(os.Environ(), "AWS_EC2_METADATA_DISABLED=true")
	p := &serveProc{cmd: cmd, addr: addr, log: &tailBuffer{max: 64 << 10}, done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = p.log, p.log
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", binary, err)
	}
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	if err := p.waitReady(ctx, 30*time.Second); err != nil {
		p.stop()
		return nil, err
	}
	return p, nil
}

// freeLoopbackAddr is a port nothing listens on now; the server binds it
// a moment later (another process could take it in between: then the
// server fails to start and says so).
func freeLoopbackAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("find a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().String(), nil
}

// waitReady logs in until it succeeds, the process exits, or within passes.
func (p *serveProc) waitReady(ctx context.Context, within time.Duration) error {
	deadline := time.Now().Add(within)
	for {
		c, err := dial(ctx, p.addr)
		if err == nil {
			return c.Close(ctx)
		}
		select {
		case <-p.done:
			return fmt.Errorf("serve on %s exited (%v): %s", p.addr, p.err, p.log.String())
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("serve on %s: no login within %v: %w", p.addr, within, err)
		}
	}
}

// stop asks the server to drain (SIGTERM) and kills it if it has not
// exited within 15 s.
func (p *serveProc) stop() {
	select {
	case <-p.done:
		return
	default:
	}
	p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(15 * time.Second):
		p.cmd.Process.Kill()
		<-p.done
	}
}

// alive reports an exited server as an error with the end of its log.
func (l *sharedLake) alive() error {
	for i, p := range l.servers {
		select {
		case <-p.done:
			return fmt.Errorf("server %d (%s) exited: %v: %s", i, p.addr, p.err, p.log.String())
		default:
		}
	}
	return nil
}

// dial logs in to a server as the bench user. The simple protocol sends
// each statement (the bench writes literals, never parameters) in one
// round trip.
func dial(ctx context.Context, addr string) (*pgx.Conn, error) {
	cfg, err := pgx.ParseConfig("postgres://bench@" + addr + "/bench?sslmode=disable&connect_timeout=5")
	if err != nil {
		return nil, err
	}
	cfg.DefaultQueryExecMode = pgx.QueryExecModeSimpleProtocol
	c, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("connect to %s: %w", addr, err)
	}
	return c, nil
}

// connectAll opens one connection per session, round-robin over the servers.
func (l *sharedLake) connectAll(ctx context.Context, sessions int) ([]*client, error) {
	var out []*client
	for i := range sessions {
		c, err := l.connect(ctx, i%len(l.servers))
		if err != nil {
			closeAll(out)
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

func (l *sharedLake) connect(ctx context.Context, server int) (*client, error) {
	conn, err := dial(ctx, l.servers[server].addr)
	if err != nil {
		return nil, fmt.Errorf("server %d: %w", server, err)
	}
	return &client{conn: conn, addr: l.servers[server].addr, server: server, timeout: l.cfg.StatementTimeout}, nil
}

func closeAll(cs []*client) {
	for _, c := range cs {
		c.close()
	}
}

// tailBuffer keeps the last max bytes a child process logged.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if over := len(t.b) - t.max; over > 0 {
		t.b = append(t.b[:0], t.b[over:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.TrimSpace(string(t.b))
}
