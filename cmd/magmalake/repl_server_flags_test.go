package main

import (
	"errors"
	"flag"
	"maps"
	"slices"
	"testing"

	"github.com/magmalake/magmalake/repl/remote"
)

// TestParseReplServer: psql's -h/-p/-U/-d, a URL or key=value string as
// -d or the first argument, the PG* variables beneath them all, and the
// embedded-only flags refused beside them.
func TestParseReplServer(t *testing.T) {
	const app = "magmalake repl"
	tests := []struct {
		name     string
		args     []string
		env      map[string]string
		want     remote.Settings // nil: the embedded engine
		actions  []replAction
		wantErr  string
		askPw    bool
		printSet bool
	}{
		{name: "embedded by default, whatever PG* says", env: map[string]string{"PGHOST": "db", "PGUSER": "u"}},
		{name: "flags", args: []string{"-h", "127.0.0.1", "-p", "5433", "-U", "alice", "-d", "lake"},
			want: remote.Settings{"host": "127.0.0.1", "port": "5433", "user": "alice", "dbname": "lake", "application_name": app}},
		{name: "long flags", args: []string{"--host=/tmp", "--port", "5433", "--username", "bob", "--dbname", "db", "--password"}, askPw: true,
			want: remote.Settings{"host": "/tmp", "port": "5433", "user": "bob", "dbname": "db", "application_name": app}},
		{name: "URL argument, flags after it", args: []string{"postgres://al%40ce:p%20w@db.example:6543/my%2Fdb?sslmode=require&application_name=etl", "-c", "select 1"},
			actions: []replAction{{text: "select 1"}},
			want:    remote.Settings{"host": "db.example", "port": "6543", "user": "al@ce", "password": "p w", "dbname": "my/db", "sslmode": "require", "application_name": "etl"}},
		{name: "postgresql:// as -d, socket as host parameter", args: []string{"-d", "postgresql:///lake?host=/var/run/postgresql&port=5433"},
			want: remote.Settings{"host": "/var/run/postgresql", "port": "5433", "dbname": "lake", "application_name": app}},
		{name: "IPv6 and several hosts", args: []string{"postgres://[::1]:5433,db2/x"},
			want: remote.Settings{"host": "::1,db2", "port": "5433,", "dbname": "x", "application_name": app}},
		{name: "conninfo argument", args: []string{"host=h port = 5434 dbname='my db' password='it\\'s'"},
			want: remote.Settings{"host": "h", "port": "5434", "dbname": "my db", "password": "it's", "application_name": app}},
		{name: "environment", args: []string{"-d", "lake"},
			env:  map[string]string{"PGHOST": "envhost", "PGPORT": "6000", "PGUSER": "envuser", "PGDATABASE": "envdb", "PGPASSWORD": "pw", "PGSSLMODE": "disable", "PGAPPNAME": "mine"},
			want: remote.Settings{"host": "envhost", "port": "6000", "user": "envuser", "dbname": "lake", "password": "pw", "sslmode": "disable", "application_name": "mine"}},
		{name: "flags beat the environment, the connection string beats flags", args: []string{"-h", "flaghost", "-U", "flaguser", "host=connhost"},
			env:  map[string]string{"PGHOST": "envhost", "PGUSER": "envuser", "PGPORT": "6000"},
			want: remote.Settings{"host": "connhost", "port": "6000", "user": "flaguser", "application_name": app}},
		{name: "print flags with a server", args: []string{"-h", "h", "-A", "-t", "-x", "-P", "null=-", "-v", "X=1", "-a"}, printSet: true,
			want: remote.Settings{"host": "h", "application_name": app}},
		{name: "only -w", args: []string{"-w"}, want: remote.Settings{"application_name": app}},
		{name: "data with -h", args: []string{"--data", "/d", "-h", "h"}, wantErr: "--data is for the embedded engine; it cannot be combined with -h"},
		{name: "demo with a URL", args: []string{"--demo", "postgres://h/db"}, wantErr: "--demo is for the embedded engine; it cannot be combined with a connection string"},
		{name: "catalog prop with --port", args: []string{"--port", "1", "--catalog-prop", "type=rest"}, wantErr: "--catalog-prop is for the embedded engine; it cannot be combined with --port"},
		{name: "allow-path with -U", args: []string{"--allow-path", "/x", "-U", "u"}, wantErr: "--allow-path is for the embedded engine; it cannot be combined with -U"},
		{name: "warehouse with -d URL", args: []string{"--warehouse", "s3://b", "-d", "postgres://h"}, wantErr: "--warehouse is for the embedded engine; it cannot be combined with -d"},
		{name: "-W and -w", args: []string{"-W", "-w", "-h", "h"}, wantErr: "-W and -w exclude each other"},
		{name: "bad port", args: []string{"-p", "54x"}, wantErr: `-p "54x": want a port number`},
		{name: "-d and an argument", args: []string{"-d", "db", "host=h"}, wantErr: "-d and a connection string argument exclude each other"},
		{name: "bad conninfo", args: []string{"host=h port"}, wantErr: `connection string: missing "=" after "port" in connection info string`},
		{name: "unterminated quote", args: []string{"-d", "host='h"}, wantErr: "connection string: unterminated quoted string in connection info string"},
		{name: "second argument", args: []string{"host=h", "extra"}, wantErr: `unexpected argument "extra"`},
		{name: "plain word argument", args: []string{"mydb"}, wantErr: `unexpected argument "mydb"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, _, err := parseRepl(tt.args, envMap(tt.env))
			if wantUsageError(t, err, tt.wantErr) {
				return
			}
			if !maps.Equal(cfg.Server, tt.want) || (cfg.Server == nil) != (tt.want == nil) {
				t.Errorf("server settings %v, want %v", cfg.Server, tt.want)
			}
			if !slices.Equal(cfg.Actions, tt.actions) || cfg.AskPassword != tt.askPw {
				t.Errorf("actions %v ask %v, want %v %v", cfg.Actions, cfg.AskPassword, tt.actions, tt.askPw)
			}
			if tt.printSet && (len(cfg.Vars) != 1 || !cfg.EchoAll) {
				t.Errorf("-v and -a with a server: vars %v echo %v", cfg.Vars, cfg.EchoAll)
			}
		})
	}
}

// -h without a value still lists the flags, as it did before it named a
// host; -help too.
func TestReplHelpFlag(t *testing.T) {
	for _, args := range [][]string{{"-h"}, {"-c", "select 1", "-h"}, {"-help"}, {"--help"}} {
		if _, _, err := parseRepl(args, envMap(nil)); !errors.Is(err, flag.ErrHelp) {
			t.Errorf("%q: %v, want help", args, err)
		}
	}
}
