package session

import (
	"context"
	"fmt"
	"github.com/magmalake/magmalake/stmt"
	"testing"
)

// TestInsertBindsAgainAfterDDL: a prepared INSERT and a shaped simple one
// executed again after their table was dropped and created with another
// column type write to the new table's layout, not with the plan bound
// for the old one (whose int values no longer fit the bigint column's
// batch).
func TestInsertBindsAgainAfterDDL(t *testing.T) {
	ctx := context.Background()
	s := testSession(t)
	mustQuery(t, s, "CREATE TABLE rb (a int, b text)")
	p, err := s.Prepare(ctx, "INSERT INTO rb VALUES ($1, $2)", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Execute(ctx, p, []stmt.Param{"1", "x"}); err != nil {
		t.Fatal(err)
	}
	mustQuery(t, s, "INSERT INTO rb VALUES (2, 'y')")
	mustQuery(t, s, "DROP TABLE rb")
	mustQuery(t, s, "CREATE TABLE rb (a bigint, b text)")
	if _, err := s.Execute(ctx, p, []stmt.Param{"3", "z"}); err != nil {
		t.Fatalf("prepared INSERT after the table changed: %v", err)
	}
	mustQuery(t, s, "INSERT INTO rb VALUES (4, 'w')")
	got := mustQuery(t, s, "SELECT a, b FROM rb ORDER BY a").rows
	if want := "[[3 z] [4 w]]"; fmt.Sprint(got) != want {
		t.Fatalf("rows %v, want %s", got, want)
	}
}
