package bench

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// The servers run the magmalake beside this executable when there is one,
// else the one on PATH; with neither the error says how to name one.
func TestServerBinary(t *testing.T) {
	name := "magmalake"
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	onPath := func(string) (string, error) { return "/usr/local/bin/magmalake", nil }
	notOnPath := func(string) (string, error) { return "", errors.New("not found") }

	dir := t.TempDir()
	exe := filepath.Join(dir, "magmalake-bench")
	beside := filepath.Join(dir, name)
	if err := os.WriteFile(beside, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got, err := serverBinary(exe, onPath); err != nil || got != beside {
		t.Errorf("with magmalake beside: %q, %v; want %q", got, err, beside)
	}
	// The server binary itself finds itself.
	if got, err := serverBinary(beside, notOnPath); err != nil || got != beside {
		t.Errorf("run as magmalake: %q, %v; want %q", got, err, beside)
	}

	alone := filepath.Join(t.TempDir(), "magmalake-bench")
	if got, err := serverBinary(alone, onPath); err != nil || got != "/usr/local/bin/magmalake" {
		t.Errorf("with magmalake on PATH only: %q, %v", got, err)
	}
	if got, err := serverBinary(alone, notOnPath); err == nil || !strings.Contains(err.Error(), "--binary") {
		t.Errorf("with no magmalake: %q, %v; want an error naming --binary", got, err)
	}
	// A directory named magmalake beside it is not an executable.
	if err := os.Mkdir(filepath.Join(filepath.Dir(alone), name), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := serverBinary(alone, notOnPath); err == nil {
		t.Error("a directory named magmalake was taken for the binary")
	}
}
