package session

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/magmalake/magmalake/internal/pgtest"
	"github.com/magmalake/magmalake/pgerr"
)

// TestFloatRangeLikePostgres: numeric literals at and beyond the range of
// real and double precision, cast and inserted, answer as PostgreSQL 15
// does: the value, or 22003 (too large, or too small to tell from zero)
// with PostgreSQL's message; the rows PostgreSQL stores are the rows
// magmalake stores.
func TestFloatRangeLikePostgres(t *testing.T) {
	conn := connectTestPostgres(t)
	s := testSession(t)
	create := "CREATE TABLE fr (f8 double precision, f4 real)"
	mustPG(t, conn, create)
	mustQuery(t, s, create)
	var lits []string
	for _, m := range []string{"1", "-1.7976931348623157", "3.4028235", "9.99", "0.000"} {
		for _, e := range []int{-330, -324, -310, -46, -45, -39, -38, 0, 37, 38, 39, 307, 308, 309, 400} {
			lits = append(lits, fmt.Sprintf("%se%d", m, e))
		}
	}
	for _, lit := range lits {
		for _, q := range []string{
			"SELECT " + lit + "::float8", "SELECT " + lit + "::float4",
			"INSERT INTO fr VALUES (" + lit + ", NULL)", "INSERT INTO fr VALUES (NULL, " + lit + ")",
		} {
			_, pe := pgtest.Exec(t, conn, q)
			got, err := s.query(context.Background(), q)
			var se *pgerr.Error
			switch {
			case pe != nil:
				if !errors.As(err, &se) || string(se.Code) != pe.Code || se.Message != pe.Message {
					t.Errorf("%s: PostgreSQL fails with %s %q, magmalake: %v", q, pe.Code, pe.Message, err)
				}
			case err != nil:
				t.Errorf("%s: %v (PostgreSQL accepts it)", q, err)
			case strings.HasPrefix(q, "SELECT"):
				if want := mustPG(t, conn, q); fmt.Sprint(got.rows) != fmt.Sprint(want.rows) {
					t.Errorf("%s: magmalake %v, PostgreSQL %v", q, got.rows, want.rows)
				}
			}
		}
	}
	compareStatement(t, s, conn, "SELECT f8, f4 FROM fr ORDER BY f8, f4")
}
