package main

import (
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"strings"
	"time"

	"github.com/magmalake/magmalake/internal/cli"
	"github.com/magmalake/magmalake/lake"
	"github.com/magmalake/magmalake/maintenance"
	"github.com/magmalake/magmalake/repl"
	"github.com/magmalake/magmalake/repl/remote"
	"github.com/magmalake/magmalake/session"
	"github.com/magmalake/magmalake/wire"
)

// catalogConfig is what repl and serve share: which catalog to open.
type catalogConfig struct {
	Catalog lake.Config
	Demo    bool // create xmen.characters if missing
}

type replConfig struct {
	catalogConfig
	memoryConfig
	// Actions are the -c commands and -f scripts in command-line order:
	// the shell runs each in turn and exits, as psql does.
	Actions []replAction
	Vars    [][2]string
	EchoAll bool
	Print   repl.PrintFlags
	// Server is where the shell connects instead of running the embedded
	// engine (-h, -p, -U, -d, a connection string): libpq settings; nil
	// for the embedded engine.
	Server remote.Settings
	// AskPassword (-W) asks for the password before connecting;
	// NoPassword (-w) never asks.
	AskPassword, NoPassword bool
}

type serveConfig struct {
	catalogConfig
	memoryConfig
	Listen         string
	Auth           wire.AuthMethod
	UsersFile      string
	TLSCert        string
	TLSKey         string
	TLSSelfSigned  bool
	TLSRequired    bool
	MaxConnections int
	IdleTimeout    time.Duration
	AuthTimeout    time.Duration
	// Settings are the -c name=value parameters (postgres -c): every
	// session's defaults, log_connections and the other logging ones.
	Settings  map[string]string
	LogFormat string // text or json
	// AutoVacuum is the interval of background maintenance passes (0:
	// none); each rewrites at most AutoVacuumBytes of data files.
	AutoVacuum      time.Duration
	AutoVacuumBytes int64
	// FileReads are the directories whose files clients may read with
	// read_csv/read_parquet (--allow-file-read); none by default.
	FileReads []string
}

type passwdConfig struct {
	UsersFile string
	User      string
}

// catalogFlags registers the catalog flags on fs; finish turns what was
// parsed (and the environment) into a catalogConfig.
type catalogFlags struct {
	data, catalog, warehouse string
	props                    []string
	allow                    []string // --allow-path prefixes
	demo                     bool
}

func (c *catalogFlags) register(fs *flag.FlagSet, env cli.Getenv) {
	fs.StringVar(&c.data, "data", envOr(env, "MAGMALAKE_DATA", "./magmalake-data"), "data directory of the embedded catalog and warehouse (env MAGMALAKE_DATA)")
	fs.StringVar(&c.catalog, "catalog", "", "catalog name (default magmalake)")
	fs.Func("catalog-prop", "iceberg-go catalog property key=value, repeatable (env MAGMALAKE_CATALOG_PROPS: k=v,k=v)", func(s string) error {
		c.props = append(c.props, s)
		return nil
	})
	fs.StringVar(&c.warehouse, "warehouse", env("MAGMALAKE_WAREHOUSE"), "warehouse location URI (env MAGMALAKE_WAREHOUSE)")
	fs.BoolVar(&c.demo, "demo", false, "create the demo table xmen.characters if it is missing")
	fs.Func("allow-path", "location prefix outside the warehouse that table properties may name, repeatable", func(s string) error {
		if err := lake.CheckAllowPath(s); err != nil {
			return err
		}
		c.allow = append(c.allow, s)
		return nil
	})
}

func (c *catalogFlags) finish(env cli.Getenv) (catalogConfig, error) {
	props := map[string]string{}
	if v := env("MAGMALAKE_CATALOG_PROPS"); v != "" {
		for _, kv := range strings.Split(v, ",") {
			if err := addProp(props, kv); err != nil {
				return catalogConfig{}, cli.Usagef("MAGMALAKE_CATALOG_PROPS %q: want key=value", kv)
			}
		}
	}
	for _, kv := range c.props { // flags override the environment
		if err := addProp(props, kv); err != nil {
			return catalogConfig{}, cli.Usagef("--catalog-prop %q: want key=value", kv)
		}
	}
	if c.data == "" {
		return catalogConfig{}, cli.Usagef("--data: must not be empty")
	}
	if len(props) == 0 {
		props = nil
	}
	return catalogConfig{
		Catalog: lake.Config{DataDir: c.data, CatalogName: c.catalog, CatalogProps: props, WarehouseURI: c.warehouse, AllowPaths: c.allow},
		Demo:    c.demo,
	}, nil
}

func addProp(props map[string]string, kv string) error {
	k, v, ok := strings.Cut(kv, "=")
	k = strings.TrimSpace(k)
	if !ok || k == "" {
		return errors.New("want key=value")
	}
	props[k] = strings.TrimSpace(v)
	return nil
}

func envOr(env cli.Getenv, name, def string) string {
	if v := env(name); v != "" {
		return v
	}
	return def
}

func parseRepl(args []string, env cli.Getenv) (replConfig, *flag.FlagSet, error) {
	fs := cli.NewFlagSet("magmalake repl")
	var cf catalogFlags
	cf.register(fs, env)
	var mf memoryFlags
	mf.register(fs)
	var cfg replConfig
	fs.Func("c", "run this SQL (or one backslash command) and exit; repeatable, with -f, in order", func(text string) error {
		cfg.Actions = append(cfg.Actions, replAction{text: text})
		return nil
	})
	fs.Func("f", "run the statements of this file (- for standard input) and exit; repeatable, with -c, in order", func(name string) error {
		cfg.Actions = append(cfg.Actions, replAction{file: true, text: name})
		return nil
	})
	setVar := func(kv string) error {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || name == "" {
			return fmt.Errorf("want NAME=value, got %q", kv)
		}
		cfg.Vars = append(cfg.Vars, [2]string{name, value})
		return nil
	}
	fs.Func("v", "NAME=value: set a shell variable, as \\set does (repeatable)", setVar)
	fs.Func("set", "NAME=value: the same as -v", setVar)
	fs.BoolVar(&cfg.EchoAll, "a", false, "print every input line as it is read (psql -a)")
	fs.BoolVar(&cfg.EchoAll, "echo-all", false, "the same as -a")
	cfg.Print.Register(fs)
	var sf serverFlags
	sf.register(fs)
	connString, err := parseReplArgs(fs, args)
	if err != nil {
		return cfg, fs, err
	}
	if cfg.Server, err = sf.finish(fs, connString, env); err != nil {
		return cfg, fs, err
	}
	cfg.AskPassword, cfg.NoPassword = sf.askPassword, sf.noPassword
	if cfg.Server == nil {
		if cfg.catalogConfig, err = cf.finish(env); err != nil {
			return cfg, fs, err
		}
		cfg.memoryConfig, err = mf.finish(env)
	}
	return cfg, fs, err
}

// parseReplArgs parses args as psql does: a first positional argument may
// be a connection string (URL or key=value), and flags may follow it.
func parseReplArgs(fs *flag.FlagSet, args []string) (connString string, err error) {
	if n := len(args); n > 0 && (args[n-1] == "-h" || args[n-1] == "--h") {
		return "", flag.ErrHelp // -h without a host still lists the flags
	}
	if err := cli.Parse(fs, args, len(args)); err != nil {
		return "", err
	}
	if fs.NArg() == 0 {
		return "", nil
	}
	if first := fs.Arg(0); !remote.IsConnString(first) {
		return "", cli.Usagef("unexpected argument %q", first)
	}
	connString = fs.Arg(0)
	return connString, cli.Parse(fs, fs.Args()[1:], 0)
}

func parseServe(args []string, env cli.Getenv) (serveConfig, *flag.FlagSet, error) {
	fs := cli.NewFlagSet("magmalake serve")
	var cf catalogFlags
	cf.register(fs, env)
	var mf memoryFlags
	mf.register(fs)
	var cfg serveConfig
	var auth string
	fs.StringVar(&cfg.Listen, "listen", "127.0.0.1:5433", "address to accept PostgreSQL clients on")
	fs.StringVar(&auth, "auth", "trust", "authentication: trust, password, md5 or scram-sha-256")
	fs.StringVar(&cfg.UsersFile, "users-file", "", "user:secret lines (see magmalake passwd); required unless --auth trust")
	fs.StringVar(&cfg.TLSCert, "tls-cert", "", "PEM certificate file for TLS")
	fs.StringVar(&cfg.TLSKey, "tls-key", "", "PEM private key file for TLS")
	fs.BoolVar(&cfg.TLSSelfSigned, "tls-self-signed", false, "serve TLS with an ephemeral self-signed certificate")
	fs.BoolVar(&cfg.TLSRequired, "tls-required", false, "refuse clients that do not use TLS (needs --tls-cert/--tls-key or --tls-self-signed)")
	fs.IntVar(&cfg.MaxConnections, "max-connections", 100, "refuse clients beyond this many")
	fs.DurationVar(&cfg.IdleTimeout, "idle-timeout", 0, "close sessions idle this long (0: never)")
	fs.DurationVar(&cfg.AuthTimeout, "authentication-timeout", 60*time.Second, "close connections that have not logged in within this long")
	cfg.Settings = map[string]string{}
	fs.Func("c", "name=value: a parameter's server-wide value, as postgres -c (log_connections, log_statement, statement_timeout, ...); repeatable", func(kv string) error {
		return addSetting(cfg.Settings, kv)
	})
	fs.StringVar(&cfg.LogFormat, "log-format", "text", "server log lines: text (key=value) or json")
	fs.Func("allow-file-read", "directory whose files clients may read with read_csv/read_parquet, repeatable (default: none)", func(dir string) error {
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			return fmt.Errorf("%q is not a directory", dir)
		}
		cfg.FileReads = append(cfg.FileReads, dir)
		return nil
	})
	fs.DurationVar(&cfg.AutoVacuum, "auto-vacuum", 0, "run VACUUM's steps in the background this often on tables whose debt passes their thresholds (0: never)")
	cfg.AutoVacuumBytes = maintenance.DefaultAutoVacuumBytes
	fs.Func("auto-vacuum-max-bytes", "data-file bytes one background pass rewrites at most (default 1GB)", func(v string) error {
		n, err := maintenance.ParseByteSize(v)
		if err != nil || n <= 0 {
			return fmt.Errorf("want a positive size such as 1GB, not %q", v)
		}
		cfg.AutoVacuumBytes = n
		return nil
	})
	if err := cli.Parse(fs, args, 0); err != nil {
		return cfg, fs, err
	}
	cat, err := cf.finish(env)
	if err != nil {
		return cfg, fs, err
	}
	cfg.catalogConfig = cat
	if cfg.memoryConfig, err = mf.finish(env); err != nil {
		return cfg, fs, err
	}
	if cfg.Auth, err = parseAuth(auth); err != nil {
		return cfg, fs, err
	}
	return cfg, fs, cfg.check()
}

func parseAuth(s string) (wire.AuthMethod, error) {
	switch s {
	case "trust":
		return wire.AuthTrust, nil
	case "password":
		return wire.AuthPassword, nil
	case "md5":
		return wire.AuthMD5, nil
	case "scram-sha-256":
		return wire.AuthSCRAM, nil
	}
	return 0, cli.Usagef("--auth %q: want trust, password, md5 or scram-sha-256", s)
}

func (c serveConfig) check() error {
	if _, _, err := net.SplitHostPort(c.Listen); err != nil {
		return cli.Usagef("--listen %q: want host:port", c.Listen)
	}
	if c.Auth != wire.AuthTrust && c.UsersFile == "" {
		return cli.Usagef("--auth other than trust needs --users-file")
	}
	if (c.TLSCert == "") != (c.TLSKey == "") {
		return cli.Usagef("--tls-cert and --tls-key go together")
	}
	if c.TLSSelfSigned && c.TLSCert != "" {
		return cli.Usagef("--tls-self-signed and --tls-cert exclude each other")
	}
	if c.TLSRequired && !c.TLSSelfSigned && c.TLSCert == "" {
		return cli.Usagef("--tls-required needs --tls-cert/--tls-key or --tls-self-signed")
	}
	if c.MaxConnections < 1 {
		return cli.Usagef("--max-connections %d: want at least 1", c.MaxConnections)
	}
	if c.IdleTimeout < 0 {
		return cli.Usagef("--idle-timeout %v: must not be negative", c.IdleTimeout)
	}
	if c.AutoVacuum < 0 {
		return cli.Usagef("--auto-vacuum %v: must not be negative", c.AutoVacuum)
	}
	if c.AuthTimeout <= 0 {
		return cli.Usagef("--authentication-timeout %v: must be positive", c.AuthTimeout)
	}
	if c.LogFormat != "text" && c.LogFormat != "json" {
		return cli.Usagef("--log-format %q: want text or json", c.LogFormat)
	}
	return nil
}

// addSetting reads one -c name=value into m, checked as the server will
// use it.
func addSetting(m map[string]string, kv string) error {
	name, value, ok := strings.Cut(kv, "=")
	if !ok {
		return fmt.Errorf("want name=value, got %q", kv)
	}
	n, v, err := session.CheckServerSetting(name, value)
	if err != nil {
		return err
	}
	m[n] = v
	return nil
}

func parsePasswd(args []string, env cli.Getenv) (passwdConfig, *flag.FlagSet, error) {
	fs := cli.NewFlagSet("magmalake passwd")
	var cfg passwdConfig
	fs.StringVar(&cfg.UsersFile, "users-file", envOr(env, "MAGMALAKE_USERS_FILE", "./magmalake-users"), "users file to create or update (env MAGMALAKE_USERS_FILE)")
	if err := cli.Parse(fs, args, 1); err != nil {
		return cfg, fs, err
	}
	cfg.User = fs.Arg(0)
	switch {
	case cfg.User == "":
		return cfg, fs, cli.Usagef("passwd: want a user name: magmalake passwd [--users-file FILE] USER")
	case strings.ContainsAny(cfg.User, ":\n\r") || strings.HasPrefix(cfg.User, "#"):
		return cfg, fs, cli.Usagef("passwd: user name %q may not contain ':' or a line break, nor start with '#'", cfg.User)
	}
	return cfg, fs, nil
}
