package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"time"

	"github.com/peterh/liner"

	"github.com/magmalake/magmalake/internal/cli"
	"github.com/magmalake/magmalake/repl"
	"github.com/magmalake/magmalake/repl/remote"
	"github.com/magmalake/magmalake/session"
)

// closeTimeout bounds saying goodbye to the server.
const closeTimeout = 5 * time.Second

// runRemoteRepl runs the shell on a server's session.
func runRemoteRepl(ctx context.Context, cfg replConfig, std cli.Stdio) error {
	sess, err := connectServer(ctx, cfg, std)
	if err != nil {
		return err
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), closeTimeout)
		defer cancel()
		_ = sess.Close(cctx) // the server ends the session either way
	}()
	sh := repl.New(sess, std.Out, std.Err)
	sh.MetadataKinds = session.MetadataTableKinds() // this binary's server's, as a rule
	sess.HandleNotices(sh.PrintNotice)
	sh.ConnInfo = sess.ConnInfo()
	return runShell(ctx, sh, cfg, std)
}

// connectServer connects as psql does about passwords: -W asks first, a
// terminal is asked when the server wants one, and otherwise (-w, or a
// script on standard input) a server that wants one is a clear failure.
func connectServer(ctx context.Context, cfg replConfig, std cli.Stdio) (*remote.Session, error) {
	terminal := repl.IsTerminal(std.In)
	ask := func(_ context.Context, user string) (string, error) {
		return readServerPassword(std, terminal, user)
	}
	o := remote.Options{Settings: cfg.Server}
	switch {
	case cfg.AskPassword:
		user := cfg.Server["user"]
		if user == "" {
			user = osUser()
		}
		pw, err := ask(ctx, user)
		if err != nil {
			return nil, fmt.Errorf("read password: %w", err)
		}
		o.Settings = maps.Clone(cfg.Server)
		o.Settings["password"] = pw
	case terminal && !cfg.NoPassword:
		o.Password = ask
	}
	sess, err := remote.Connect(ctx, o)
	if errors.Is(err, remote.ErrPasswordNeeded) {
		return nil, fmt.Errorf("%w (-W asks for it; or set PGPASSWORD, or a ~/.pgpass line)", err)
	}
	return sess, err
}

// readServerPassword asks on a terminal without echo (psql's prompt), or
// reads the first line of a standard input that is not one (-W in a
// script: echo secret | magmalake repl -W -h ...).
func readServerPassword(std cli.Stdio, terminal bool, user string) (string, error) {
	if !terminal {
		line, err := bufio.NewReader(std.In).ReadString('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return "", err
		}
		return trimLineEnd(line), nil
	}
	ln := liner.NewLiner()
	defer ln.Close()
	return ln.PasswordPrompt(fmt.Sprintf("Password for user %s: ", user))
}

func trimLineEnd(s string) string {
	for len(s) > 0 && (s[len(s)-1] == '\n' || s[len(s)-1] == '\r') {
		s = s[:len(s)-1]
	}
	return s
}
