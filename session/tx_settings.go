package session

import (
	"maps"
	"strings"

	"github.com/magmalake/magmalake/stmt"
)

// Settings are transactional, as in PostgreSQL: a SET inside a block is
// undone by the block's ROLLBACK (and by a ROLLBACK TO a savepoint before
// it), SET LOCAL lasts until the block ends, and transaction_isolation is
// the block's own (BEGIN ISOLATION LEVEL, SET TRANSACTION), back to
// default_transaction_isolation when the block ends. Restored parameters
// that clients track are reported as ParameterStatus again.

// settingsBlock is what a block's SETs may have to undo.
type settingsBlock struct {
	begin map[string]string // the values at BEGIN: what ROLLBACK restores
	// local maps each SET LOCAL name to the value it returns to at COMMIT.
	local map[string]sessionValue
}

// sessionValue is a parameter's value outside SET LOCAL; !set is the default.
type sessionValue struct {
	value string
	set   bool
}

// settingsMark is the settings at a savepoint.
type settingsMark struct {
	values map[string]string
	local  map[string]sessionValue
}

// beginBlock starts recording a block's SETs.
func (s *Settings) beginBlock() {
	s.block = &settingsBlock{begin: maps.Clone(s.values), local: map[string]sessionValue{}}
}

// setLocal is SET LOCAL inside a block: Set, remembering the value the
// parameter returns to at COMMIT.
func (s *Settings) setLocal(name, value string, reset bool) (*stmt.ParameterChange, error) {
	n := strings.ToLower(name)
	prev, had := s.values[n]
	var ch *stmt.ParameterChange
	var err error
	if reset {
		ch, err = s.Reset(n)
	} else {
		ch, err = s.Set(n, value)
	}
	if err != nil || s.block == nil {
		return ch, err
	}
	if _, ok := s.block.local[n]; !ok {
		s.block.local[n] = sessionValue{value: prev, set: had}
	}
	return ch, nil
}

// sessionSet notes that a plain SET or RESET of name inside a block sets
// the value it keeps after COMMIT.
func (s *Settings) sessionSet(name string) {
	if s.block != nil {
		delete(s.block.local, strings.ToLower(name))
	}
}

// commitBlock ends a committed block: SET LOCAL values go back to their
// session values.
func (s *Settings) commitBlock() []stmt.ParameterChange {
	if s.block == nil {
		return nil
	}
	old := maps.Clone(s.values)
	for n, v := range s.block.local {
		if v.set {
			s.values[n] = v.value
		} else {
			delete(s.values, n)
		}
	}
	s.block = nil
	return s.changes(old)
}

// rollbackBlock ends a rolled-back block: every value is what it was at BEGIN.
func (s *Settings) rollbackBlock() []stmt.ParameterChange {
	if s.block == nil {
		return nil
	}
	old := s.values
	s.values = s.block.begin
	s.block = nil
	return s.changes(old)
}

func (s *Settings) mark() settingsMark {
	if s.block == nil {
		return settingsMark{}
	}
	return settingsMark{values: maps.Clone(s.values), local: maps.Clone(s.block.local)}
}

// rewind restores the settings of a savepoint (ROLLBACK TO).
func (s *Settings) rewind(m settingsMark) []stmt.ParameterChange {
	if s.block == nil || m.values == nil {
		return nil
	}
	old := s.values
	s.values = maps.Clone(m.values)
	s.block.local = maps.Clone(m.local)
	return s.changes(old)
}

// changes are the ParameterStatus messages for reported parameters whose
// value differs from what they were in old.
func (s *Settings) changes(old map[string]string) []stmt.ParameterChange {
	var out []stmt.ParameterChange
	for _, n := range s.names() {
		d := s.defs[n]
		if !d.report {
			continue
		}
		was, ok := old[n]
		if !ok {
			was = d.def
		}
		if now, _ := s.Get(n); now != was {
			out = append(out, stmt.ParameterChange{Name: reportName(n), Value: now})
		}
	}
	return out
}

// endIsolation puts transaction_isolation back to the session default, as
// it reads outside a block.
func (s *Settings) endIsolation() {
	s.setIsolation("")
}

// setIsolation sets the block's isolation level, the default when lvl is "".
func (s *Settings) setIsolation(lvl string) {
	if lvl == "" {
		lvl, _ = s.Get("default_transaction_isolation")
	}
	s.values["transaction_isolation"] = lvl
}
