package e2e

import (
	"fmt"
	"github.com/magmalake/magmalake/internal/testenv"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// findOrSkip returns the first non-empty candidate that usable accepts; when
// there is none the client is not installed and the test skips with msg.
func findOrSkip(t *testing.T, msg string, usable func(string) bool, candidates ...string) string {
	t.Helper()
	for _, c := range candidates {
		if c != "" && usable(c) {
			return c
		}
	}
	testenv.Missing(t, "%s", msg)
	return ""
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// needProgram returns a client program: the one envVar names, used as
// given, else name when it is on PATH; otherwise the test skips.
func needProgram(t *testing.T, envVar, name, pkg string) string {
	t.Helper()
	if envVar != "" {
		if p := os.Getenv(envVar); p != "" {
			return p
		}
	}
	onPath := func(p string) bool { _, err := exec.LookPath(p); return err == nil }
	return findOrSkip(t, fmt.Sprintf("%s not installed (apt-get install %s)", name, pkg), onPath, name)
}

// jdbcJar finds pgjdbc (Debian libpostgresql-jdbc-java) or skips.
func jdbcJar(t *testing.T) string {
	t.Helper()
	return findOrSkip(t, "pgjdbc not installed (apt-get install libpostgresql-jdbc-java)", exists,
		os.Getenv("MAGMALAKE_JDBC_JAR"), "/usr/share/java/postgresql.jar")
}

// nodeModules finds node-postgres: MAGMALAKE_NODE_MODULES, or
// .cache/node/node_modules under the repository root (npm install --prefix
// .cache/node pg); it skips when there is none.
func nodeModules(t *testing.T) string {
	t.Helper()
	dirs := []string{os.Getenv("MAGMALAKE_NODE_MODULES")}
	if _, file, _, ok := runtime.Caller(0); ok {
		dirs = append(dirs, filepath.Join(filepath.Dir(file), "..", "..", ".cache", "node", "node_modules"))
	}
	hasPg := func(d string) bool { return exists(filepath.Join(d, "pg", "package.json")) }
	return findOrSkip(t, "node-postgres not installed (npm install --prefix .cache/node pg, or set MAGMALAKE_NODE_MODULES)", hasPg, dirs...)
}

// python returns a Python that can import module (Debian's system Python,
// where apt's python3-psycopg2 and python3-sqlalchemy live) or skips.
func python(t *testing.T, module, pkg string) string {
	t.Helper()
	imports := func(p string) bool { return exec.Command(p, "-c", "import "+module).Run() == nil }
	return findOrSkip(t, fmt.Sprintf("python3 with %s not installed (apt-get install %s)", module, pkg), imports,
		os.Getenv("MAGMALAKE_PYTHON"), "/usr/bin/python3", "python3")
}
