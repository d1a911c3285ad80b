package main

import (
	"strings"
	"testing"

	"github.com/magmalake/magmalake"
	"github.com/magmalake/magmalake/sql"
)

// The embedded demo script is four statements: schema, table, two appends.
func TestDemoSQLStatements(t *testing.T) {
	stmts, err := sql.Split(magmalake.DemoSQL)
	if err != nil {
		t.Fatal(err)
	}
	if len(stmts) != 4 {
		t.Fatalf("demo has %d statements, want 4: %q", len(stmts), stmts)
	}
	for i, prefix := range []string{"CREATE SCHEMA", "CREATE TABLE", "INSERT INTO", "INSERT INTO"} {
		if s := stripComments(stmts[i]); !strings.HasPrefix(s, prefix) {
			t.Errorf("statement %d starts %q, want %s", i, s[:min(len(s), 30)], prefix)
		}
	}
}

func stripComments(s string) string {
	var keep []string
	for _, l := range strings.Split(s, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(l), "--") {
			keep = append(keep, l)
		}
	}
	return strings.TrimSpace(strings.Join(keep, "\n"))
}
