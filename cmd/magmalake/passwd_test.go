package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/magmalake/magmalake/internal/cli"
	"github.com/magmalake/magmalake/wire"
)

// The users file written by passwd is read back by the server's own loader.
func TestSetSecretReadBackByServer(t *testing.T) {
	path := filepath.Join(t.TempDir(), "users")
	if err := os.WriteFile(path, []byte("# team\nbob:plainpw\nalice:old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	v1 := wire.ScramVerifier("s3cret")
	if err := setSecret(path, "alice", v1); err != nil {
		t.Fatal(err)
	}
	v2 := wire.ScramVerifier("other")
	if err := setSecret(path, "carol", v2); err != nil {
		t.Fatal(err)
	}
	users, err := wire.LoadUsers(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(users) != 3 || users["bob"] != "plainpw" || users["alice"] != v1 || users["carol"] != v2 {
		t.Errorf("users after update: %v", users)
	}
	data, _ := os.ReadFile(path)
	if !strings.HasPrefix(string(data), "# team\n") || strings.Count(string(data), "alice:") != 1 {
		t.Errorf("file content:\n%s", data)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", fi.Mode().Perm())
	}
	if !strings.HasPrefix(v1, "SCRAM-SHA-256$") {
		t.Errorf("verifier %q", v1)
	}
}

func TestSetSecretCreatesFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "new-users")
	if err := setSecret(path, "dave", "x"); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(path); string(data) != "dave:x\n" {
		t.Errorf("content %q", data)
	}
}

func TestReadPasswordFromPipe(t *testing.T) {
	tests := []struct {
		in, want string
		fails    bool
	}{
		{in: "hunter2\nignored\n", want: "hunter2"},
		{in: "crlf\r\n", want: "crlf"},
		{in: "no newline", want: "no newline"},
		{in: "\n", fails: true},
		{in: "", fails: true},
	}
	for _, tt := range tests {
		got, err := readPassword(strings.NewReader(tt.in), false)
		if (err != nil) != tt.fails || got != tt.want {
			t.Errorf("readPassword(%q) = %q, %v", tt.in, got, err)
		}
	}
}

// serve refuses a users file with an empty secret before it opens anything.
func TestServeRefusesEmptySecret(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "users")
	if err := os.WriteFile(path, []byte("# team\nalice:wonderland\nbob:\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errOut strings.Builder
	args := []string{"serve", "--auth", "password", "--users-file", path, "--data", filepath.Join(dir, "data"), "--listen", "127.0.0.1:0"}
	status := run(t.Context(), args, envMap(nil), cli.Stdio{Out: &out, Err: &errOut})
	if status != 1 || errOut.String() != "magmalake: users file line 3: empty secret\n" {
		t.Errorf("status %d, stderr %q", status, errOut.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "data")); err == nil {
		t.Errorf("the data directory was created")
	}
}
