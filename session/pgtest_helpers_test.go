package session

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/magmalake/magmalake/internal/pgtest"
	"github.com/magmalake/magmalake/pgerr"
)

// connectTestPostgres starts a throwaway PostgreSQL 15 cluster (C locale:
// byte-order comparison and ASCII-only case folding, as magmalake does) and
// connects to it.
func connectTestPostgres(t *testing.T) *pgx.Conn {
	t.Helper()
	return pgtest.Start(t).Connect(t, "postgres")
}

// pgOutcome is one statement's result from PostgreSQL in text format.
type pgOutcome struct {
	rows [][]string // NULL as "NULL"
	tag  string
	code string // SQLSTATE when the statement failed
}

// pgExec runs one statement over the simple protocol, so values come back in
// PostgreSQL's own text format; a SQL error is returned in code, anything
// else fails the test.
func pgExec(t *testing.T, conn *pgx.Conn, q string) pgOutcome {
	t.Helper()
	res, pe := pgtest.Exec(t, conn, q)
	if pe != nil {
		return pgOutcome{code: pe.Code}
	}
	if len(res) != 1 {
		t.Fatalf("PostgreSQL: %s: %d results", q, len(res))
	}
	out := pgOutcome{tag: res[0].CommandTag.String()}
	for _, r := range pgtest.Text(res[0]) {
		row := make([]string, len(r))
		for i, v := range r {
			row[i] = "NULL"
			if v != nil {
				row[i] = *v
			}
		}
		out.rows = append(out.rows, row)
	}
	return out
}

// mustPG runs q on PostgreSQL and fails the test on a SQL error.
func mustPG(t *testing.T, conn *pgx.Conn, q string) pgOutcome {
	t.Helper()
	out := pgExec(t, conn, q)
	if out.code != "" {
		t.Fatalf("PostgreSQL: %s: SQLSTATE %s", q, out.code)
	}
	return out
}

// compareStatement runs q on magmalake's session and on PostgreSQL and
// requires the same SQLSTATE, or the same tag and (when PostgreSQL returns
// rows) the same rows: scripts of session statements replayed on both.
func compareStatement(t *testing.T, s *Session, conn *pgx.Conn, q string) {
	t.Helper()
	want := pgExec(t, conn, q)
	got, err := s.query(context.Background(), q)
	var se *pgerr.Error
	switch {
	case want.code != "":
		if !errors.As(err, &se) || string(se.Code) != want.code {
			t.Fatalf("%s: PostgreSQL fails with %s, magmalake: %v", q, want.code, err)
		}
	case err != nil:
		t.Fatalf("%s: %v (PostgreSQL: %v)", q, err, want.rows)
	case got.tag != want.tag:
		t.Fatalf("%s: tag %q, PostgreSQL %q", q, got.tag, want.tag)
	case fmt.Sprint(got.rows) != fmt.Sprint(want.rows) && len(want.rows) > 0:
		t.Fatalf("%s:\n magmalake  %v\n PostgreSQL %v", q, got.rows, want.rows)
	}
}

// runScriptLikePostgres runs script on s and on PostgreSQL: a statement
// with %s (CREATE TABLE) runs as it is on PostgreSQL and with with on
// magmalake; every other one must give both the same outcome.
func runScriptLikePostgres(t *testing.T, s *Session, conn *pgx.Conn, script []string, with string) {
	t.Helper()
	for _, q := range script {
		if strings.Contains(q, "%s") {
			mustPG(t, conn, fmt.Sprintf(q, ""))
			mustQuery(t, s, fmt.Sprintf(q, with))
			continue
		}
		compareStatement(t, s, conn, q)
	}
}
