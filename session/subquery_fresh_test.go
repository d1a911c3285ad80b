package session

import (
	"testing"

	"github.com/magmalake/magmalake/stmt"
)

// TestSubquerySeesNewCommits: a query without FROM whose value comes from
// a subquery over a table (or a metadata table) reads the table as it is
// at each execution, repeated as simple queries and as one prepared
// statement executed again, not as it was when the text was first planned.
func TestSubquerySeesNewCommits(t *testing.T) {
	queries := []string{
		`SELECT (SELECT count(*) FROM c)`,
		`SELECT (SELECT count(*) FROM "c$data_files")`,
		`SELECT 1 + (SELECT max(id) FROM c), EXISTS (SELECT 1 FROM c WHERE id = 3)`,
		`SELECT 1 OFFSET (SELECT count(*) - 2 FROM c)`,
	}
	s := testSession(t)
	mustQuery(t, s, "CREATE TABLE c (id int)")
	mustQuery(t, s, "INSERT INTO c VALUES (1), (2)")
	var prepared []*stmt.Prepared
	for _, q := range queries {
		mustQuery(t, s, q)
		p, err := s.Prepare(t.Context(), q, nil)
		if err != nil {
			t.Fatal(err)
		}
		prepared = append(prepared, p)
	}
	mustQuery(t, s, "INSERT INTO c VALUES (3)")
	want := []string{"3\n", "2\n", "4|t\n", ""}
	for i, q := range queries {
		if got := mustQuery(t, s, q).text(); got != want[i] {
			t.Errorf("%s after an INSERT: %q, want %q", q, got, want[i])
		}
		res, err := s.Execute(t.Context(), prepared[i], nil)
		if err != nil {
			t.Fatal(err)
		}
		r, err := resultOf(t.Context(), res)
		if err != nil {
			t.Fatal(err)
		}
		if got := r.text(); got != want[i] {
			t.Errorf("prepared %s after an INSERT: %q, want %q", q, got, want[i])
		}
	}
}
