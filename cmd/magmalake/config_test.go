package main

import (
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/magmalake/magmalake/internal/cli"
	"github.com/magmalake/magmalake/wire"
)

func envMap(m map[string]string) cli.Getenv { return func(k string) string { return m[k] } }

// wantUsageError checks err against a case's expected usage error, and
// reports whether one was expected (the case is then done); any other error
// fails the test.
func wantUsageError(t *testing.T, err error, want string) bool {
	t.Helper()
	if want != "" {
		var ue *cli.UsageError
		if !errors.As(err, &ue) || ue.Error() != want {
			t.Fatalf("error = %v, want usage error %q", err, want)
		}
		return true
	}
	if err != nil {
		t.Fatal(err)
	}
	return false
}

func TestParseCatalogFlags(t *testing.T) {
	tests := []struct {
		name      string
		args      []string
		env       map[string]string
		dataDir   string
		catalog   string
		warehouse string
		props     map[string]string
		demo      bool
		actions   []replAction
		wantErr   string
	}{
		{name: "defaults", dataDir: "./magmalake-data"},
		{name: "flags", args: []string{"--data", "/d", "--catalog", "prod", "--warehouse", "s3://b/w", "--demo", "-c", "select 1"},
			dataDir: "/d", catalog: "prod", warehouse: "s3://b/w", demo: true, actions: []replAction{{text: "select 1"}}},
		{name: "-c and -f in order", args: []string{"-c", "a", "-f", "s.sql", "-c", "b", "-f", "-"}, dataDir: "./magmalake-data",
			actions: []replAction{{text: "a"}, {file: true, text: "s.sql"}, {text: "b"}, {file: true, text: "-"}}},
		{name: "env", env: map[string]string{"MAGMALAKE_DATA": "/e", "MAGMALAKE_WAREHOUSE": "file:///w", "MAGMALAKE_CATALOG_PROPS": "type=rest, uri=http://x:8181"},
			dataDir: "/e", warehouse: "file:///w", props: map[string]string{"type": "rest", "uri": "http://x:8181"}},
		{name: "flag beats env", args: []string{"--data", "/f", "--catalog-prop", "uri=http://y", "--catalog-prop", "warehouse=w=1"},
			env:     map[string]string{"MAGMALAKE_DATA": "/e", "MAGMALAKE_CATALOG_PROPS": "uri=http://x"},
			dataDir: "/f", props: map[string]string{"uri": "http://y", "warehouse": "w=1"}},
		{name: "empty value allowed", args: []string{"--catalog-prop", "token="}, dataDir: "./magmalake-data", props: map[string]string{"token": ""}},
		{name: "bad prop flag", args: []string{"--catalog-prop", "x"}, wantErr: `--catalog-prop "x": want key=value`},
		{name: "prop without key", args: []string{"--catalog-prop", "=v"}, wantErr: `--catalog-prop "=v": want key=value`},
		{name: "bad prop env", env: map[string]string{"MAGMALAKE_CATALOG_PROPS": "a=1,b"}, wantErr: `MAGMALAKE_CATALOG_PROPS "b": want key=value`},
		{name: "empty data", args: []string{"--data", ""}, wantErr: "--data: must not be empty"},
		{name: "unknown flag", args: []string{"--bogus"}, wantErr: "flag provided but not defined: -bogus"},
		{name: "positional", args: []string{"select 1"}, wantErr: `unexpected argument "select 1"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, _, err := parseRepl(tt.args, envMap(tt.env))
			if wantUsageError(t, err, tt.wantErr) {
				return
			}
			c := cfg.Catalog
			if c.DataDir != tt.dataDir || c.CatalogName != tt.catalog || c.WarehouseURI != tt.warehouse ||
				!maps.Equal(c.CatalogProps, tt.props) || cfg.Demo != tt.demo || !slices.Equal(cfg.Actions, tt.actions) {
				t.Errorf("got %+v demo=%v actions=%v", c, cfg.Demo, cfg.Actions)
			}
		})
	}
}

func TestParseServe(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		check   func(serveConfig) bool
		wantErr string
	}{
		{name: "defaults", check: func(c serveConfig) bool {
			return c.Listen == "127.0.0.1:5433" && c.Auth == wire.AuthTrust && c.MaxConnections == 100 && c.IdleTimeout == 0 && !c.TLSSelfSigned &&
				c.AuthTimeout == 60*time.Second
		}},
		{name: "everything", args: []string{"--listen", ":6000", "--auth", "scram-sha-256", "--users-file", "u", "--tls-cert", "c", "--tls-key", "k",
			"--max-connections", "7", "--idle-timeout", "90s", "--authentication-timeout", "5s", "--demo"},
			check: func(c serveConfig) bool {
				return c.Listen == ":6000" && c.Auth == wire.AuthSCRAM && c.UsersFile == "u" && c.TLSCert == "c" && c.TLSKey == "k" &&
					c.MaxConnections == 7 && c.IdleTimeout == 90*time.Second && c.AuthTimeout == 5*time.Second && c.Demo
			}},
		{name: "md5", args: []string{"--auth", "md5", "--users-file", "u"}, check: func(c serveConfig) bool { return c.Auth == wire.AuthMD5 }},
		{name: "password", args: []string{"--auth", "password", "--users-file", "u"}, check: func(c serveConfig) bool { return c.Auth == wire.AuthPassword }},
		{name: "self-signed", args: []string{"--tls-self-signed"}, check: func(c serveConfig) bool { return c.TLSSelfSigned }},
		{name: "tls required", args: []string{"--tls-self-signed", "--tls-required"}, check: func(c serveConfig) bool { return c.TLSRequired }},
		{name: "tls required with cert", args: []string{"--tls-cert", "c", "--tls-key", "k", "--tls-required"}, check: func(c serveConfig) bool { return c.TLSRequired }},
		{name: "tls required without tls", args: []string{"--tls-required"}, wantErr: "--tls-required needs --tls-cert/--tls-key or --tls-self-signed"},
		{name: "bad auth", args: []string{"--auth", "kerberos"}, wantErr: `--auth "kerberos": want trust, password, md5 or scram-sha-256`},
		{name: "auth needs users", args: []string{"--auth", "md5"}, wantErr: "--auth other than trust needs --users-file"},
		{name: "cert without key", args: []string{"--tls-cert", "c"}, wantErr: "--tls-cert and --tls-key go together"},
		{name: "self-signed and cert", args: []string{"--tls-self-signed", "--tls-cert", "c", "--tls-key", "k"}, wantErr: "--tls-self-signed and --tls-cert exclude each other"},
		{name: "bad listen", args: []string{"--listen", "5433"}, wantErr: `--listen "5433": want host:port`},
		{name: "zero connections", args: []string{"--max-connections", "0"}, wantErr: "--max-connections 0: want at least 1"},
		{name: "negative idle", args: []string{"--idle-timeout", "-1s"}, wantErr: "--idle-timeout -1s: must not be negative"},
		{name: "zero authentication timeout", args: []string{"--authentication-timeout", "0"}, wantErr: "--authentication-timeout 0s: must be positive"},
		{name: "bad duration", args: []string{"--idle-timeout", "soon"}, wantErr: `invalid value "soon" for flag -idle-timeout: parse error`},
		{name: "bad prop", args: []string{"--catalog-prop", "novalue"}, wantErr: `--catalog-prop "novalue": want key=value`},
		{name: "settings", args: []string{"-c", "log_connections=on", "-c", "Log-Statement=DDL", "-c", "statement_timeout=2s", "--log-format", "json"},
			check: func(c serveConfig) bool {
				return c.Settings["log_connections"] == "on" && c.Settings["log_statement"] == "ddl" && c.Settings["statement_timeout"] == "2s" &&
					c.LogFormat == "json" && len(c.Settings) == 3
			}},
		{name: "default log format", check: func(c serveConfig) bool { return c.LogFormat == "text" && len(c.Settings) == 0 }},
		{name: "bad setting value", args: []string{"-c", "log_statement=some"}, wantErr: `invalid value "log_statement=some" for flag -c: invalid value for parameter "log_statement": "some" (Available values: none, ddl, mod, all.)`},
		{name: "setting without value", args: []string{"-c", "log_statement"}, wantErr: `invalid value "log_statement" for flag -c: want name=value, got "log_statement"`},
		{name: "bad log format", args: []string{"--log-format", "xml"}, wantErr: `--log-format "xml": want text or json`},
		{name: "no auto-vacuum", check: func(c serveConfig) bool { return c.AutoVacuum == 0 && c.AutoVacuumBytes == 1<<30 }},
		{name: "auto-vacuum", args: []string{"--auto-vacuum", "10m", "--auto-vacuum-max-bytes", "256MB"},
			check: func(c serveConfig) bool { return c.AutoVacuum == 10*time.Minute && c.AutoVacuumBytes == 256<<20 }},
		{name: "negative auto-vacuum", args: []string{"--auto-vacuum", "-1m"}, wantErr: "--auto-vacuum -1m0s: must not be negative"},
		{name: "bad auto-vacuum bytes", args: []string{"--auto-vacuum-max-bytes", "lots"}, wantErr: `invalid value "lots" for flag -auto-vacuum-max-bytes: want a positive size such as 1GB, not "lots"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, _, err := parseServe(tt.args, envMap(nil))
			if wantUsageError(t, err, tt.wantErr) {
				return
			}
			if !tt.check(cfg) {
				t.Errorf("unexpected config %+v", cfg)
			}
		})
	}
}

func TestParsePasswd(t *testing.T) {
	tests := []struct {
		args    []string
		env     map[string]string
		file    string
		user    string
		wantErr string
	}{
		{args: []string{"alice"}, file: "./magmalake-users", user: "alice"},
		{args: []string{"--users-file", "/u", "bob"}, file: "/u", user: "bob"},
		{args: []string{"carol"}, env: map[string]string{"MAGMALAKE_USERS_FILE": "/e"}, file: "/e", user: "carol"},
		{args: nil, wantErr: "passwd: want a user name: magmalake passwd [--users-file FILE] USER"},
		{args: []string{"a:b"}, wantErr: `passwd: user name "a:b" may not contain ':' or a line break, nor start with '#'`},
		{args: []string{"a", "b"}, wantErr: `unexpected argument "b"`},
	}
	for _, tt := range tests {
		cfg, _, err := parsePasswd(tt.args, envMap(tt.env))
		if tt.wantErr != "" {
			if err == nil || err.Error() != tt.wantErr {
				t.Errorf("%q: error %v, want %q", tt.args, err, tt.wantErr)
			}
			continue
		}
		if err != nil || cfg.UsersFile != tt.file || cfg.User != tt.user {
			t.Errorf("%q: got %+v, %v", tt.args, cfg, err)
		}
	}
}

// run maps outcomes to exit statuses and prints usage errors as one line.
func TestRunExitStatus(t *testing.T) {
	tests := []struct {
		args   []string
		status int
		stderr string
		stdout string
	}{
		{args: []string{"repl", "--catalog-prop", "x"}, status: 2, stderr: "magmalake: --catalog-prop \"x\": want key=value\n"},
		{args: []string{"serve", "--auth", "none"}, status: 2, stderr: "magmalake: --auth \"none\": want trust, password, md5 or scram-sha-256\n"},
		{args: []string{"frobnicate"}, status: 2, stderr: "magmalake: unknown command \"frobnicate\"\n" + usage},
		// The benchmarks are cmd/magmalake-bench's.
		{args: []string{"bench", "select"}, status: 2, stderr: "magmalake: unknown command \"bench\"\n" + usage},
		{args: nil, status: 2, stderr: usage},
		{args: []string{"help"}, status: 0, stdout: usage},
	}
	for _, tt := range tests {
		var out, errOut strings.Builder
		got := run(t.Context(), tt.args, envMap(nil), cli.Stdio{Out: &out, Err: &errOut})
		if got != tt.status || errOut.String() != tt.stderr || out.String() != tt.stdout {
			t.Errorf("run(%q) = %d, stdout %q, stderr %q; want %d, %q, %q", tt.args, got, out.String(), errOut.String(), tt.status, tt.stdout, tt.stderr)
		}
	}
	var out strings.Builder
	if got := run(t.Context(), []string{"serve", "-h"}, envMap(nil), cli.Stdio{Out: &out, Err: &out}); got != 0 || !strings.Contains(out.String(), "-max-connections") {
		t.Errorf("serve -h = %d, %q", got, out.String())
	}
	if !strings.HasPrefix(versionString(), "magmalake ") {
		t.Errorf("version %q", versionString())
	}
}
