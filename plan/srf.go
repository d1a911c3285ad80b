package plan

import (
	"strconv"
	"strings"

	"github.com/magmalake/magmalake/sql"
)

// SRF repeats each input row per value of its set-returning calls (a
// select list's unnest or generate_series, or one in FROM over OneRow):
// several calls run in lockstep, the shorter ones padded with NULLs, as
// PostgreSQL's ProjectSet does. The calls are hidden columns after the
// input's.
type SRF struct {
	Input Node
	Calls []SRFCall
	Sc    *sql.Scope
}

// SRFCall is one set-returning call: its arguments over the input scope
// and the type of the values it returns.
type SRFCall struct {
	Name string
	Args []sql.Expr
	T    sql.Type
}

// key tells calls apart: the function and its bound arguments.
func (c SRFCall) key() string {
	parts := make([]string, len(c.Args))
	for i, a := range c.Args {
		parts[i] = a.String()
	}
	return c.Name + "(" + strings.Join(parts, ", ") + ")"
}

// srfColumn names the hidden column the select list reads for call i.
func srfColumn(i int) string { return "__srf" + strconv.Itoa(i) }

func newSRF(src Node, calls []SRFCall, column map[sql.Syntax]int) *SRF {
	sc := &sql.Scope{Aliased: src.Scope().Aliased, Computed: map[sql.Syntax]string{}}
	for n, i := range column {
		sc.Computed[n] = srfColumn(i)
	}
	sc.Columns = append(sc.Columns, src.Scope().Columns...)
	for i, c := range calls {
		sc.Columns = append(sc.Columns, sql.ScopeColumn{Name: srfColumn(i), T: c.T, Hidden: true})
	}
	return &SRF{Input: src, Calls: calls, Sc: sc}
}

func (s *SRF) Scope() *sql.Scope { return s.Sc }

// Project keeps the whole input: the calls' arguments read it.
func (s *SRF) Project(cols []int) Node { return NewPick(s, cols) }
