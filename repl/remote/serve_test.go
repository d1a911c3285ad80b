package remote_test

import (
	"context"
	"errors"
	"net"
	"strconv"
	"strings"
	"testing"

	"github.com/magmalake/magmalake/internal/testserver"
	"github.com/magmalake/magmalake/repl"
	"github.com/magmalake/magmalake/repl/remote"
	"github.com/magmalake/magmalake/session"
	"github.com/magmalake/magmalake/stmt"
	"github.com/magmalake/magmalake/wire"
)

const (
	serveUser     = "tester"
	servePassword = "s3cret"
)

// serveLake is a fresh warehouse with its engine.
func serveLake(t *testing.T) *session.Engine {
	t.Helper()
	return testserver.Engine(t, t.TempDir())
}

// startServe serves eng on 127.0.0.1:0 the way `magmalake serve` does
// (wire over the session), with trust or SCRAM for serveUser, and returns the
// settings that reach it.
func startServe(t *testing.T, eng *session.Engine, auth wire.AuthMethod) remote.Settings {
	t.Helper()
	cfg := wire.Config{
		NewSession: wire.Sessions(eng.StartSession),
		Auth:       auth,
	}
	if auth != wire.AuthTrust {
		cfg.Users = map[string]string{serveUser: wire.ScramVerifier(servePassword)}
	}
	host, port, _ := net.SplitHostPort(testserver.Serve(t, cfg))
	return remote.Settings{"host": host, "port": port, "user": serveUser, "dbname": "magmalake", "sslmode": "disable"}
}

// serveScript is magmalake SQL and backslash commands: the embedded and the
// remote shell must print the same for it. %DIR% is a scratch directory.
const serveScript = `create schema s;
create table s.t (id bigint, name text, price decimal(8,2), d date, ts timestamptz, ok boolean);
insert into s.t values (1, 'one', 1.50, '2024-01-01', '2024-01-01 10:00:00+00', true),
  (2, null, null, null, null, null), (3, 'three', 300, '2024-06-30', '2024-06-30 12:00:00.25+00', false);
select * from s.t order by id;
select count(*) as n, sum(price) as total, avg(price) as mean, min(d) as first from s.t;
select id, name || '!' as shout, price * 2 as twice, array[id, id + 1] as pair from s.t order by id;
select nosuch
  from s.t;
select 1 +;
drop table if exists s.nosuch;
begin;
delete from s.t where id = 2;
select count(*) from s.t;
select 1/0;
rollback;
update s.t set name = 'uno' where id = 1 returning id, name;
\copy s.t to '%DIR%/t.csv' with (format csv, header)
create table s.t2 (id bigint, name text, price decimal(8,2), d date, ts timestamptz, ok boolean);
\copy s.t2 from '%DIR%/t.csv' with (format csv, header)
copy s.t2 from stdin;
4	four	4.00	2024-12-24	2024-12-24 18:00:00+00	t
\.
\copy (select id, name from s.t2 order by id) to stdout with (format csv)
copy s.t2 to stdout;
select * from s.t2 order by id;
\dt s.*
\dn
\d s.t
\l
\du
\x
select * from s.t where id = 3;
\x off
\pset format csv
select id, name, ts from s.t order by id;
\pset format aligned
\pset null '(null)'
select id, name from s.t order by id;
`

// TestServeMatchesEmbedded: the same script through the embedded shell and
// through the remote shell on a magmalake server (wire and the session in
// process, as magmalake serve runs them) prints the same, stdout and
// stderr.
func TestServeMatchesEmbedded(t *testing.T) {
	type output struct{ out, err string }
	run := func(sess repl.Session, notices func(*remote.Session, *repl.Shell)) output {
		dir := t.TempDir()
		var out, errOut strings.Builder
		sh := repl.New(sess, &out, &errOut)
		sh.StopOnError = false
		if rs, ok := sess.(*remote.Session); ok {
			notices(rs, sh)
		}
		if err := sh.RunScript(context.Background(), strings.NewReader(strings.ReplaceAll(serveScript, "%DIR%", dir))); err != nil {
			t.Fatalf("RunScript: %v", err)
		}
		return output{strings.ReplaceAll(out.String(), dir, "DIR"), errOut.String()}
	}
	embedded := run(serveLake(t).NewSession(stmt.SessionInfo{User: serveUser, Database: "magmalake"}), nil)
	rs := connect(t, startServe(t, serveLake(t), wire.AuthTrust))
	got := run(rs, func(rs *remote.Session, sh *repl.Shell) { rs.HandleNotices(sh.PrintNotice) })
	// \d names each lake's own table location.
	location := func(s string) string {
		i := strings.Index(s, "Location: ")
		if i < 0 {
			return s
		}
		j := strings.IndexByte(s[i:], '\n')
		return s[:i] + "Location: ..." + s[i+j:]
	}
	compare(t, "stdout", location(got.out), location(embedded.out))
	compare(t, "stderr", got.err, embedded.err)
	for _, want := range []string{"COPY 3", "List of relations", "4\tfour"} {
		if !strings.Contains(embedded.out, want) {
			t.Errorf("the embedded output lacks %q:\n%s", want, embedded.out)
		}
	}
	if !strings.Contains(embedded.err, "LINE 1: select nosuch") || !strings.Contains(embedded.err, "NOTICE:") {
		t.Errorf("the embedded errors lack a caret or a notice:\n%s", embedded.err)
	}
}

// A server that asks for a password gets none unasked: Connect fails
// saying so, asks Options.Password when given, and reports a wrong one in
// the server's words.
func TestPasswordWhenTheServerAsks(t *testing.T) {
	st := startServe(t, serveLake(t), wire.AuthSCRAM)
	ctx := context.Background()
	_, err := remote.Connect(ctx, remote.Options{Settings: st})
	if !errors.Is(err, remote.ErrPasswordNeeded) {
		t.Fatalf("without a password: %v, want ErrPasswordNeeded", err)
	}
	where := `connection to server at "127.0.0.1", port ` + st["port"] + ` failed: `
	if want := where + "the server asks for a password and none was given"; err.Error() != want {
		t.Errorf("error %q, want %q", err, want)
	}
	var asked []string
	ask := func(pw string) func(context.Context, string) (string, error) {
		return func(_ context.Context, user string) (string, error) { asked = append(asked, user); return pw, nil }
	}
	s, err := remote.Connect(ctx, remote.Options{Settings: st, Password: ask(servePassword)})
	if err != nil {
		t.Fatalf("with the asked password: %v", err)
	}
	defer s.Close(ctx)
	if len(asked) != 1 || asked[0] != serveUser {
		t.Errorf("asked for %q, want once for %s", asked, serveUser)
	}
	_, err = remote.Connect(ctx, remote.Options{Settings: st, Password: ask("wrong")})
	if want := where + `FATAL:  password authentication failed for user "tester"`; err == nil || err.Error() != want {
		t.Errorf("wrong password: %v, want %q", err, want)
	}
	withPassword := remote.Settings{"password": servePassword}
	for k, v := range st {
		withPassword[k] = v
	}
	s2, err := remote.Connect(ctx, remote.Options{Settings: withPassword})
	if err != nil {
		t.Fatalf("with password in the settings: %v", err)
	}
	s2.Close(ctx)
}

// \conninfo over TCP is psql's line with host and port.
func TestConnInfoOverTCP(t *testing.T) {
	st := startServe(t, serveLake(t), wire.AuthTrust)
	s := connect(t, st)
	want := `You are connected to database "magmalake" as user "tester" on host "127.0.0.1" at port "` + st["port"] + `".`
	if got := s.ConnInfo(); got != want {
		t.Errorf("ConnInfo() = %q, want %q", got, want)
	}
	if _, err := strconv.Atoi(st["port"]); err != nil {
		t.Fatal(err)
	}
}
