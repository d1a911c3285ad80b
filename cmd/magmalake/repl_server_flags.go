package main

import (
	"flag"
	"strconv"
	"strings"

	"github.com/magmalake/magmalake/internal/cli"
	"github.com/magmalake/magmalake/repl/remote"
)

// serverFlags are psql's connection options: given (or a connection
// string), the shell connects to a server instead of running the embedded
// engine.
type serverFlags struct {
	host, port, user, dbname string
	askPassword, noPassword  bool
}

// serverFlagNames are the flags that choose a server, as typed on the
// command line.
var serverFlagNames = []string{"h", "host", "p", "port", "U", "username", "d", "dbname", "W", "password", "w", "no-password"}

// embeddedFlagNames are the catalog and engine flags, which a server
// makes meaningless.
var embeddedFlagNames = []string{"data", "catalog", "catalog-prop", "warehouse", "demo", "allow-path", "memory-limit"}

// pgEnv are the libpq variables the shell reads, as psql does, when it
// connects to a server; flags and connection strings override them.
var pgEnv = [][2]string{
	{"PGHOST", "host"}, {"PGPORT", "port"}, {"PGUSER", "user"}, {"PGDATABASE", "dbname"},
	{"PGPASSWORD", "password"}, {"PGSSLMODE", "sslmode"}, {"PGAPPNAME", "application_name"},
}

func (c *serverFlags) register(fs *flag.FlagSet) {
	both := func(p *string, short, long, usage string) {
		fs.StringVar(p, short, "", usage)
		fs.StringVar(p, long, "", "the same as -"+short)
	}
	both(&c.host, "h", "host", "connect to the server on this host or socket directory (env PGHOST) instead of running the embedded engine")
	both(&c.port, "p", "port", "server port (env PGPORT, default 5432)")
	both(&c.user, "U", "username", "user name on the server (env PGUSER)")
	both(&c.dbname, "d", "dbname", "database on the server (env PGDATABASE), or a postgres:// URL or key=value connection string")
	fs.BoolVar(&c.askPassword, "W", false, "ask for the server password before connecting")
	fs.BoolVar(&c.askPassword, "password", false, "the same as -W")
	fs.BoolVar(&c.noPassword, "w", false, "never ask for a password: fail if the server wants one")
	fs.BoolVar(&c.noPassword, "no-password", false, "the same as -w")
}

// finish decides embedded or server: nil settings for the embedded engine,
// else libpq's merge of the environment, the flags and the connection
// string (-d's or the positional one), each overriding the one before, as
// psql passes -h/-p/-U before the dbname it expands.
func (c *serverFlags) finish(fs *flag.FlagSet, connString string, env cli.Getenv) (remote.Settings, error) {
	chosen := setFlags(fs, serverFlagNames)
	if connString != "" && c.dbname != "" {
		return nil, cli.Usagef("-d and a connection string argument exclude each other")
	}
	if connString == "" && remote.IsConnString(c.dbname) {
		connString, c.dbname = c.dbname, ""
	}
	if connString != "" {
		chosen = append(chosen, "a connection string")
	}
	if len(chosen) == 0 {
		return nil, nil
	}
	if embedded := setFlags(fs, embeddedFlagNames); len(embedded) > 0 {
		return nil, cli.Usagef("%s is for the embedded engine; it cannot be combined with %s", embedded[0], chosen[0])
	}
	if c.askPassword && c.noPassword {
		return nil, cli.Usagef("-W and -w exclude each other")
	}
	if err := checkPorts(c.port); err != nil {
		return nil, err
	}
	st := remote.Settings{}
	for _, kv := range pgEnv {
		putSetting(st, kv[1], env(kv[0]))
	}
	putSetting(st, "host", c.host)
	putSetting(st, "port", c.port)
	putSetting(st, "user", c.user)
	putSetting(st, "dbname", c.dbname)
	if connString != "" {
		parsed, err := remote.ParseConnString(connString)
		if err != nil {
			return nil, cli.Usagef("connection string: %v", err)
		}
		for k, v := range parsed {
			putSetting(st, k, v)
		}
	}
	if st["application_name"] == "" {
		st["application_name"] = "magmalake repl" // psql's fallback_application_name
	}
	return st, nil
}

// putSetting sets k unless v is empty: libpq ignores empty values.
func putSetting(st remote.Settings, k, v string) {
	if v != "" {
		st[k] = v
	}
}

// setFlags are those of names given on the command line, spelled as typed
// (-h, --data).
func setFlags(fs *flag.FlagSet, names []string) []string {
	var set []string
	fs.Visit(func(f *flag.Flag) {
		for _, n := range names {
			if f.Name == n {
				set = append(set, flagSpelling(n))
			}
		}
	})
	return set
}

func flagSpelling(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// checkPorts accepts a port or libpq's comma-separated list of them.
func checkPorts(ports string) error {
	if ports == "" {
		return nil
	}
	for _, p := range strings.Split(ports, ",") {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return cli.Usagef("-p %q: want a port number", ports)
		}
	}
	return nil
}
