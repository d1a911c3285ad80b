package e2e

import (
	"testing"

	"github.com/magmalake/magmalake/internal/testenv"
)

func TestNodePostgres(t *testing.T) {
	node := testenv.Program(t, "", "node", "nodejs")
	modules := testenv.NodeModules(t)
	forEachAuth(t, func(t *testing.T, s *server, password string) {
		sc := newScenario("node_t")
		env := append(sc.env(s, password), "NODE_PATH="+modules)
		out := runProgram(t, env, node, testdata(t, "client_pg.js"))
		checkTranscript(t, out, sc.transcript(false))
	})
}
