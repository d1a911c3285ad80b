package e2e

import (
	"path/filepath"
	"testing"

	"github.com/magmalake/magmalake/internal/testenv"
)

// TestDiffPgjdbc runs testdata/DiffJdbc.java (typed setters and setNull in
// batches, BigDecimal scales, java.time, parameters in WHERE and the select
// list, DatabaseMetaData, setAutoCommit(false) with DDL, setFetchSize
// cursors, getGeneratedKeys) on magmalake and on PostgreSQL 15.
func TestDiffPgjdbc(t *testing.T) {
	jar := testenv.JDBCJar(t)
	javac := testenv.Program(t, "", "javac", "default-jdk-headless")
	java := testenv.Program(t, "", "java", "default-jdk-headless")
	classes := t.TempDir()
	runProgram(t, nil, javac, "-cp", jar, "-d", classes, testdata(t, "DiffJdbc.java"))
	cp := jar + string(filepath.ListSeparator) + classes
	differential(t, func(t *testing.T, d diffTarget) string {
		env := append(d.env("jdbc_diff"), "E2E_URL=jdbc:postgresql://"+d.Addr()+"/e2e?sslmode=disable")
		return runProgram(t, env, java, "-Duser.timezone=UTC", "-cp", cp, "DiffJdbc")
	})
}
