package session

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/magmalake/magmalake/internal/pgtest"
	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql"
)

// TestLiteralErrorPositionLikePostgres: a string constant that does not
// read as the type its context gives it (a cast, a comparison with a
// column, an INSERT or UPDATE value) fails as PostgreSQL 15 fails, with
// the same SQLSTATE, message and position (PostgreSQL points at the
// literal); a value that fails at run time, from a column, has no
// position there and none here. Positions are set as the wire layer sets
// them (sql.Located on the statement text).
func TestLiteralErrorPositionLikePostgres(t *testing.T) {
	conn := connectTestPostgres(t)
	s := testSession(t)
	cols := []struct{ name, typ string }{
		{"i", "int"}, {"b", "bigint"}, {"n", "numeric(12,2)"}, {"d", "date"},
		{"ts", "timestamp"}, {"tz", "timestamptz"}, {"bo", "boolean"}, {"u", "uuid"}, {"f", "double precision"},
	}
	create := "CREATE TABLE lp (t text"
	for _, c := range cols {
		create += ", " + c.name + " " + c.typ
	}
	create += ")"
	for _, q := range []string{create, "INSERT INTO lp (t) VALUES ('abc')"} {
		mustPG(t, conn, q)
		mustQuery(t, s, q)
	}
	lits := []string{"'abc'", "''", "' 12 '", "'1.5x'", "'2024-13-01'", "'maybe'", "'99999999999'", "'2024-02-30 10:00'"}
	var qs []string
	for _, c := range cols {
		for _, l := range lits {
			qs = append(qs,
				fmt.Sprintf("SELECT %s::%s", l, c.typ),
				fmt.Sprintf("SELECT 1, CAST(%s AS %s)", l, c.typ),
				fmt.Sprintf("SELECT count(*) FROM lp WHERE %s = %s", c.name, l),
				fmt.Sprintf("INSERT INTO lp (%s) VALUES (%s)", c.name, l),
				fmt.Sprintf("INSERT INTO lp (t, %s) VALUES ('ok', NULL), ('x', %s)", c.name, l),
				fmt.Sprintf("UPDATE lp SET %s = %s WHERE t = 'none'", c.name, l),
			)
		}
		qs = append(qs, fmt.Sprintf("SELECT t::%s FROM lp WHERE t = 'abc'", c.typ))
	}
	for _, q := range qs {
		_, pe := pgtest.Exec(t, conn, q)
		_, err := s.query(context.Background(), q)
		err = sql.Located(q, err)
		var se *pgerr.Error
		switch {
		case pe == nil && err != nil:
			t.Errorf("%s: %v (PostgreSQL accepts it)", q, err)
		case pe != nil && (!errors.As(err, &se) || string(se.Code) != pe.Code || se.Message != pe.Message || se.Position != int(pe.Position)):
			t.Errorf("%s:\n PostgreSQL %s %q at %d\n magmalake  %s", q, pe.Code, pe.Message, pe.Position, describeErr(err))
		}
	}
}
