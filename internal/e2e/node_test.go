package e2e

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/magmalake/magmalake/wire"
)

// nodeModules finds node-postgres: MAGMALAKE_NODE_MODULES, or
// .cache/node/node_modules under the repository root (npm install --prefix
// .cache/node pg); it skips when there is none.
func nodeModules(t *testing.T) string {
	t.Helper()
	dirs := []string{os.Getenv("MAGMALAKE_NODE_MODULES")}
	if _, file, _, ok := runtime.Caller(0); ok {
		dirs = append(dirs, filepath.Join(filepath.Dir(file), "..", "..", ".cache", "node", "node_modules"))
	}
	for _, d := range dirs {
		if d == "" {
			continue
		}
		if _, err := os.Stat(filepath.Join(d, "pg", "package.json")); err == nil {
			return d
		}
	}
	t.Skip("node-postgres not installed (npm install --prefix .cache/node pg, or set MAGMALAKE_NODE_MODULES)")
	return ""
}

func TestNodePostgres(t *testing.T) {
	node := needProgram(t, "", "node", "nodejs")
	modules := nodeModules(t)
	for _, auth := range []struct {
		name     string
		method   wire.AuthMethod
		password string
	}{{"trust", wire.AuthTrust, ""}, {"scram", wire.AuthSCRAM, testPassword}} {
		t.Run(auth.name, func(t *testing.T) {
			s := startServer(t, auth.method)
			sc := newScenario("node_t")
			env := append(sc.env(s, auth.password), "NODE_PATH="+modules)
			out := runProgram(t, env, node, testdata(t, "client_pg.js"))
			checkTranscript(t, out, sc.transcript(false))
		})
	}
}
