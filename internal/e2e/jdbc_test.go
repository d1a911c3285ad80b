package e2e

import (
	"path/filepath"
	"testing"
)

func TestPgjdbc(t *testing.T) {
	jar := jdbcJar(t)
	javac := needProgram(t, "", "javac", "default-jdk-headless")
	java := needProgram(t, "", "java", "default-jdk-headless")
	classes := t.TempDir()
	runProgram(t, nil, javac, "-cp", jar, "-d", classes, testdata(t, "E2E.java"))
	cp := jar + string(filepath.ListSeparator) + classes
	forEachAuth(t, func(t *testing.T, s *server, password string) {
		sc := newScenario("jdbc_t")
		out := runProgram(t, sc.env(s, password), java, "-cp", cp, "E2E")
		checkTranscript(t, out, sc.transcript(true))
	})
}
