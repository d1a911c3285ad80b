package remote

import (
	"fmt"
	"net/url"
	"sort"
	"strings"
)

// Settings are libpq connection keywords and their values (host, port,
// user, dbname, password, sslmode, ...): what a conninfo string or URL
// holds, and what Connect is given.
type Settings map[string]string

// IsConnString reports whether s is a connection string rather than a
// database name, by libpq's rule: a URL, or text holding an '='.
func IsConnString(s string) bool {
	return hasURLPrefix(s) || strings.Contains(s, "=")
}

func hasURLPrefix(s string) bool {
	return strings.HasPrefix(s, "postgresql://") || strings.HasPrefix(s, "postgres://")
}

// ParseConnString reads a postgres:// (or postgresql://) URL or a
// keyword=value conninfo string as libpq does. Keywords are not checked
// here: unknown ones reach the server as run-time parameters, as pgconn
// sends them.
func ParseConnString(s string) (Settings, error) {
	if hasURLPrefix(s) {
		return parseURL(s)
	}
	return parseKeywordValue(s)
}

// parseKeywordValue is libpq's conninfo_parse: `key = value` pairs split
// by blanks; a value is a word or a single-quoted string, and a backslash
// takes the next character literally in both.
func parseKeywordValue(s string) (Settings, error) {
	out := Settings{}
	for i := skipBlanks(s, 0); i < len(s); i = skipBlanks(s, i) {
		start := i
		for i < len(s) && s[i] != '=' && !isBlank(s[i]) {
			i++
		}
		key := s[start:i]
		if i = skipBlanks(s, i); i >= len(s) || s[i] != '=' {
			return nil, fmt.Errorf("missing \"=\" after %q in connection info string", key)
		}
		value, next, err := conninfoValue(s, skipBlanks(s, i+1))
		if err != nil {
			return nil, err
		}
		out.set(key, value)
		i = next
	}
	return out, nil
}

// conninfoValue reads the value starting at s[i] and returns it and the
// index after it.
func conninfoValue(s string, i int) (string, int, error) {
	var b strings.Builder
	quoted := i < len(s) && s[i] == '\''
	if quoted {
		i++
	}
	for ; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\' && i+1 < len(s):
			i++
			b.WriteByte(s[i])
		case c == '\\': // a trailing backslash escapes nothing
		case quoted && c == '\'':
			return b.String(), i + 1, nil
		case !quoted && isBlank(c):
			return b.String(), i, nil
		default:
			b.WriteByte(c)
		}
	}
	if quoted {
		return "", 0, fmt.Errorf("unterminated quoted string in connection info string")
	}
	return b.String(), i, nil
}

func isBlank(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

func skipBlanks(s string, i int) int {
	for i < len(s) && isBlank(s[i]) {
		i++
	}
	return i
}

// parseURL is libpq's conninfo_uri_parse:
// postgresql://[user[:password]@][host[:port][,...]][/dbname][?key=value&...],
// with %XX escapes anywhere, [v6] addresses, and a socket directory as an
// empty host with ?host=/dir.
func parseURL(s string) (Settings, error) {
	rest := s[strings.Index(s, "://")+3:]
	out := Settings{}
	authority, tail := cutAny(rest, "/?")
	if at := strings.LastIndexByte(authority, '@'); at >= 0 {
		if err := out.setUserInfo(authority[:at]); err != nil {
			return nil, err
		}
		authority = authority[at+1:]
	}
	if err := out.setHosts(authority); err != nil {
		return nil, err
	}
	path, query, _ := strings.Cut(tail, "?")
	if db := strings.TrimPrefix(path, "/"); db != "" {
		if err := out.setEscaped("dbname", db); err != nil {
			return nil, err
		}
	}
	if err := out.setQuery(query); err != nil {
		return nil, fmt.Errorf("invalid URI query: %w", err)
	}
	return out, nil
}

// cutAny splits s before the first byte of seps (the separator stays in
// the second part).
func cutAny(s, seps string) (string, string) {
	if i := strings.IndexAny(s, seps); i >= 0 {
		return s[:i], s[i:]
	}
	return s, ""
}

func (st Settings) setUserInfo(info string) error {
	user, password, hasPassword := strings.Cut(info, ":")
	if err := st.setEscaped("user", user); err != nil {
		return err
	}
	if hasPassword {
		return st.setEscaped("password", password)
	}
	return nil
}

// setHosts reads host[:port] entries separated by commas into host and
// port lists, as libpq keeps several.
func (st Settings) setHosts(authority string) error {
	if authority == "" {
		return nil
	}
	var hosts, ports []string
	anyPort := false
	for _, hp := range strings.Split(authority, ",") {
		host, port, err := splitHostPort(hp)
		if err != nil {
			return err
		}
		if host, err = url.PathUnescape(host); err != nil {
			return fmt.Errorf("invalid percent-encoded token in URI host %q", hp)
		}
		hosts, ports = append(hosts, host), append(ports, port)
		anyPort = anyPort || port != ""
	}
	st.set("host", strings.Join(hosts, ","))
	if anyPort {
		st.set("port", strings.Join(ports, ","))
	}
	return nil
}

func splitHostPort(hp string) (host, port string, err error) {
	if strings.HasPrefix(hp, "[") {
		end := strings.IndexByte(hp, ']')
		if end < 0 {
			return "", "", fmt.Errorf("end of string reached when looking for matching \"]\" in IPv6 host address in URI: %q", hp)
		}
		host, rest := hp[1:end], hp[end+1:]
		if rest != "" && rest[0] != ':' {
			return "", "", fmt.Errorf("unexpected character %q after IPv6 host address in URI: %q", rest[0], hp)
		}
		return host, strings.TrimPrefix(rest, ":"), nil
	}
	host, port, _ = strings.Cut(hp, ":")
	return host, port, nil
}

func (st Settings) setQuery(query string) error {
	if query == "" {
		return nil
	}
	for _, kv := range strings.Split(query, "&") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return fmt.Errorf("missing key/value separator \"=\" in %q", kv)
		}
		key, err := url.PathUnescape(k)
		if err != nil {
			return fmt.Errorf("invalid percent-encoded token %q", k)
		}
		if key == "ssl" && v == "true" { // libpq's alias from JDBC URLs
			key, v = "sslmode", "require"
		}
		if err := st.setEscaped(key, v); err != nil {
			return err
		}
	}
	return nil
}

func (st Settings) setEscaped(key, raw string) error {
	v, err := url.PathUnescape(raw)
	if err != nil {
		return fmt.Errorf("invalid percent-encoded token %q in URI", raw)
	}
	st.set(key, v)
	return nil
}

// set records a value under libpq's name for key; "database" is pgconn's
// alias of dbname.
func (st Settings) set(key, value string) {
	if key == "database" {
		key = "dbname"
	}
	st[key] = value
}

// String is st as a keyword=value conninfo string, keys in order, every
// value quoted.
func (st Settings) String() string {
	keys := make([]string, 0, len(st))
	for k := range st {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(k)
		b.WriteString("='")
		b.WriteString(strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(st[k]))
		b.WriteByte('\'')
	}
	return b.String()
}
