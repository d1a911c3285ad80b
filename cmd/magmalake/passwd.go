package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/peterh/liner"
)

// setSecret writes "user:secret" into the users file at path, replacing the
// user's existing line and keeping every other line (comments included). The
// file is replaced atomically and readable by its owner only.
func setSecret(path, user, secret string) error {
	var lines []string
	old, err := os.ReadFile(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return fmt.Errorf("read users file: %w", err)
	default:
		lines = strings.Split(strings.TrimRight(string(old), "\n"), "\n")
	}
	entry := user + ":" + secret
	replaced := false
	for i, l := range lines {
		if name, _, ok := strings.Cut(strings.TrimSpace(l), ":"); ok && name == user {
			lines[i], replaced = entry, true
		}
	}
	if !replaced {
		lines = append(lines, entry)
	}
	return writeFileAtomic(path, []byte(strings.Join(lines, "\n")+"\n"))
}

func writeFileAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("write users file: %w", err)
	}
	defer os.Remove(tmp.Name()) // after a successful rename this is a no-op
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return fmt.Errorf("write users file: %w", err)
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("write users file: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write users file: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write users file: %w", err)
	}
	return nil
}

// readPassword asks twice on a terminal (without echo) or reads the first
// line of a non-terminal stdin, so that scripts can pipe a password in.
func readPassword(in io.Reader, terminal bool) (string, error) {
	if !terminal {
		line, err := bufio.NewReader(in).ReadString('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return "", fmt.Errorf("read password: %w", err)
		}
		return checkPassword(strings.TrimRight(line, "\r\n"))
	}
	ln := liner.NewLiner()
	defer ln.Close()
	first, err := ln.PasswordPrompt("Enter new password: ")
	if err != nil {
		return "", fmt.Errorf("read password: %w", err)
	}
	second, err := ln.PasswordPrompt("Enter it again: ")
	if err != nil {
		return "", fmt.Errorf("read password: %w", err)
	}
	if first != second {
		return "", errors.New("passwords didn't match")
	}
	return checkPassword(first)
}

func checkPassword(p string) (string, error) {
	if p == "" {
		return "", errors.New("empty password")
	}
	return p, nil
}
