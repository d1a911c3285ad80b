package e2e

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/magmalake/magmalake/wire"
)

// jdbcJar finds pgjdbc (Debian libpostgresql-jdbc-java) or skips.
func jdbcJar(t *testing.T) string {
	t.Helper()
	for _, p := range []string{os.Getenv("MAGMALAKE_JDBC_JAR"), "/usr/share/java/postgresql.jar"} {
		if p != "" {
			if _, err := os.Stat(p); err == nil {
				return p
			}
		}
	}
	t.Skip("pgjdbc not installed (apt-get install libpostgresql-jdbc-java)")
	return ""
}

func TestPgjdbc(t *testing.T) {
	jar := jdbcJar(t)
	javac := needProgram(t, "", "javac", "default-jdk-headless")
	java := needProgram(t, "", "java", "default-jdk-headless")
	classes := t.TempDir()
	runProgram(t, nil, javac, "-cp", jar, "-d", classes, testdata(t, "E2E.java"))
	cp := jar + string(filepath.ListSeparator) + classes
	for _, auth := range []struct {
		name     string
		method   wire.AuthMethod
		password string
	}{{"trust", wire.AuthTrust, ""}, {"scram", wire.AuthSCRAM, testPassword}} {
		t.Run(auth.name, func(t *testing.T) {
			s := startServer(t, auth.method)
			sc := newScenario("jdbc_t")
			out := runProgram(t, sc.env(s, auth.password), java, "-cp", cp, "E2E")
			checkTranscript(t, out, sc.transcript(true))
		})
	}
}
