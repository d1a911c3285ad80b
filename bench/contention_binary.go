package bench

import (
	"errors"
	"fmt"
	"os"
	osexec "os/exec"
	"path/filepath"
	"runtime"
)

// serverBinary is the magmalake executable the servers run when the
// config names none: the one beside exe (this process's executable: the
// server binary itself, or magmalake-bench built next to it), else the one
// lookPath finds on PATH. The benchmarks' own command does not serve.
func serverBinary(exe string, lookPath func(string) (string, error)) (string, error) {
	name := "magmalake"
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	beside := filepath.Join(filepath.Dir(exe), name)
	if st, err := os.Stat(beside); err == nil && st.Mode().IsRegular() {
		return beside, nil
	}
	if p, err := lookPath("magmalake"); err == nil {
		return p, nil
	}
	return "", errors.New("no magmalake executable beside this one or on PATH: build one (go build ./cmd/magmalake) and name it with --binary")
}

// binaryOrDefault is binary, or serverBinary's choice beside this
// process's executable when it is empty.
func binaryOrDefault(binary string) (string, error) {
	if binary != "" {
		return binary, nil
	}
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("find the magmalake binary: %w", err)
	}
	return serverBinary(exe, osexec.LookPath)
}
