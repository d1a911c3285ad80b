package session

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/magmalake/magmalake/engine"
	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql"
	"github.com/magmalake/magmalake/stmt"
)

// Session is one connection's statements: it prepares and executes them,
// dispatching each to the part whose job it is. Its parts share the engine
// and the settings.
type Session struct {
	engine   *Engine
	info     stmt.SessionInfo
	settings *Settings
	tx       *txBlock      // the transaction block, its cursors
	names    *nameResolver // tables, views, refs, catalog relations
	show     *showReader   // SHOW and DESCRIBE answers
	log      *statementLog // the server log's statement lines
	plans    planCache
	shapes   shapeCache
	named    sqlPrepared    // PREPARE name ... AS
	progress *progressWatch // WatchProgress's, nil: no reports
	// planGen moves on with every statement that may change what a kept
	// plan was bound over (plan_reuse.go).
	planGen uint64
	// binds counts the statements bound for this session (engine.Env.Binds).
	binds engine.BindCount
}

// newSession wires a session's parts to the engine and its settings.
func newSession(e *Engine, info stmt.SessionInfo, settings *Settings) *Session {
	tx := &txBlock{engine: e, settings: settings}
	names := &nameResolver{engine: e, settings: settings, info: info, tx: tx}
	s := &Session{engine: e, info: info, settings: settings, tx: tx, names: names,
		log: &statementLog{engine: e, settings: settings, info: info}}
	s.show = &showReader{engine: e, settings: settings, info: info, tx: tx, names: names, env: s.queryEnv}
	return s
}

// prepared is the session's own form of a prepared statement
// (stmt.Prepared.Plan): its plan, and what log_statement sees of it.
type prepared struct {
	plan     plan
	logClass logClass
}

// formOf is the session's form of p: no plan when this session did not
// prepare it.
func formOf(p *stmt.Prepared) prepared {
	f, _ := p.Plan.(prepared)
	return f
}

// plan is a prepared statement's executable form.
type plan interface {
	execute(ctx context.Context, s *Session, params []stmt.Param) (*stmt.Result, error)
}

// planFunc adapts a function to plan.
type planFunc func(ctx context.Context, s *Session, params []stmt.Param) (*stmt.Result, error)

func (f planFunc) execute(ctx context.Context, s *Session, params []stmt.Param) (*stmt.Result, error) {
	return f(ctx, s, params)
}

// ParameterStatus is the set of ParameterStatus messages sent after
// authentication, as PostgreSQL 15 sends them.
func (s *Session) ParameterStatus() map[string]string {
	return s.settings.Reported()
}

// Split cuts a simple-query string into its statements (PostgreSQL lexical
// rules: quotes, dollar quotes, comments). An empty or whitespace-only query
// gives no statements (EmptyQueryResponse).
func (s *Session) Split(query string) ([]string, error) {
	return sql.Split(query)
}

// Prepare parses and binds one statement. paramTypes are the client's
// parameter OIDs (0 = infer).
func (s *Session) Prepare(ctx context.Context, query string, paramTypes []uint32) (p *stmt.Prepared, err error) {
	defer recoverInternal(&err)
	if len(paramTypes) == 0 {
		if p, ok := s.prepareShaped(ctx, query); ok {
			return s.withTruncationNotices(p, query), nil
		}
	}
	p, err = s.prepare(ctx, query, paramTypes)
	if err != nil {
		s.tx.fail()
		err = toSQLError(err)
		s.log.logPrepareError(query, err)
		return nil, err
	}
	return s.withTruncationNotices(p, query), nil
}

// withTruncationNotices is p with PostgreSQL's NOTICEs for the identifiers
// of query the parser truncated to 63 bytes (p itself may be cached and
// shared, so a copy).
func (s *Session) withTruncationNotices(p *stmt.Prepared, query string) *stmt.Prepared {
	msgs := sql.TruncatedIdentifiers(query)
	if len(msgs) == 0 {
		return p
	}
	cp := *p
	cp.Notices = nil
	for _, m := range msgs {
		cp.Notices = append(cp.Notices, stmt.Notice{Severity: "NOTICE", Code: pgerr.NameTooLong, Message: m})
	}
	cp.Notices = s.settings.visible(cp.Notices)
	return &cp
}

func (s *Session) prepare(ctx context.Context, query string, paramTypes []uint32) (*stmt.Prepared, error) {
	// The wire checks before this too; the shell's input arrives only here.
	if err := sql.CheckUTF8(query); err != nil {
		return nil, err
	}
	// Client-given parameter types change binding: only untyped texts are cached.
	cacheable := len(paramTypes) == 0
	var st sql.Statement
	maxDepth := s.settings.maxDepth()
	ctx = s.names.withCatalog(s.settings.withInputStyle(ctx))
	input := sql.InputStyleOf(ctx)
	if e, ok := s.plans.get(query, maxDepth, input); ok && cacheable {
		if err := s.tx.admit(e.stmt); err != nil {
			return nil, err
		}
		if e.prep != nil {
			return e.prep, nil
		}
		st = e.stmt
	} else {
		stmts, err := sql.ParseLimited(query, maxDepth)
		if err != nil {
			return nil, err
		}
		switch len(stmts) {
		case 0:
			return &stmt.Prepared{Query: query, Plan: prepared{plan: planFunc(emptyQuery)}}, nil
		case 1:
		default:
			return nil, pgerr.Errorf(pgerr.SyntaxError, "cannot insert multiple commands into a prepared statement")
		}
		st = stmts[0]
		if err := s.tx.admit(st); err != nil {
			return nil, err
		}
	}
	params := sql.NewParams(paramTypes)
	params.Input = input
	pl, cols, err := s.planStatement(ctx, st, params)
	if err != nil {
		return nil, err
	}
	p := &stmt.Prepared{Query: query, ParamTypes: params.OIDs(), Columns: cols, Interactive: copiesIn(st),
		Plan: prepared{plan: pl, logClass: logClassOf(st, s.named)}}
	if cacheable {
		s.plans.put(query, st, p, maxDepth, input)
	}
	return p, nil
}

// copiesIn is COPY ... FROM STDIN.
func copiesIn(st sql.Statement) bool {
	c, ok := st.(*sql.Copy)
	return ok && c.From
}

func emptyQuery(context.Context, *Session, []stmt.Param) (*stmt.Result, error) {
	return &stmt.Result{Tag: ""}, nil
}

// Execute runs a prepared statement with bound parameters. Cancelling ctx
// cancels the statement (SQLSTATE 57014) and removes what it wrote.
func (s *Session) Execute(ctx context.Context, p *stmt.Prepared, params []stmt.Param) (*stmt.Result, error) {
	l := s.log.startLog(p)
	pr := s.progress.start(s.settings)
	res, err := pr.follow(l.finish(s.execute(pr.attach(l.observe(ctx)), p, params)))
	if err == nil {
		res.Notices = s.settings.visible(res.Notices)
	}
	return res, err
}

func (s *Session) execute(ctx context.Context, p *stmt.Prepared, params []stmt.Param) (*stmt.Result, error) {
	if len(params) != len(p.ParamTypes) {
		return nil, &pgerr.Error{Code: pgerr.ProtocolViolation,
			Message: fmt.Sprintf("bind message supplies %d parameters, but prepared statement requires %d", len(params), len(p.ParamTypes))}
	}
	pl := formOf(p).plan
	if pl == nil {
		return nil, &pgerr.Error{Code: pgerr.InternalError, Message: "statement was not prepared by this session"}
	}
	start := time.Now()
	ctx = withStatementTime(s.settings.withInputStyle(ctx), start)
	ctx = s.settings.withLockTimeout(s.names.withCatalog(ctx))
	deadline := s.settings.statementDeadline(start)
	cancel := context.CancelFunc(func() {})
	if !deadline.IsZero() {
		// Streamed rows read from scans started here: the deadline's
		// context ends when the rows are closed, not when Execute returns.
		ctx, cancel = context.WithDeadline(ctx, deadline)
	}
	ro, _ := s.settings.Get("default_transaction_read_only")
	s.tx.autoReadOnly = ro == "on"
	ctx, holds := s.engine.holdStatement(ctx, start, s)
	res, err := s.executeGuarded(ctx, pl, params)
	s.afterExecute(pl)
	if err != nil {
		holds.release()
		if cerr := ctx.Err(); cerr != nil {
			// Whatever a layer made of the cancellation (database/sql
			// answers ErrTxDone), the client asked to cancel, or the
			// statement timed out.
			err = pgerr.Canceled(cerr)
		}
		cancel()
		err = toSQLError(err)
		s.tx.fail()
		return nil, err
	}
	res = holds.follow(res)
	switch {
	case res.Rows != nil:
		res.Rows = &statementRows{Rows: res.Rows, deadline: deadline, cancel: cancel}
	case res.CopyIn != nil:
		res.CopyIn.Load = statementLoad(res.CopyIn.Load, deadline)
		cancel()
	default:
		cancel()
	}
	return res, nil
}

// executeGuarded runs a plan, turning a panic (a bug) into XX000 for this
// statement instead of ending the shell or the connection.
func (s *Session) executeGuarded(ctx context.Context, pl plan, params []stmt.Param) (res *stmt.Result, err error) {
	defer recoverInternal(&err)
	return pl.execute(ctx, s, params)
}

// run executes one statement to completion, discarding rows: for scripts
// such as the demo loader.
func (s *Session) run(ctx context.Context, query string) error {
	p, err := s.Prepare(ctx, query, nil)
	if err != nil {
		return err
	}
	res, err := s.Execute(ctx, p, nil)
	if err != nil {
		return err
	}
	if res.Rows == nil {
		return nil
	}
	defer res.Rows.Close()
	for {
		if _, err := res.Rows.Next(ctx); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

// TxStatus is the ReadyForQuery status: TxIdle, TxActive or TxFailed.
func (s *Session) TxStatus() byte { return s.tx.status() }

// Close ends the session, rolling back an open transaction.
func (s *Session) Close() {
	s.tx.reset()
	s.tx.cursors.closeAll()
}

// withStatementTime fixes the statement's now() for evaluation during
// Execute; sql.StatementContext carries it to rows streamed later (whose
// Next gets the caller's context).
func withStatementTime(ctx context.Context, t time.Time) context.Context {
	return sql.WithStatementTime(ctx, t)
}
