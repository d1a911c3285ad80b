package session

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/magmalake/magmalake/lake"
	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql"
	"github.com/magmalake/magmalake/stmt"
)

// The statement log. PostgreSQL writes "statement:" lines for what
// log_statement selects, "duration:" lines past log_min_duration_statement
// and every failed statement; magmalake writes one structured line per
// statement when it ends, with what an Iceberg operator wants beside the
// text: the rows, the snapshot each table's commit made and the files it
// added. A statement that streams rows ends when its rows are closed.

// logClass is log_statement's view of a statement: ddl < mod < all.
type logClass uint8

const (
	logAll logClass = iota
	logMod
	logDDL
)

// logClassOf classifies st as PostgreSQL's GetCommandLogLevel does.
func logClassOf(st sql.Statement, named sqlPrepared) logClass {
	switch x := st.(type) {
	case *sql.CreateTable, *sql.DropTable, *sql.AlterTableProperties, *sql.AlterTable, *sql.CreateView, *sql.DropView, *sql.AlterRef, *sql.AlterExecute,
		*sql.CreateSchema, *sql.DropSchema:
		return logDDL
	case *sql.Insert, *sql.Update, *sql.Delete, *sql.Merge, *sql.Truncate:
		return logMod
	case *sql.Copy:
		if x.From {
			return logMod
		}
	case *sql.Explain:
		if x.Analyze {
			return logClassOf(x.Stmt, named)
		}
	case *sql.ExecuteStmt:
		if p, ok := named[x.Name]; ok {
			return formOf(p).logClass
		}
	case *sql.PrepareStmt:
		if body, err := sql.Parse(x.Body); err == nil && len(body) == 1 {
			return logClassOf(body[0], named)
		}
	}
	return logAll
}

// selects reports whether log_statement level logs statements of class c.
func (c logClass) selectedBy(level string) bool {
	switch level {
	case "all":
		return true
	case "mod":
		return c >= logMod
	case "ddl":
		return c == logDDL
	}
	return false
}

// stmtLog follows one statement to its end.
type stmtLog struct {
	s     *statementLog
	log   *slog.Logger
	query string
	class logClass
	start time.Time
	// successes is false when only a failure can be logged (the common
	// setting): the statement's commits are then not followed.
	successes bool

	mu      sync.Mutex // commits may be reported by a group's leader
	commits []lake.CommitReport
}

// statementLog writes the server log's lines for the session's statements
// (log_statement, log_min_duration_statement, every error), as PostgreSQL
// does.
type statementLog struct {
	engine   *Engine
	settings *Settings
	info     stmt.SessionInfo
}

// startLog begins following p; nil when the server keeps no log.
func (sl *statementLog) startLog(p *stmt.Prepared) *stmtLog {
	if sl.engine.opts.Logger == nil {
		return nil
	}
	class := formOf(p).logClass
	return &stmtLog{s: sl, log: sl.engine.opts.Logger, query: p.Query, class: class, start: time.Now(),
		successes: sl.logsSuccesses(class)}
}

// logsSuccesses reports whether a statement of class c that succeeds may be
// logged: log_statement selects it or log_min_duration_statement is on.
// When not, its commits need not be followed.
func (sl *statementLog) logsSuccesses(c logClass) bool {
	level, _ := sl.settings.Get("log_statement")
	_, timed := sl.settings.minDuration()
	return timed || c.selectedBy(level)
}

// logPrepareError logs a statement that failed before it ran (a syntax
// error, an unknown table), as PostgreSQL logs every error.
func (sl *statementLog) logPrepareError(query string, err error) {
	if sl.engine.opts.Logger != nil {
		(&stmtLog{s: sl, log: sl.engine.opts.Logger, query: query, start: time.Now()}).write("", err)
	}
}

// observe makes the statement's commits reach l.
func (l *stmtLog) observe(ctx context.Context) context.Context {
	if l == nil || !l.successes {
		return ctx
	}
	return lake.WithCommitObserver(ctx, func(r lake.CommitReport) {
		l.mu.Lock()
		defer l.mu.Unlock()
		l.commits = append(l.commits, r)
	})
}

// finish logs the statement now, or when its rows or COPY data end.
func (l *stmtLog) finish(res *stmt.Result, err error) (*stmt.Result, error) {
	if l == nil {
		return res, err
	}
	switch {
	case err != nil:
		l.write("", err)
	case res.Rows != nil:
		res.Rows = &loggedRows{Rows: res.Rows, l: l}
	case res.CopyIn != nil:
		load := res.CopyIn.Load
		res.CopyIn.Load = func(ctx context.Context, r io.Reader) (int64, error) {
			n, err := load(l.observe(ctx), r)
			l.write("COPY "+strconv.FormatInt(n, 10), err)
			return n, err
		}
	default:
		l.write(res.Tag, nil)
	}
	return res, err
}

// write emits the line if the statement failed, log_statement selects it
// or it ran at least log_min_duration_statement.
func (l *stmtLog) write(tag string, err error) {
	d := time.Since(l.start)
	if err == nil {
		if !l.successes {
			return
		}
		level, _ := l.s.settings.Get("log_statement")
		min, timed := l.s.settings.minDuration()
		if !l.class.selectedBy(level) && !(timed && d >= min) {
			return
		}
	}
	attrs := l.attrs(tag, d)
	if err != nil {
		attrs = append(attrs, errorAttrs(err)...)
		l.log.LogAttrs(context.Background(), slog.LevelError, "statement failed", attrs...)
		return
	}
	l.log.LogAttrs(context.Background(), slog.LevelInfo, "statement", attrs...)
}

func (l *stmtLog) attrs(tag string, d time.Duration) []slog.Attr {
	info := l.s.info
	app, _ := l.s.settings.Get("application_name")
	attrs := []slog.Attr{
		slog.Uint64("pid", uint64(info.PID)),
		slog.String("user", info.User),
		slog.String("database", info.Database),
		slog.String("application_name", app),
		slog.String("statement", l.query),
		slog.Float64("duration_ms", float64(d.Microseconds())/1000),
	}
	if tag != "" {
		attrs = append(attrs, slog.String("tag", tag))
		if n, ok := tagRows(tag); ok {
			attrs = append(attrs, slog.Int64("rows", n))
		}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.commits) > 0 {
		attrs = append(attrs, commitAttrs(l.commits)...)
	}
	return attrs
}

// commitAttrs names the snapshot of each table the statement committed to
// and counts the files it added.
func commitAttrs(cs []lake.CommitReport) []slog.Attr {
	var data, deletes int
	tables := make([]string, 0, len(cs))
	snaps := make([]string, 0, len(cs))
	for _, c := range cs {
		data += c.DataFiles
		deletes += c.DeleteFiles
		tables = append(tables, strings.Join(c.Table, "."))
		snaps = append(snaps, strconv.FormatInt(c.SnapshotID, 10))
	}
	// Snapshot ids are text: JSON readers that hold numbers as doubles
	// (jq, JavaScript) would round them.
	out := []slog.Attr{slog.String("tables", strings.Join(tables, ","))}
	if len(cs) == 1 {
		out = append(out, slog.String("snapshot_id", snaps[0]))
	} else {
		out = append(out, slog.String("snapshot_ids", strings.Join(snaps, ",")))
	}
	return append(out, slog.Int("data_files", data), slog.Int("delete_files", deletes))
}

func errorAttrs(err error) []slog.Attr {
	var se *pgerr.Error
	if errors.As(toSQLError(err), &se) {
		return []slog.Attr{slog.String("sqlstate", string(se.Code)), slog.String("error", se.Message)}
	}
	return []slog.Attr{slog.String("error", err.Error())}
}

// tagRows is the row count a command tag ends with ("INSERT 0 5": 5).
func tagRows(tag string) (int64, bool) {
	i := strings.LastIndexByte(tag, ' ')
	if i < 0 {
		return 0, false
	}
	n, err := strconv.ParseInt(tag[i+1:], 10, 64)
	return n, err == nil
}

// loggedRows logs its statement when the client is done with the rows.
type loggedRows struct {
	stmt.Rows
	l      *stmtLog
	err    error
	done   bool
	logged bool // Close may be called twice
}

func (r *loggedRows) Next(ctx context.Context) (arrow.RecordBatch, error) {
	b, err := r.Rows.Next(ctx)
	if err != nil && !errors.Is(err, io.EOF) {
		r.err = err
	}
	if errors.Is(err, io.EOF) {
		r.done = true
	}
	return b, err
}

func (r *loggedRows) Close() error {
	err := r.Rows.Close()
	if !r.logged {
		r.logged = true
		tag := ""
		if r.done {
			tag = r.Rows.Tag()
		}
		r.l.write(tag, r.err)
	}
	return err
}
