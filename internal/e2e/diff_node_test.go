package e2e

import (
	"testing"

	"github.com/magmalake/magmalake/internal/testenv"
)

// TestDiffNodePostgres runs testdata/diff_pg.js (parameters of every stored
// type and arrays, read back with the default type parsers, named
// statements, rowMode array, a transaction with DDL) on magmalake and on
// PostgreSQL 15.
func TestDiffNodePostgres(t *testing.T) {
	node := testenv.Program(t, "", "node", "nodejs")
	modules := testenv.NodeModules(t)
	differential(t, func(t *testing.T, d diffTarget) string {
		env := append(d.env("node_diff"), "NODE_PATH="+modules)
		return runProgram(t, env, node, testdata(t, "diff_pg.js"))
	})
}
