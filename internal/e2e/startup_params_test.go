package e2e

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/wire"
)

// startupCase is one connection's startup parameters and what it then runs.
type startupCase struct {
	params  map[string]string
	queries []string
}

// options is a case whose parameters are just options (PGOPTIONS).
func options(o string, queries ...string) startupCase {
	return startupCase{params: map[string]string{"options": o}, queries: queries}
}

// startupCases are the startup parameters clients send (issue 48: options
// were dropped, and invalid parameters ignored): PostgreSQL's switches and
// escapes, refusals, and what RESET returns to.
var startupCases = []startupCase{
	options("-c statement_timeout=30s", "SHOW statement_timeout"),
	options("--statement-timeout=31s", "SHOW statement_timeout"),
	options("-cstatement_timeout=32s  -c lock_timeout=5s", "SHOW statement_timeout", "SHOW lock_timeout"),
	options(`-c search_path=a,\ b`, "SHOW search_path"),
	options(`-c application_name=a\\b\  -c x.y=1`, "SHOW application_name", "SHOW x.y"),
	options(`-c application_name=trailing\`, "SHOW application_name"),
	options("-c application_name=a=b", "SHOW application_name"),
	options("-c APPLICATION_NAME=upper", "SHOW application_name"),
	options("-c magmalake.progress=on", "SHOW magmalake.progress"),
	options("-c statement_timeout=5 -c statement_timeout=6", "SHOW statement_timeout"),
	options("-c DateStyle=German -c datestyle=ISO", "SHOW DateStyle"),
	options("-e", "SHOW DateStyle"),
	options("-eS 100", "SHOW DateStyle", "SHOW work_mem"),
	options("-S1000", "SHOW work_mem"),
	options("-c statement_timeout=30s", "SET statement_timeout = '5s'", "SHOW statement_timeout",
		"RESET statement_timeout", "SHOW statement_timeout", "SET statement_timeout = 7", "RESET ALL", "SHOW statement_timeout"),
	options("-c DateStyle=SQL,DMY", "SET DateStyle = ISO", "RESET DateStyle", "SHOW DateStyle"),
	options("-c x=1"),
	options("-c =1"),
	options("-c statement_timeout=abc"),
	options("-c jit=maybe"),
	options("-c geqo=of"),
	options("-c statement_timeout"),
	options("--statement_timeout"),
	options("-c"),
	options("statement_timeout=1"),
	options("-q"),
	options("-c statement_timeout=1 -- -c statement_timeout=2"),
	options("-q -c x=1"),
	options("-c server_version=1"),
	options("-c max_identifier_length=5"),
	options("-c work_mem=10"),
	options("-c log_statement=bogus"),
	options("-c DateStyle=Klingon"),
	options("-c default_transaction_isolation=bogus"),
	options("-c default_transaction_isolation=SERIALIZABLE", "SHOW default_transaction_isolation", "SHOW transaction_isolation"),
	options("-c transaction_isolation=bogus"),
	options("-c transaction_isolation=serializable"),
	options("-c default_transaction_isolation=serializable", "RESET ALL", "SHOW transaction_isolation", "BEGIN", "SHOW transaction_isolation", "COMMIT"),
	options("-c default_transaction_read_only=maybe"),
	options("-c extra_float_digits=abc"),
	options("-c extra_float_digits=5"),
	options("-c extra_float_digits=3", "SHOW extra_float_digits"),
	options("-c client_min_messages=bogus"),
	options("-c client_min_messages=WARNING", "SHOW client_min_messages", "DROP TABLE IF EXISTS nope",
		"SET client_min_messages = notice", "DROP TABLE IF EXISTS nope", "SET client_min_messages = error", "COMMIT"),
	options("-c bytea_output=bogus"),
	options("-c IntervalStyle=bogus"),
	{params: map[string]string{"statement_timeout": "7s"}, queries: []string{"SHOW statement_timeout", "RESET statement_timeout", "SHOW statement_timeout"}},
	{params: map[string]string{"DateStyle": "ISO", "extra_float_digits": "3", "search_path": "s1, public"},
		queries: []string{"SHOW DateStyle", "SHOW extra_float_digits", "SHOW search_path"}},
	{params: map[string]string{"DateStyle": "ISO", "options": "-c datestyle=German"}, queries: []string{"SHOW DateStyle"}},
	{params: map[string]string{"statement_timeout": "2s", "options": "-c statement_timeout=1s"}, queries: []string{"SHOW statement_timeout"}},
	{params: map[string]string{"no_such_parameter": "1"}},
	{params: map[string]string{"jit": "maybe"}},
	{params: map[string]string{"replication": "bogus"}},
	{params: map[string]string{"replication": "false"}, queries: []string{"SELECT 1"}},
}

// TestStartupParametersMatchPostgres connects to magmalake and PostgreSQL
// 15 with each case's startup parameters (pgx sends every parameter it does
// not know as one) and compares what follows: the ParameterStatus values,
// each query's answer, or the refusal's severity, SQLSTATE, message and hint.
func TestStartupParametersMatchPostgres(t *testing.T) {
	ml, pg := diffTargets(t)
	run := func(d diffTarget) string {
		var out strings.Builder
		for _, c := range startupCases {
			fmt.Fprintf(&out, "%s\n%s", caseTitle(c), startupOutcome(t, d, c))
		}
		return out.String()
	}
	want := run(pg)
	compareOutputs(t, run(ml), want)
}

func caseTitle(c startupCase) string {
	keys := slices.Sorted(maps.Keys(c.params))
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s=%q", k, c.params[k])
	}
	return "## " + strings.Join(parts, " ")
}

// startupOutcome connects to d with c's parameters and describes the result.
func startupOutcome(t *testing.T, d diffTarget, c startupCase) string {
	t.Helper()
	cfg, err := pgx.ParseConfig(fmt.Sprintf("postgres://%s@%s/e2e?sslmode=disable", d.User, d.Addr()))
	if err != nil {
		t.Fatal(err)
	}
	maps.Copy(cfg.RuntimeParams, c.params)
	var notices []string
	cfg.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) {
		notices = append(notices, fmt.Sprintf("  %s %s: %s\n", n.Severity, n.Code, n.Message))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return describeRefusal(t, d, err)
	}
	defer conn.Close(ctx)
	var out strings.Builder
	for _, name := range []string{"DateStyle", "application_name", "client_encoding", "TimeZone"} {
		fmt.Fprintf(&out, "status %s=%s\n", name, conn.PgConn().ParameterStatus(name))
	}
	for _, q := range c.queries {
		res, err := conn.PgConn().Exec(ctx, q).ReadAll()
		var pe *pgconn.PgError
		if errors.As(err, &pe) {
			fmt.Fprintf(&out, "%s: %s %s: %s (%s)\n", q, pe.Severity, pe.Code, pe.Message, pe.Hint)
			out.WriteString(strings.Join(notices, ""))
			notices = nil
			continue
		}
		if err != nil {
			t.Fatalf("%s: %s: %v", d.Name, q, err)
		}
		for _, r := range res {
			fmt.Fprintf(&out, "%s: %s", q, r.CommandTag)
			for _, row := range r.Rows {
				for _, v := range row {
					fmt.Fprintf(&out, " %s", v)
				}
			}
			out.WriteString("\n")
		}
		out.WriteString(strings.Join(notices, ""))
		notices = nil
	}
	return out.String()
}

// describeRefusal is a failed connection's error as the server sent it.
func describeRefusal(t *testing.T, d diffTarget, err error) string {
	t.Helper()
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		t.Fatalf("%s: connection failed without a server error: %v", d.Name, err)
	}
	s := fmt.Sprintf("refused %s %s: %s\n", pe.Severity, pe.Code, pe.Message)
	if pe.Detail != "" {
		s += "detail: " + pe.Detail + "\n"
	}
	if pe.Hint != "" {
		s += "hint: " + pe.Hint + "\n"
	}
	return s
}

// TestStartupRefusesUnsupportedSettings: values PostgreSQL takes but
// magmalake cannot honour refuse the connection with 0A000 rather than
// being dropped; but a TimeZone the driver sends by name (pgjdbc sends its
// Java VM's) leaves the session in UTC, as ParameterStatus says, so that
// BI tools outside UTC connect; asked for with -c, it is refused.
func TestStartupRefusesUnsupportedSettings(t *testing.T) {
	s := startServer(t, wire.AuthTrust)
	d := diffTarget{Name: "magmalake", Host: s.host(), Port: s.port(), User: testUser}
	for _, c := range []struct {
		params map[string]string
		want   string
	}{
		{map[string]string{"options": "-c TimeZone=Europe/Berlin"}, `refused FATAL ` + string(pgerr.FeatureNotSupported) + `: time zone "Europe/Berlin" is not supported; magmalake sessions run in UTC
hint: Set TimeZone to UTC. pgjdbc sends the Java VM's time zone: run it with -Duser.timezone=UTC.
`},
		{map[string]string{"options": "-c client_encoding=LATIN1"}, "refused FATAL " + string(pgerr.FeatureNotSupported) + ": client_encoding \"LATIN1\" is not supported; only UTF8\n"},
		{map[string]string{"replication": "true"}, "refused FATAL " + string(pgerr.FeatureNotSupported) + ": replication connections are not supported\n"},
		{map[string]string{"replication": "database"}, "refused FATAL " + string(pgerr.FeatureNotSupported) + ": replication connections are not supported\n"},
		{map[string]string{"options": "-B 100"}, "refused FATAL " + string(pgerr.FeatureNotSupported) + ": command-line switch -B is not supported in startup options\nhint: Set parameters with -c name=value.\n"},
		{map[string]string{"extra_float_digits": "0"}, "refused FATAL " + string(pgerr.FeatureNotSupported) + ": extra_float_digits 0 is not supported: floats are output exactly (shortest round trip), as 1 to 3 ask\n"},
		{map[string]string{"options": "-c bytea_output=escape"}, "refused FATAL " + string(pgerr.FeatureNotSupported) + ": bytea_output \"escape\" is not supported: bytea values are output in hex\n"},
		{map[string]string{"IntervalStyle": "sql_standard"}, "refused FATAL " + string(pgerr.FeatureNotSupported) + ": IntervalStyle \"sql_standard\" is not supported: intervals are output in the postgres style\n"},
	} {
		if got := startupOutcome(t, d, startupCase{params: c.params}); got != c.want {
			t.Errorf("%s:\n%s\nwant:\n%s", caseTitle(startupCase{params: c.params}), got, c.want)
		}
	}
	berlin := startupCase{params: map[string]string{"TimeZone": "Europe/Berlin"}, queries: []string{"SHOW TimeZone"}}
	if got := startupOutcome(t, d, berlin); !strings.Contains(got, "SHOW TimeZone: SHOW UTC") || strings.Contains(got, "refused") {
		t.Errorf("a driver's TimeZone Europe/Berlin: %s, want the session in UTC", got)
	}
	// The connection after a refused one is served as usual.
	if got := startupOutcome(t, d, options("-c TimeZone=UTC", "SHOW TimeZone")); !strings.Contains(got, "SHOW TimeZone: SHOW UTC") {
		t.Fatalf("after refusals: %s", got)
	}
}

// TestSetErrorsMatchPostgres: the checks startup parameters share with SET
// give PostgreSQL's message there too (a Boolean's named the parameter
// "boolean"; geqo and jit took any value; work_mem's range was not named).
func TestSetErrorsMatchPostgres(t *testing.T) {
	ml, pg := diffTargets(t)
	queries := []string{"SET jit = maybe", "SET geqo = 'of'", "SHOW geqo", "SET jit = 'TR'", "SHOW jit",
		"SET default_transaction_read_only = 'x'", "SET transaction_read_only = 2", "SET work_mem = 10",
		"SET work_mem = 'lots'", "SET DateStyle = 'ISO, Klingon'", `SET DateStyle = '"Klingon"'`,
		"SET standard_conforming_strings = 'sure'",
		"SET default_transaction_isolation = 'serializable'", "SHOW transaction_isolation",
		"SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL REPEATABLE READ", "SHOW transaction_isolation",
		"RESET ALL", "SHOW transaction_isolation", "SET default_transaction_isolation = 'bogus'",
		"SET extra_float_digits = 7", "SET client_min_messages = 'warning'", "DROP TABLE IF EXISTS nope",
		"SET client_min_messages = 'notice'", "DROP TABLE IF EXISTS nope", "SET client_min_messages = 'error'", "COMMIT",
		"SET client_min_messages = 'loud'"}
	run := func(d diffTarget) string {
		return startupOutcome(t, d, startupCase{queries: queries, params: map[string]string{}})
	}
	want := run(pg)
	compareOutputs(t, run(ml), want)
}
