package session

import (
	"context"
	"fmt"
	"strings"

	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql"
	"github.com/magmalake/magmalake/stmt"
)

// SQL-level prepared statements: PREPARE name [(types)] AS ..., EXECUTE
// name (args), DEALLOCATE [ALL]. They belong to the session (not to a
// transaction: a rollback keeps them, as in PostgreSQL) and share Prepare and
// Execute with the protocol's prepared statements.

// sqlPrepared is the session's named statements.
type sqlPrepared map[string]*stmt.Prepared

func (s *Session) preparePrepare(st *sql.PrepareStmt) (plan, []stmt.Column, error) {
	run := func(ctx context.Context, s *Session, _ []stmt.Param) (*stmt.Result, error) {
		if _, ok := s.named[st.Name]; ok {
			return nil, pgerr.Errorf(pgerr.DuplicatePreparedStatement, "prepared statement %q already exists", st.Name)
		}
		if err := preparable(st.Body, s.settings.maxDepth()); err != nil {
			return nil, err
		}
		oids := make([]uint32, len(st.Types))
		for i, t := range st.Types {
			oids[i] = t.OID()
		}
		p, err := s.prepare(ctx, st.Body, oids)
		if err != nil {
			return nil, err
		}
		if s.named == nil {
			s.named = sqlPrepared{}
		}
		s.named[st.Name] = p
		return stmt.TagOnly("PREPARE"), nil
	}
	return planFunc(run), nil, nil
}

// prepareExecute plans EXECUTE: the row description is the named
// statement's as it is now; a missing one is reported when it runs.
func (s *Session) prepareExecute(st *sql.ExecuteStmt) (plan, []stmt.Column, error) {
	var cols []stmt.Column
	if p, ok := s.named[st.Name]; ok {
		cols = p.Columns
	}
	run := func(ctx context.Context, s *Session, outer []stmt.Param) (*stmt.Result, error) {
		p, ok := s.named[st.Name]
		if !ok {
			return nil, pgerr.Errorf(pgerr.InvalidSQLStatementName, "prepared statement %q does not exist", st.Name)
		}
		if len(st.Args) != len(p.ParamTypes) {
			return nil, &pgerr.Error{Code: pgerr.SyntaxError,
				Message: "wrong number of parameters for prepared statement \"" + st.Name + "\"",
				Detail:  fmt.Sprintf("Expected %d parameters but got %d.", len(p.ParamTypes), len(st.Args))}
		}
		args, err := executeArgs(ctx, st, outer)
		if err != nil {
			return nil, err
		}
		plan := formOf(p).plan
		if plan == nil {
			return nil, pgerr.Errorf(pgerr.InternalError, "prepared statement %q has no plan", st.Name)
		}
		return plan.execute(ctx, s, args)
	}
	return executePlan{name: st.Name, run: run}, cols, nil
}

// executePlan is a prepared EXECUTE name.
type executePlan struct {
	name string
	run  planFunc
}

func (p executePlan) execute(ctx context.Context, s *Session, params []stmt.Param) (*stmt.Result, error) {
	return p.run(ctx, s, params)
}

// keepsPlans as the statement it executes does.
func (p executePlan) keepsPlans(s *Session) bool {
	named, ok := s.named[p.name]
	if !ok {
		return false
	}
	k, ok := formOf(named).plan.(keepsPlans)
	return ok && k.keepsPlans(s)
}

// executeArgs evaluates EXECUTE's arguments (constant expressions, or the
// outer statement's parameters) and hands each over as its text, which the
// statement's parameter types then read as they read a client's text
// parameters.
func executeArgs(ctx context.Context, st *sql.ExecuteStmt, outer []stmt.Param) ([]stmt.Param, error) {
	args := make([]stmt.Param, len(st.Args))
	for i, node := range st.Args {
		params := &sql.Params{Input: sql.InputStyleOf(ctx)} // DATE '...' arguments read in the session's DateStyle
		e, err := sql.Bind(node, &sql.Scope{}, params)
		if err != nil {
			return nil, err
		}
		arr, err := sql.Eval(ctx, e, nil, outer)
		if err != nil {
			return nil, err
		}
		if !arr.IsNull(0) {
			args[i] = string(sql.AppendText(nil, e.Type(), arr, 0))
		}
		arr.Release()
	}
	return args, nil
}

func (s *Session) prepareDeallocate(st *sql.Deallocate) (plan, []stmt.Column, error) {
	run := func(ctx context.Context, s *Session, _ []stmt.Param) (*stmt.Result, error) {
		if st.All {
			s.named = nil
			return stmt.TagOnly("DEALLOCATE ALL"), nil
		}
		if _, ok := s.named[st.Name]; !ok {
			return nil, pgerr.Errorf(pgerr.InvalidSQLStatementName, "prepared statement %q does not exist", st.Name)
		}
		delete(s.named, st.Name)
		return stmt.TagOnly("DEALLOCATE"), nil
	}
	return planFunc(run), nil, nil
}

// preparable admits what PostgreSQL's PREPARE does: SELECT, INSERT, UPDATE,
// DELETE and MERGE (and VALUES), not utility statements.
func preparable(body string, maxDepth int) error {
	stmts, err := sql.ParseLimited(body, maxDepth)
	if err != nil {
		return err
	}
	if len(stmts) != 1 {
		return pgerr.Errorf(pgerr.SyntaxError, "cannot insert multiple commands into a prepared statement")
	}
	switch stmts[0].(type) {
	case *sql.Select, *sql.Insert, *sql.Update, *sql.Delete, *sql.Merge:
		return nil
	}
	return pgerr.Errorf(pgerr.SyntaxError, "syntax error at or near %q", firstWord(body))
}

func firstWord(s string) string {
	if i := strings.IndexAny(s, " \t\n("); i > 0 {
		return s[:i]
	}
	return s
}
