package session

import (
	"context"
	"strings"

	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql"
	"github.com/magmalake/magmalake/stmt"
)

// prepareSetting plans SET, RESET, SET TRANSACTION and DISCARD.
func (s *Session) prepareSetting(st sql.Statement) (plan, []stmt.Column, error) {
	run := func(ctx context.Context, s *Session, _ []stmt.Param) (*stmt.Result, error) {
		switch x := st.(type) {
		case *sql.Set:
			return s.set(x)
		case *sql.Reset:
			name := x.Name
			if x.All {
				name = branchSetting
			}
			if err := s.tx.checkBranchChange(name, ""); err != nil {
				return nil, err
			}
			if x.All {
				return &stmt.Result{Tag: "RESET", ParameterChanges: s.settings.ResetAll()}, nil
			}
			ch, err := s.settings.Reset(x.Name)
			s.settings.sessionSet(x.Name)
			return changeResult("RESET", ch, err)
		case *sql.SetTransaction:
			return s.tx.setTransaction(x)
		case *sql.Discard:
			if !x.All {
				return stmt.TagOnly("DISCARD " + strings.ToUpper(x.Target)), nil
			}
			if s.tx.active {
				return nil, pgerr.Errorf(pgerr.ActiveSQLTransaction, "DISCARD ALL cannot run inside a transaction block")
			}
			s.named = nil // DISCARD ALL deallocates SQL-level prepared statements too
			return &stmt.Result{Tag: "DISCARD ALL", ParameterChanges: s.settings.ResetAll()}, nil
		}
		return nil, notSupported("this statement is not supported")
	}
	return settingPlan{st: st, run: run}, nil, nil
}

// settingPlan is a prepared SET, RESET, SET TRANSACTION or DISCARD.
type settingPlan struct {
	st  sql.Statement
	run planFunc
}

func (p settingPlan) execute(ctx context.Context, s *Session, params []stmt.Param) (*stmt.Result, error) {
	return p.run(ctx, s, params)
}

// keepsPlans: a SET or RESET of one setting binding does not read
// (bindingSettings) leaves kept plans be.
func (p settingPlan) keepsPlans(*Session) bool {
	switch x := p.st.(type) {
	case *sql.Set:
		return !bindingSettings[strings.ToLower(x.Name)]
	case *sql.Reset:
		return !x.All && !bindingSettings[strings.ToLower(x.Name)]
	}
	return false
}

func changeResult(tag string, ch *stmt.ParameterChange, err error) (*stmt.Result, error) {
	if err != nil {
		return nil, err
	}
	r := stmt.TagOnly(tag)
	if ch != nil {
		r.ParameterChanges = []stmt.ParameterChange{*ch}
	}
	return r, nil
}

func (s *Session) set(x *sql.Set) (*stmt.Result, error) {
	name := strings.ToLower(x.Name)
	value := x.Value
	if x.Default {
		value = ""
	}
	if err := s.tx.checkBranchChange(name, value); err != nil {
		return nil, err
	}
	if x.Local && !s.tx.active {
		return outsideBlock("SET LOCAL"), nil
	}
	switch name {
	case "transaction_isolation", "default_transaction_isolation":
		if _, err := isolationLevel(x.Value); err != nil {
			if _, named := enumCheck(name, isolationLevels...)(x.Value); named != nil {
				return nil, named // PostgreSQL's words, naming the parameter set
			}
			return nil, err
		}
		if name == "transaction_isolation" && !s.tx.active {
			// Outside a block the SET is its own transaction: no effect.
			return stmt.TagOnly("SET"), nil
		}
	case "transaction_read_only":
		v, err := boolCheck("transaction_read_only")(x.Value)
		if err != nil {
			return nil, err
		}
		s.tx.readOnly = v == "on"
		return stmt.TagOnly("SET"), nil
	}
	var ch *stmt.ParameterChange
	var err error
	switch {
	case x.Local:
		ch, err = s.settings.setLocal(x.Name, x.Value, x.Default)
	case x.Default:
		ch, err = s.settings.Reset(x.Name)
		s.settings.sessionSet(x.Name)
	default:
		ch, err = s.settings.Set(x.Name, x.Value)
		s.settings.sessionSet(x.Name)
	}
	if name == "default_transaction_isolation" && !s.tx.active {
		s.settings.endIsolation() // the next transaction's level, as SHOW transaction_isolation reads
	}
	return changeResult("SET", ch, err)
}

// outsideBlock is PostgreSQL's answer to a transaction-scoped SET outside
// a block: a warning, and no effect.
func outsideBlock(what string) *stmt.Result {
	r := stmt.TagOnly("SET")
	r.Notices = []stmt.Notice{{Severity: "WARNING", Code: pgerr.NoActiveSQLTransaction, Message: what + " can only be used in transaction blocks"}}
	return r
}
