package session

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/stmt"
)

// DateStyle's field order governs date/time input wherever text becomes a
// date or time: literals, comparisons with untyped literals, text
// parameters, INSERT and COPY. Each style is set on magmalake and on
// PostgreSQL 15 and the same statements must give the same text or SQLSTATE.
// magmalake prints ISO whatever the style, so for the other output styles
// both sides switch to ISO output after SHOW, which keeps the order (in
// PostgreSQL too): the comparison then covers what the style's order reads.

var dateStyleSettings = []string{"ISO, MDY", "ISO, DMY", "ISO, YMD", "German", "SQL, DMY", "Postgres, YMD"}

// dateStyleLiterals read differently, or fail, under each order; run once
// per style in one session they also check that no cached plan keeps the
// previous style's reading.
var dateStyleLiterals = []string{
	"SELECT '01/02/2024'::date",
	"SELECT DATE '03/04/05'",
	"SELECT '13/01/2024'::date",
	"SELECT '2024/01/13'::date",
	"SELECT '1.2.2024'::date, 'Jan 02 2024'::date",
	"SELECT TIMESTAMP '01/02/2024 10:11:12'",
	"SELECT '01/02/24 10:11'::timestamptz",
	"SELECT DATE '2024-01-02' = '02/01/2024'",
	"SELECT ('01/02/' || '2024')::date",
}

// dateStyleParams run with one text parameter each, as a client's Bind sends it.
var dateStyleParams = [][2]string{
	{"SELECT $1::date", "01/02/2024"},
	{"SELECT $1::timestamp", "03/04/05 06:07"},
	{"SELECT DATE '2024-02-01' = $1", "01/02/2024"},
	{"SELECT $1::date", "13/01/2024"},
}

func TestDateStyleInputLikePostgres(t *testing.T) {
	conn := connectTestPostgres(t)
	s := testSession(t)
	both(t, s, conn, "CREATE TABLE ds (d date, ts timestamp)")
	for _, style := range dateStyleSettings {
		t.Run(style, func(t *testing.T) {
			setDateStyle(t, s, conn, style)
			for _, q := range dateStyleLiterals {
				sameOutcome(t, q, ours(s, q), pgExec(t, conn, q))
			}
			for _, c := range dateStyleParams {
				sameOutcome(t, c[0]+" ["+c[1]+"]", ours(s, c[0], c[1]), pgParams(t, conn, c[0], c[1]))
			}
			dateStyleStore(t, s, conn)
		})
	}
}

// setDateStyle sets style on both sides, compares SHOW, and turns output
// to ISO where the style prints otherwise.
func setDateStyle(t *testing.T, s *Session, conn *pgx.Conn, style string) {
	t.Helper()
	both(t, s, conn, "SET DateStyle = '"+style+"'")
	sameOutcome(t, "SHOW DateStyle", ours(s, "SHOW DateStyle"), pgExec(t, conn, "SHOW DateStyle"))
	if !strings.HasPrefix(style, "ISO") {
		both(t, s, conn, "SET DateStyle = 'ISO'")
		sameOutcome(t, "SHOW DateStyle after ISO", ours(s, "SHOW DateStyle"), pgExec(t, conn, "SHOW DateStyle"))
	}
}

// dateStyleStore writes dates by INSERT literals, INSERT parameters and COPY
// (text and csv), then reads them back and filters with an untyped literal
// and a parameter (the scan's pruning and row tests both read them).
func dateStyleStore(t *testing.T, s *Session, conn *pgx.Conn) {
	t.Helper()
	both(t, s, conn, "TRUNCATE ds")
	// Four-digit years fail under YMD; two-digit ones read three ways.
	for _, q := range []string{
		"INSERT INTO ds VALUES ('01/02/2024', '03/04/05 06:07'), (DATE '05/06/2007', NULL)",
		"INSERT INTO ds VALUES ('03/04/05', TIMESTAMP '06/07/08 09:10')",
	} {
		sameOutcome(t, q, ours(s, q), pgExec(t, conn, q))
	}
	const ins = "INSERT INTO ds VALUES ($1, $2)"
	for _, v := range [][2]string{{"07/08/2009", "10/11/12 13:14"}, {"11/10/09", "08/07/06 05:04"}} {
		sameOutcome(t, ins, ours(s, ins, v[0], v[1]), pgParams(t, conn, ins, v[0], v[1]))
	}
	sameCopy(t, s, conn, "COPY ds FROM STDIN", "02/03/2010\t04/05/11 12:00\n")
	sameCopy(t, s, conn, "COPY ds FROM STDIN (FORMAT csv)", "12/11/2010,\"10/09/08 07:06\"\n")
	sameCopy(t, s, conn, "COPY ds FROM STDIN", "31/12/2010\t\\N\n")
	sameCopy(t, s, conn, "COPY ds FROM STDIN", "01/02/03\t04/05/06 07:08\n")
	for _, q := range []string{
		"SELECT d, ts FROM ds ORDER BY d, ts",
		"SELECT count(*) FROM ds WHERE d = '02/01/2024'",
		"SELECT count(*) FROM ds WHERE d = '03/04/05' OR ts = '03/04/05 06:07'",
	} {
		sameOutcome(t, q, ours(s, q), pgExec(t, conn, q))
	}
	const sel = "SELECT count(*) FROM ds WHERE d = $1"
	for _, v := range []string{"08/07/2009", "11/10/09", "01/02/03"} {
		sameOutcome(t, sel+" ["+v+"]", ours(s, sel, v), pgParams(t, conn, sel, v))
	}
}

// both runs a statement that must succeed on both sides.
func both(t *testing.T, s *Session, conn *pgx.Conn, q string) {
	t.Helper()
	mustQuery(t, s, q)
	mustPG(t, conn, q)
}

// ours runs q with text parameters on magmalake as a pgOutcome.
func ours(s *Session, q string, params ...string) pgOutcome {
	args := make([]stmt.Param, len(params))
	for i, p := range params {
		args[i] = p
	}
	r, err := s.query(context.Background(), q, args...)
	var se *pgerr.Error
	if errors.As(err, &se) {
		return pgOutcome{code: string(se.Code)}
	}
	if err != nil {
		return pgOutcome{code: "not an SQL error: " + err.Error()}
	}
	return pgOutcome{rows: r.rows}
}

// pgParams runs q on PostgreSQL over the extended protocol with text
// parameters of unspecified type, as drivers send them.
func pgParams(t *testing.T, conn *pgx.Conn, q string, params ...string) pgOutcome {
	t.Helper()
	vals := make([][]byte, len(params))
	for i, p := range params {
		vals[i] = []byte(p)
	}
	res := conn.PgConn().ExecParams(context.Background(), q, vals, nil, nil, nil).Read()
	var pe *pgconn.PgError
	if errors.As(res.Err, &pe) {
		return pgOutcome{code: pe.Code}
	}
	if res.Err != nil {
		t.Fatalf("PostgreSQL: %s: %v", q, res.Err)
	}
	var out pgOutcome
	for _, r := range res.Rows {
		row := make([]string, len(r))
		for i, v := range r {
			row[i] = "NULL"
			if v != nil {
				row[i] = string(v)
			}
		}
		out.rows = append(out.rows, row)
	}
	return out
}

// sameCopy feeds data to COPY on both sides; both must load it or refuse it alike.
func sameCopy(t *testing.T, s *Session, conn *pgx.Conn, q, data string) {
	t.Helper()
	var want, got pgOutcome
	if _, err := conn.PgConn().CopyFrom(context.Background(), strings.NewReader(data), q); err != nil {
		var pe *pgconn.PgError
		if !errors.As(err, &pe) {
			t.Fatalf("PostgreSQL: %s: %v", q, err)
		}
		want.code = pe.Code
	}
	if _, err := copyIn(s, q, data); err != nil {
		got.code = "not an SQL error: " + err.Error()
		var se *pgerr.Error
		if errors.As(err, &se) {
			got.code = string(se.Code)
		}
	}
	sameOutcome(t, q+" "+data, got, want)
}

// sameOutcome compares rows and SQLSTATE (command tags differ in wording).
func sameOutcome(t *testing.T, what string, got, want pgOutcome) {
	t.Helper()
	if got.code != want.code || !slices.EqualFunc(got.rows, want.rows, slices.Equal[[]string]) {
		t.Errorf("%s:\n got  %v %s\n want %v %s", what, got.rows, got.code, want.rows, want.code)
	}
}

// The DateStyle values PostgreSQL refuses are refused alike.
func TestDateStyleSetErrorsLikePostgres(t *testing.T) {
	conn := connectTestPostgres(t)
	s := testSession(t)
	for _, v := range []string{"ISO, German", "DMY, YMD", "foo", "ISO DMY", "Euro", "US, SQL", "DEFAULT", "Postgres, DEFAULT"} {
		q := "SET DateStyle = '" + v + "'"
		sameOutcome(t, q, ours(s, q), pgExec(t, conn, q))
		sameOutcome(t, q+"; SHOW", ours(s, "SHOW DateStyle"), pgExec(t, conn, "SHOW DateStyle"))
	}
}
