package e2e

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/magmalake/magmalake/internal/testserver"
	"github.com/magmalake/magmalake/pgerr"
	mexec "github.com/magmalake/magmalake/session"
	"github.com/magmalake/magmalake/wire"
)

const (
	testUser     = "alice"
	testPassword = "s3cret"
)

// server is the real engine over a fresh warehouse behind a wire server.
type server struct {
	eng  *mexec.Engine
	addr string
	dir  string // the data directory: catalog.db and warehouse/
}

func (s *server) host() string { h, _, _ := net.SplitHostPort(s.addr); return h }
func (s *server) port() string { _, p, _ := net.SplitHostPort(s.addr); return p }

// url reaches database e2e as testUser with password.
func (s *server) url(password string) string {
	return fmt.Sprintf("postgres://%s:%s@%s/e2e?sslmode=disable", testUser, password, s.addr)
}

// startServer serves a fresh warehouse in t.TempDir() on 127.0.0.1:0 with
// auth (trust or SCRAM for testUser).
func startServer(t testing.TB, auth wire.AuthMethod) *server {
	t.Helper()
	return startServerWith(t, auth, nil)
}

// startServerWith is startServer with the wire configuration changed by
// edit (nil: as is) before the server starts.
func startServerWith(t testing.TB, auth wire.AuthMethod, edit func(*wire.Config)) *server {
	t.Helper()
	dir := t.TempDir()
	eng := testserver.Engine(t, dir)
	cfg := wire.Config{
		NewSession: wire.Sessions(eng.StartSession),
		Auth:       auth,
	}
	if auth != wire.AuthTrust {
		cfg.Users = map[string]string{testUser: wire.ScramVerifier(testPassword)}
	}
	if edit != nil {
		edit(&cfg)
	}
	return &server{eng: eng, addr: testserver.Serve(t, cfg), dir: dir}
}

// scenario is what every client does, and the model of what it must see.
// Rows 1..Rows are inserted: name "n<id>" (NULL when id%5 == 0), score
// id+0.5. Deletes removes ids one by one, then the first again (0 rows).
// COPY loads CopyRows more ids after Rows with name "c<id>", score 0.25.
type scenario struct {
	Table    string
	Rows     int
	Deletes  []int
	CopyRows int
}

func newScenario(table string) scenario {
	return scenario{Table: table, Rows: 20, Deletes: []int{3, 1, 7, 10, 2, 15, 4, 20}, CopyRows: 5}
}

// env passes the scenario to a client program.
func (sc scenario) env(s *server, password string) []string {
	ds := make([]string, len(sc.Deletes))
	for i, d := range sc.Deletes {
		ds[i] = strconv.Itoa(d)
	}
	return []string{
		"E2E_HOST=" + s.host(), "E2E_PORT=" + s.port(), "E2E_USER=" + testUser, "E2E_PASSWORD=" + password,
		"E2E_TABLE=" + sc.Table, "E2E_ROWS=" + strconv.Itoa(sc.Rows), "E2E_DELETES=" + strings.Join(ds, ","),
		"E2E_COPY_ROWS=" + strconv.Itoa(sc.CopyRows),
	}
}

func modelName(id int) string {
	if id%5 == 0 {
		return "NULL"
	}
	return fmt.Sprintf("n%d", id)
}

// transcript is the expected output of a client running the scenario; copy
// says whether the client does the COPY step.
func (sc scenario) transcript(copy bool) []string {
	out := []string{fmt.Sprintf("insert %d", sc.Rows)}
	live := map[int]bool{}
	for id := 1; id <= sc.Rows; id++ {
		live[id] = true
	}
	for _, id := range append(sc.Deletes, sc.Deletes[0]) {
		n := 0
		if live[id] {
			n = 1
		}
		delete(live, id)
		out = append(out, fmt.Sprintf("delete %d %d", id, n))
	}
	for id := 1; id <= sc.Rows; id++ {
		if live[id] {
			out = append(out, fmt.Sprintf("row %d %s", id, modelName(id)))
		}
	}
	out = append(out, "error "+string(pgerr.UndefinedTable), "after-error 1")
	if copy {
		out = append(out, fmt.Sprintf("copy %d", sc.CopyRows), fmt.Sprintf("count %d", len(live)+sc.CopyRows))
	}
	return out
}

// copyText is the scenario's COPY data in text format.
func (sc scenario) copyText() string {
	var b strings.Builder
	for id := sc.Rows + 1; id <= sc.Rows+sc.CopyRows; id++ {
		fmt.Fprintf(&b, "%d\tc%d\t0.25\n", id, id)
	}
	return b.String()
}

func checkTranscript(t *testing.T, got string, want []string) {
	t.Helper()
	lines := strings.Split(strings.TrimRight(got, "\n"), "\n")
	for i := 0; i < max(len(lines), len(want)); i++ {
		var g, w string
		if i < len(lines) {
			g = lines[i]
		}
		if i < len(want) {
			w = want[i]
		}
		if g != w {
			t.Fatalf("transcript line %d: got %q, want %q\nfull output:\n%s", i+1, g, w, got)
		}
	}
}

func testdata(t *testing.T, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// command runs a client program with extra environment, killed if it takes
// longer than any client scenario should.
func command(env []string, name string, args ...string) (*exec.Cmd, context.CancelFunc) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = append(os.Environ(), env...)
	return cmd, cancel
}

// runProgram runs a client program and returns its combined output; it
// fails the test when the program fails.
func runProgram(t *testing.T, env []string, name string, args ...string) string {
	t.Helper()
	out, err := runProgramErr(env, name, args...)
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return out
}

// runProgramErr runs a program expected to fail and returns its output.
func runProgramErr(env []string, name string, args ...string) (string, error) {
	cmd, cancel := command(env, name, args...)
	defer cancel()
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// runSplit runs a program and returns its standard output and error apart.
func runSplit(t *testing.T, env []string, name string, args ...string) (string, string) {
	t.Helper()
	cmd, cancel := command(env, name, args...)
	defer cancel()
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\n%s%s", name, strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	return stdout.String(), stderr.String()
}

// forEachAuth runs f in a subtest per authentication method against a fresh
// server, with the password a client must send (none for trust).
func forEachAuth(t *testing.T, f func(t *testing.T, s *server, password string)) {
	for _, auth := range []struct {
		name     string
		method   wire.AuthMethod
		password string
	}{{"trust", wire.AuthTrust, ""}, {"scram", wire.AuthSCRAM, testPassword}} {
		t.Run(auth.name, func(t *testing.T) { f(t, startServer(t, auth.method), auth.password) })
	}
}
