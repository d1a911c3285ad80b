package e2e

import "testing"

func TestNodePostgres(t *testing.T) {
	node := needProgram(t, "", "node", "nodejs")
	modules := nodeModules(t)
	forEachAuth(t, func(t *testing.T, s *server, password string) {
		sc := newScenario("node_t")
		env := append(sc.env(s, password), "NODE_PATH="+modules)
		out := runProgram(t, env, node, testdata(t, "client_pg.js"))
		checkTranscript(t, out, sc.transcript(false))
	})
}
