package main

import (
	"strings"
	"testing"

	"github.com/magmalake/magmalake"
	"github.com/magmalake/magmalake/sql"
)

// The embedded demo script parses into: schema, partitioned table, two
// INSERTs (two appends) whose rows fit the table's six columns.
func TestDemoSQLParses(t *testing.T) {
	stmts, err := sql.Parse(magmalake.DemoSQL)
	if err != nil {
		t.Fatalf("parse demo.sql: %v", err)
	}
	if len(stmts) != 4 {
		t.Fatalf("demo has %d statements, want 4", len(stmts))
	}
	if cs, ok := stmts[0].(*sql.CreateSchema); !ok || cs.Name != "xmen" {
		t.Errorf("statement 1 = %#v, want CREATE SCHEMA xmen", stmts[0])
	}
	ct, ok := stmts[1].(*sql.CreateTable)
	if !ok {
		t.Fatalf("statement 2 = %T, want CREATE TABLE", stmts[1])
	}
	var cols []string
	for _, c := range ct.Columns {
		cols = append(cols, c.Name+" "+c.Type.String())
	}
	wantCols := "id bigint, name text, alias text, powers text, birth_year integer, active boolean"
	if got := strings.Join(cols, ", "); got != wantCols {
		t.Errorf("columns %q, want %q", got, wantCols)
	}
	if len(ct.Partition) != 1 || ct.Partition[0].Column != "active" || ct.Partition[0].Transform != "identity" {
		t.Errorf("partitioning %+v, want identity(active)", ct.Partition)
	}
	rows := 0
	for i, st := range stmts[2:] {
		ins, ok := st.(*sql.Insert)
		if !ok {
			t.Fatalf("statement %d = %T, want INSERT", i+3, st)
		}
		for _, r := range ins.Rows {
			if len(r) != 6 {
				t.Errorf("insert %d has a row of %d values", i+1, len(r))
			}
		}
		rows += len(ins.Rows)
	}
	if rows < 15 {
		t.Errorf("demo has %d characters, want about 15", rows)
	}
}
