package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"os/user"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"syscall"
	"time"

	"github.com/magmalake/magmalake/internal/cli"
	"github.com/magmalake/magmalake/lake"
	"github.com/magmalake/magmalake/maintenance"
	"github.com/magmalake/magmalake/repl"
	"github.com/magmalake/magmalake/session"
	"github.com/magmalake/magmalake/stmt"
	"github.com/magmalake/magmalake/wire"
)

// errScriptStopped is a script (-f, standard input) that ON_ERROR_STOP
// ended at a failure already shown: psql exits 3 for it.
var errScriptStopped = errors.New("script stopped at a failure already reported")

// shutdownGrace is how long running statements may finish after SIGINT or
// SIGTERM before they are cancelled.
const shutdownGrace = 30 * time.Second

func runRepl(ctx context.Context, cfg replConfig, std cli.Stdio) error {
	if cfg.Server != nil {
		return runRemoteRepl(ctx, cfg, std)
	}
	wh, err := lake.Open(ctx, cfg.Catalog)
	if err != nil {
		return fmt.Errorf("open catalog: %w", err)
	}
	defer wh.Close()
	// The shell reads the files its user can (read_csv, read_parquet).
	cfg.applyRuntimeLimit()
	eng, err := openEngine(ctx, wh, cfg.Demo, cfg.engineOptions(session.EngineOptions{FileReadRoots: []string{string(filepath.Separator)}}))
	if err != nil {
		return err
	}
	// The shell draws a progress line for long statements when its
	// error output is a terminal (SET magmalake.progress = off stops it).
	sess := eng.NewSession(stmt.SessionInfo{User: osUser(), Database: "magmalake", ApplicationName: "magmalake repl",
		Options: map[string]string{"magmalake.progress": "on"}})
	defer sess.Close()
	sh := repl.New(sess, std.Out, std.Err)
	sh.MetadataKinds = session.MetadataTableKinds()
	sh.ConnInfo = fmt.Sprintf("You are connected to database \"magmalake\" as user \"%s\" on the %s.", osUser(), describeCatalog(cfg.Catalog))
	return runShell(ctx, sh, cfg, std)
}

// runShell runs sh, embedded or connected to a server, as the command line
// asks: -c, -f, a terminal, or a script on standard input.
func runShell(ctx context.Context, sh *repl.Shell, cfg replConfig, std cli.Stdio) error {
	if err := sh.ApplyPrintFlags(cfg.Print); err != nil {
		return cli.Usagef("%v", err)
	}
	for _, kv := range cfg.Vars {
		if err := sh.SetVariable(kv[0], kv[1]); err != nil {
			return cli.Usagef("-v: %v", err)
		}
	}
	if cfg.EchoAll {
		_ = sh.SetVariable("ECHO", "all") // psql -a is \set ECHO all
	}
	var err error
	switch {
	case len(cfg.Actions) > 0:
		// Ctrl-C cancels the statement (on a server: a CancelRequest).
		sctx, stop := signal.NotifyContext(ctx, os.Interrupt)
		defer stop()
		err = runActions(sctx, sh, cfg.Actions, std.In, std.Err)
	case repl.IsTerminal(std.In):
		err = sh.RunInteractive(ctx, repl.HistoryFile())
	default:
		// Ctrl-C cancels the running statement, which then fails the script.
		sctx, stop := signal.NotifyContext(ctx, os.Interrupt)
		defer stop()
		if err = sh.RunScript(sctx, std.In); errors.Is(err, repl.ErrFailed) {
			err = errScriptStopped
		}
	}
	if errors.Is(err, repl.ErrFailed) {
		return cli.ErrReported
	}
	return err
}

func runServe(ctx context.Context, cfg serveConfig, std cli.Stdio) error {
	tlsCfg, err := serverTLS(cfg)
	if err != nil {
		return err
	}
	var users map[string]string
	if cfg.UsersFile != "" {
		if users, err = wire.LoadUsers(cfg.UsersFile); err != nil {
			return err
		}
	}
	wh, err := lake.Open(ctx, cfg.Catalog)
	if err != nil {
		return fmt.Errorf("open catalog: %w", err)
	}
	defer wh.Close()
	logger := serverLogger(cfg.LogFormat, std.Err)
	cfg.applyRuntimeLimit()
	eng, err := openEngine(ctx, wh, cfg.Demo, cfg.engineOptions(session.EngineOptions{Logger: logger, Settings: cfg.Settings, FileReadRoots: cfg.FileReads}))
	if err != nil {
		return err
	}
	srv, err := wire.NewServer(wire.Config{
		Addr:                  cfg.Listen,
		NewSession:            wire.Sessions(eng.StartSession),
		Auth:                  cfg.Auth,
		Users:                 users,
		TLS:                   tlsCfg,
		TLSRequired:           cfg.TLSRequired,
		MaxConnections:        cfg.MaxConnections,
		IdleTimeout:           cfg.IdleTimeout,
		AuthenticationTimeout: cfg.AuthTimeout,
		LogConnections:        cfg.Settings["log_connections"] == "on",
		LogDisconnections:     cfg.Settings["log_disconnections"] == "on",
		Logger:                logger,
	})
	if err != nil {
		return err
	}
	l, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", cfg.Listen, err)
	}
	if cfg.AutoVacuum > 0 {
		stop := startAutoVacuum(ctx, eng, cfg)
		defer stop()
	}
	return serveUntilSignal(ctx, srv, l, logger)
}

// startAutoVacuum runs background maintenance until the returned func is
// called, which also waits for a pass in progress to stop (before the
// catalog closes under it).
func startAutoVacuum(ctx context.Context, eng *session.Engine, cfg serveConfig) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	av := eng.NewAutoVacuum(maintenance.AutoVacuumOptions{Interval: cfg.AutoVacuum, MaxBytes: cfg.AutoVacuumBytes})
	go func() {
		defer close(done)
		av.Run(ctx)
	}()
	return func() {
		cancel()
		<-done
	}
}

// serverLogger writes the server log to w, one structured line per event.
func serverLogger(format string, w io.Writer) *slog.Logger {
	if format == "json" {
		return slog.New(slog.NewJSONHandler(w, nil))
	}
	return slog.New(slog.NewTextHandler(w, nil))
}

// serveUntilSignal serves until SIGINT or SIGTERM, then drains: running
// statements get shutdownGrace to finish. A second signal kills the process.
func serveUntilSignal(ctx context.Context, srv *wire.Server, l net.Listener, logger *slog.Logger) error {
	sigCtx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	served := make(chan error, 1)
	go func() { served <- srv.Serve(sigCtx, l) }()
	logger.Info("magmalake listening", "addr", l.Addr().String())
	select {
	case err := <-served:
		return err
	case <-sigCtx.Done():
	}
	stop()
	logger.Info("shutting down", "grace", shutdownGrace)
	shCtx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if err := srv.Shutdown(shCtx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("shutdown: %w", err)
	}
	return <-served
}

func serverTLS(cfg serveConfig) (*tls.Config, error) {
	switch {
	case cfg.TLSSelfSigned:
		return wire.SelfSignedTLS()
	case cfg.TLSCert != "":
		return wire.LoadTLS(cfg.TLSCert, cfg.TLSKey)
	}
	return nil, nil
}

func runPasswd(_ context.Context, cfg passwdConfig, std cli.Stdio) error {
	password, err := readPassword(std.In, repl.IsTerminal(std.In))
	if err != nil {
		return err
	}
	if err := setSecret(cfg.UsersFile, cfg.User, wire.ScramVerifier(password)); err != nil {
		return err
	}
	fmt.Fprintf(std.Out, "password of %q set in %s\n", cfg.User, cfg.UsersFile)
	return nil
}

func osUser() string {
	if u, err := user.Current(); err == nil {
		return u.Username
	}
	return "magmalake"
}

func versionString() string {
	v := "(devel)"
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		v = bi.Main.Version
	}
	return fmt.Sprintf("magmalake %s %s %s/%s", v, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}
