package session

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/magmalake/magmalake"
	"github.com/magmalake/magmalake/deletes"
	"github.com/magmalake/magmalake/engine"
	"github.com/magmalake/magmalake/lake"
	"github.com/magmalake/magmalake/sql"
	"github.com/magmalake/magmalake/stmt"
)

// EngineOptions tune execution; the zero value is ready to use.
type EngineOptions struct {
	// Retry bounds commit retries on concurrent writers.
	Retry lake.RetryPolicy
	// BatchSize caps rows per result batch (0: 4096).
	BatchSize int
	// Logger receives the statement log (log_statement,
	// log_min_duration_statement, failed statements); nil discards it.
	Logger *slog.Logger
	// Settings are the server's start values of the parameters
	// CheckServerSetting accepts (postgres -c): every session's defaults.
	Settings map[string]string
	// FileReadRoots are the directories whose files read_csv and
	// read_parquet may read (symbolic links resolved); none: they are
	// refused. The shell allows everything its user can read, a server
	// what serve --allow-file-read names.
	FileReadRoots []string
	// TempDir is where an ORDER BY past work_mem writes its sorted runs
	// ("": os.TempDir(), $TMPDIR or /tmp).
	TempDir string
	// FileCacheBytes bounds the decoded columns of small data files kept
	// for DML planning across statements (0: DefaultFileCacheBytes;
	// negative: none).
	FileCacheBytes int64
	// MemoryLimit bounds what all statements' operators hold together, in
	// bytes (0: unbounded): the server's --memory-limit (engine.MemPool).
	MemoryLimit int64
	// ReturnMemory, when set, gives free memory back to the operating
	// system once a statement that held at least ReturnMemoryAfter has
	// ended and none has run for ReturnMemoryQuiet, at most once per
	// ReturnMemoryEvery (a server passes debug.FreeOSMemory; tests leave
	// it nil).
	ReturnMemory func()
}

// ReturnMemoryAfter is what a statement must have held for its end to
// give memory back to the operating system: below it the runtime's own
// scavenger is enough, and a forced collection costs more than it
// returns. What operators account for is a fraction of what the heap grew
// by (GOGC=400 lets garbage reach four times the live heap): a hash join
// of 2M rows that accounted for 32MB left the process 150MB above idle.
const ReturnMemoryAfter = 16 << 20

// ReturnMemoryEvery is the least time between two returns of memory to
// the operating system.
const ReturnMemoryEvery = 5 * time.Second

// ReturnMemoryQuiet is how long no statement must have run before memory
// goes back to the operating system: statements that follow each other
// (a dashboard's, a script's, a benchmark's) reuse the memory the one
// before faulted in, and an idle server gives it back (jemalloc's decay
// time is of the same order).
const ReturnMemoryQuiet = 10 * time.Second

// DefaultFileCacheBytes is the default bound of the engine's file cache:
// a table of a few thousand small files fits.
const DefaultFileCacheBytes = 64 << 20

// Engine executes statements against one warehouse; it is shared by all sessions.
type Engine struct {
	wh   *lake.Warehouse
	opts EngineOptions
	uses tableUse // the tables open transaction blocks touched
	// files keeps small data files' decoded columns for DML planning.
	files *deletes.FileCache
	// mem is the server's memory, which every statement draws on.
	mem *engine.MemPool
}

// NewEngine starts an executor over wh.
func NewEngine(ctx context.Context, wh *lake.Warehouse, opts EngineOptions) (*Engine, error) {
	if wh == nil {
		return nil, errors.New("new engine: no warehouse")
	}
	if opts.BatchSize <= 0 {
		opts.BatchSize = 4096
	}
	settings, err := checkServerSettings(opts.Settings)
	if err != nil {
		return nil, fmt.Errorf("new engine: %w", err)
	}
	opts.Settings = settings
	if opts.FileCacheBytes == 0 {
		opts.FileCacheBytes = DefaultFileCacheBytes
	}
	mem := engine.NewMemPool(engine.MemPoolOptions{Limit: opts.MemoryLimit, ReturnMemory: opts.ReturnMemory,
		ReturnAfter: ReturnMemoryAfter, ReturnEvery: ReturnMemoryEvery, ReturnQuiet: ReturnMemoryQuiet})
	return &Engine{wh: wh, opts: opts, files: deletes.NewFileCache(opts.FileCacheBytes), mem: mem}, nil
}

// MemPool is the server's memory, which every statement draws on.
func (e *Engine) MemPool() *engine.MemPool { return e.mem }

// Warehouse is the warehouse the engine runs on.
func (e *Engine) Warehouse() *lake.Warehouse { return e.wh }

// StartSession starts a session for one client connection. It fails, and
// the connection must be refused, when the client's startup parameters
// name an unknown parameter or an invalid value.
func (e *Engine) StartSession(info stmt.SessionInfo) (*Session, error) {
	settings, err := newSettings(info, e.opts.Settings)
	if err != nil {
		return nil, err
	}
	return newSession(e, info, settings), nil
}

// NewSession starts a session whose parameters the program chooses (the
// shell, the demo loader, benchmarks); it panics on an invalid one, as
// that is a bug. Client connections use StartSession.
func (e *Engine) NewSession(info stmt.SessionInfo) *Session {
	s, err := e.StartSession(info)
	if err != nil {
		panic(fmt.Sprintf("new session: %v", err))
	}
	return s
}

// LoadDemo creates xmen.characters from the embedded demo script unless the
// table already exists.
func (e *Engine) LoadDemo(ctx context.Context) error {
	_, err := e.wh.LoadTable(ctx, lake.Ident("xmen", "characters"))
	if err == nil {
		return nil
	}
	if !errors.Is(err, lake.ErrNoSuchTable) && !errors.Is(err, lake.ErrNoSuchNamespace) {
		return fmt.Errorf("load demo: %w", err)
	}
	s := e.NewSession(stmt.SessionInfo{User: "magmalake", Database: "magmalake"})
	defer s.Close()
	stmts, err := sql.Split(magmalake.DemoSQL)
	if err != nil {
		return fmt.Errorf("load demo: %w", err)
	}
	for _, q := range stmts {
		if err := s.run(ctx, q); err != nil {
			return fmt.Errorf("load demo: %s: %w", q, err)
		}
	}
	return nil
}

// deleteOptions are the engine options every DML statement runs with.
func (e *Engine) deleteOptions(dry bool) deletes.Options {
	return deletes.Options{DryRun: dry,
		Plan: deletes.PlanOptions{Cache: e.files, Manifests: e.wh.Commits().Manifests()}}
}
