package testenv

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// The client tools the tests drive are found here, one way for every
// package: the variable README's Development section names for a tool
// wins, then Debian's location, then PATH. A tool that is not found skips
// the test (fails it in CI) through Missing.

// DefaultJDBCJar is where Debian's libpostgresql-jdbc-java installs pgjdbc;
// MAGMALAKE_JDBC_JAR overrides it.
const DefaultJDBCJar = "/usr/share/java/postgresql.jar"

// DefaultPython is Debian's system Python, where apt's python3-psycopg2
// and python3-sqlalchemy live; MAGMALAKE_PYTHON overrides it, and a
// python3 on PATH is the last resort.
const DefaultPython = "/usr/bin/python3"

// find returns the first non-empty candidate that usable accepts; when
// there is none the tool is not installed and the test skips with msg.
func find(t testing.TB, msg string, usable func(string) bool, candidates ...string) string {
	t.Helper()
	for _, c := range candidates {
		if c != "" && usable(c) {
			return c
		}
	}
	Missing(t, "%s", msg)
	return ""
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// Program returns a client program: the one envVar names (when envVar is
// not empty and the variable is set), used as given, else name when it is
// on PATH; otherwise the test skips, naming the Debian package pkg.
func Program(t testing.TB, envVar, name, pkg string) string {
	t.Helper()
	if envVar != "" {
		if p := os.Getenv(envVar); p != "" {
			return p
		}
	}
	onPath := func(p string) bool { _, err := exec.LookPath(p); return err == nil }
	return find(t, fmt.Sprintf("%s not installed (apt-get install %s)", name, pkg), onPath, name)
}

// JDBCJar finds pgjdbc: MAGMALAKE_JDBC_JAR, else DefaultJDBCJar.
func JDBCJar(t testing.TB) string {
	t.Helper()
	return find(t, "pgjdbc not installed (apt-get install libpostgresql-jdbc-java, or set MAGMALAKE_JDBC_JAR)", exists,
		os.Getenv("MAGMALAKE_JDBC_JAR"), DefaultJDBCJar)
}

// NodeModules finds node-postgres: MAGMALAKE_NODE_MODULES, or
// .cache/node/node_modules under the repository root (npm install --prefix
// .cache/node pg).
func NodeModules(t testing.TB) string {
	t.Helper()
	dirs := []string{os.Getenv("MAGMALAKE_NODE_MODULES")}
	if _, file, _, ok := runtime.Caller(0); ok {
		dirs = append(dirs, filepath.Join(filepath.Dir(file), "..", "..", ".cache", "node", "node_modules"))
	}
	hasPg := func(d string) bool { return exists(filepath.Join(d, "pg", "package.json")) }
	return find(t, "node-postgres not installed (npm install --prefix .cache/node pg, or set MAGMALAKE_NODE_MODULES)", hasPg, dirs...)
}

// Python returns a Python that can import modules (comma-separated, as
// after Python's import): MAGMALAKE_PYTHON, else DefaultPython, else
// python3 on PATH. pkg names the Debian packages that provide them.
func Python(t testing.TB, modules, pkg string) string {
	t.Helper()
	imports := func(p string) bool { return exec.Command(p, "-c", "import "+modules).Run() == nil }
	return find(t, fmt.Sprintf("python3 with %s not installed (apt-get install %s, or set MAGMALAKE_PYTHON)", modules, pkg), imports,
		os.Getenv("MAGMALAKE_PYTHON"), DefaultPython, "python3")
}
