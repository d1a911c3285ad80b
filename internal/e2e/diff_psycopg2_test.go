package e2e

import (
	"testing"

	"github.com/magmalake/magmalake/internal/testenv"
)

// TestDiffPsycopg2 runs testdata/diff_psycopg2.py (default transactions
// with DDL, typed parameters of every adapted Python type, lists as
// ANY(%s), execute_values, named cursors, set_session) on magmalake and on
// PostgreSQL 15.
func TestDiffPsycopg2(t *testing.T) {
	py := testenv.Python(t, "psycopg2", "python3-psycopg2")
	differential(t, func(t *testing.T, d diffTarget) string {
		return runProgram(t, d.env("py_diff"), py, testdata(t, "diff_psycopg2.py"))
	})
}
