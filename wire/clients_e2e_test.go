package wire

import (
	"github.com/magmalake/magmalake/internal/testenv"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func hostPort(addr string) (string, string) {
	i := strings.LastIndexByte(addr, ':')
	return addr[:i], addr[i+1:]
}

func runClient(t *testing.T, env []string, name string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func TestPsql(t *testing.T) {
	psqlBin := testenv.Program(t, "", "psql", "postgresql-client-15")
	users := map[string]string{"postgres": ScramVerifier("secret")}
	_, addr := testServer(t, func(c *Config) { c.Auth, c.Users = AuthSCRAM, users })
	host, port := hostPort(addr)
	env := []string{"PGHOST=" + host, "PGPORT=" + port, "PGUSER=postgres", "PGDATABASE=db", "PGPASSWORD=secret", "PGSSLMODE=prefer", "PGCONNECT_TIMEOUT=5"}
	psql := func(args ...string) (string, error) {
		return runClient(t, env, psqlBin, append([]string{"-X", "-A", "-t", "-v", "ON_ERROR_STOP=1"}, args...)...)
	}
	out, err := psql("-c", "SELECT 42")
	if err != nil || strings.TrimSpace(out) != "42" {
		t.Fatalf("psql -c: %q %v", out, err)
	}
	out, err = psql("-c", "SELECT * FROM t; DELETE FROM t WHERE id = 3")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if err != nil || len(lines) != fakeRows+1 || lines[0] != "1|name1|1" || lines[fakeRows] != "DELETE 1" {
		t.Fatalf("several statements: %q %v", out, err)
	}
	out, err = psql("-c", "SELECT * FROM missing")
	if err == nil || !strings.Contains(out, `relation "missing" does not exist`) || !strings.Contains(out, "LINE 1") {
		t.Fatalf("error: %q %v", out, err)
	}
	// psql stops at the first error of a script and keeps the connection for \copy.
	dir := t.TempDir()
	data := filepath.Join(dir, "in.tsv")
	os.WriteFile(data, []byte("1\ta\tb\n2\tc\td\n"), 0o644)
	outFile := filepath.Join(dir, "out.tsv")
	out, err = psql("-c", `\copy t from '`+data+`'`, "-c", `\copy t to '`+outFile+`'`, "-c", "SELECT 7")
	if err != nil || !strings.Contains(out, "COPY 2") || !strings.Contains(out, "COPY 3") || !strings.HasSuffix(strings.TrimSpace(out), "7") {
		t.Fatalf("\\copy: %q %v", out, err)
	}
	got, _ := os.ReadFile(outFile)
	if !strings.HasPrefix(string(got), "1\ta\\tb,\"c\"\\n1\t\\N\n") {
		t.Fatalf("\\copy to file: %q", got)
	}
	env[len(env)-3] = "PGPASSWORD=wrong"
	if out, err := psql("-c", "SELECT 1"); err == nil || !strings.Contains(out, "password authentication failed") {
		t.Fatalf("bad password: %q %v", out, err)
	}
}

func TestPsqlTLS(t *testing.T) {
	psql := testenv.Program(t, "", "psql", "postgresql-client-15")
	tlsCfg, err := SelfSignedTLS()
	if err != nil {
		t.Fatal(err)
	}
	_, addr := testServer(t, func(c *Config) { c.TLS = tlsCfg })
	host, port := hostPort(addr)
	out, err := runClient(t, nil, psql, "-X", "-A", "-t", "-c", "SELECT 5",
		"host="+host+" port="+port+" user=postgres dbname=db sslmode=require connect_timeout=5")
	if err != nil || strings.TrimSpace(out) != "5" {
		t.Fatalf("sslmode=require: %q %v", out, err)
	}
}

func TestPgbench(t *testing.T) {
	pgbench := testenv.Program(t, "MAGMALAKE_PGBENCH", "pgbench", "postgresql-15 (pgbench)")
	_, addr := testServer(t, nil)
	host, port := hostPort(addr)
	script := filepath.Join(t.TempDir(), "s.sql")
	os.WriteFile(script, []byte("SELECT 1;\nDELETE FROM t WHERE id = -1;\n"), 0o644)
	for _, mode := range []string{"simple", "extended", "prepared"} {
		out, err := runClient(t, nil, pgbench, "-n", "-f", script, "-M", mode, "-t", "20", "-c", "2",
			"-h", host, "-p", port, "-U", "postgres", "db")
		if err != nil || !strings.Contains(out, "number of transactions actually processed: 40/40") {
			t.Fatalf("pgbench -M %s: %v\n%s", mode, err, out)
		}
	}
}
