package repl

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Variables psql acts on; the others are only text to interpolate.
const (
	varOnErrorStop = "ON_ERROR_STOP"
	varVerbosity   = "VERBOSITY"
	varEcho        = "ECHO"
)

// variables are psql's variables (\set, -v): names and their text, which
// statements and backslash command arguments interpolate.
type variables map[string]string

// setVar is \set NAME value (and -v NAME=value): the special variables
// change the shell's behaviour, as in psql.
func (sh *Shell) setVar(name, value string) error {
	switch name {
	case varOnErrorStop:
		on, ok := parseBool(value)
		if !ok {
			fmt.Fprintf(sh.pr.errOut, "unrecognized value \"%s\" for \"%s\": Boolean expected\n", value, name)
			return ErrFailed
		}
		sh.StopOnError = on
	case varVerbosity:
		v, ok := map[string]Verbosity{"default": VerbosityDefault, "verbose": VerbosityVerbose, "terse": VerbosityTerse}[value]
		if !ok {
			fmt.Fprintf(sh.pr.errOut, "unrecognized value \"%s\" for \"VERBOSITY\"\nAvailable values are: default, verbose, terse, sqlstate.\n", value)
			return ErrFailed
		}
		sh.pr.verbosity = v
	case varEcho:
		if !slices.Contains([]string{"none", "errors", "queries", "all"}, value) {
			fmt.Fprintf(sh.pr.errOut, "unrecognized value \"%s\" for \"ECHO\"\nAvailable values are: none, errors, queries, all.\n", value)
			return ErrFailed
		}
	}
	if sh.vars == nil {
		sh.vars = map[string]string{}
	}
	sh.vars[name] = value
	return nil
}

func parseBool(v string) (bool, bool) {
	switch strings.ToLower(v) {
	case "on", "true", "yes", "1":
		return true, true
	case "off", "false", "no", "0":
		return false, true
	}
	return false, false
}

// set is \set: no argument lists the variables, else NAME and the
// arguments after it concatenated (psql joins them without spaces).
func (sh *Shell) set(args []string) error {
	if len(args) == 0 {
		names := make([]string, 0, len(sh.vars))
		for n := range sh.vars {
			names = append(names, n)
		}
		slices.Sort(names)
		for _, n := range names {
			fmt.Fprintf(sh.pr.out, "%s = '%s'\n", n, sh.vars[n])
		}
		return nil
	}
	if !validVarName(args[0]) {
		fmt.Fprintf(sh.pr.errOut, "\\set: invalid variable name: \"%s\"\n", args[0])
		return ErrFailed
	}
	return sh.setVar(args[0], strings.Join(args[1:], ""))
}

// unset is \unset NAME.
func (sh *Shell) unset(args []string) error {
	if len(args) != 1 {
		fmt.Fprintln(sh.pr.errOut, `\unset: missing required argument`)
		return ErrFailed
	}
	delete(sh.vars, args[0])
	if args[0] == varOnErrorStop {
		sh.StopOnError = false
	}
	return nil
}

func validVarName(n string) bool {
	if n == "" {
		return false
	}
	for i := 0; i < len(n); i++ {
		if !isIdentChar(n[i]) || n[i] == '$' {
			return false
		}
	}
	return true
}

// interpolate replaces :NAME, :'NAME' and :"NAME" outside literals and
// comments with the variable's value, as a literal, or as an identifier;
// an undefined name and a :: cast are left alone, as psql leaves them.
func (vs variables) interpolate(stmt string) string {
	if len(vs) == 0 || !strings.Contains(stmt, ":") {
		return stmt
	}
	var b strings.Builder
	sc := stmtScanner{src: stmt}
	last := 0
	for sc.pos < len(stmt) {
		start := sc.pos
		if stmt[start] != ':' {
			sc.skipToken()
			continue
		}
		if start+1 < len(stmt) && stmt[start+1] == ':' {
			sc.pos += 2
			continue
		}
		text, end, ok := vs.variableAt(stmt, start)
		if !ok {
			sc.pos++
			continue
		}
		b.WriteString(stmt[last:start])
		b.WriteString(text)
		last, sc.pos = end, end
	}
	if last == 0 {
		return stmt
	}
	b.WriteString(stmt[last:])
	return b.String()
}

// variableAt reads a reference at s[i] (a ':'): its replacement and end.
func (vs variables) variableAt(s string, i int) (string, int, bool) {
	quote := byte(0)
	j := i + 1
	if j < len(s) && (s[j] == '\'' || s[j] == '"') {
		quote = s[j]
		j++
	}
	k := j
	for k < len(s) && isIdentChar(s[k]) && s[k] != '$' {
		k++
	}
	name := s[j:k]
	v, ok := vs[name]
	if name == "" || !ok {
		return "", 0, false
	}
	switch {
	case quote == 0:
		return v, k, true
	case k < len(s) && s[k] == quote && quote == '\'':
		return quoteLiteral(v), k + 1, true
	case k < len(s) && s[k] == quote:
		return `"` + strings.ReplaceAll(v, `"`, `""`) + `"`, k + 1, true
	}
	return "", 0, false
}

// quoteLiteral is PQescapeLiteral's quoting: quotes doubled, and with a
// backslash an E'...' string with backslashes doubled.
func quoteLiteral(v string) string {
	q := "'" + strings.ReplaceAll(v, "'", "''") + "'"
	if strings.Contains(v, `\`) {
		return " E" + strings.ReplaceAll(q, `\`, `\\`)
	}
	return q
}

// metaArgs splits a backslash command's arguments as psql does: blanks
// separate them; 'single quotes' hold blanks, doubled quotes and the escapes
// \n \t \b \r \f and octal; "double quotes" are kept, quotes and all;
// :NAME, :'NAME' and :"NAME" outside quotes are variables. Pieces that
// touch make one argument.
func (vs variables) metaArgs(rest string) ([]string, error) {
	var out []string
	var cur strings.Builder
	inArg := false
	flush := func() {
		if inArg {
			out = append(out, cur.String())
		}
		cur.Reset()
		inArg = false
	}
	for i := 0; i < len(rest); {
		c := rest[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			flush()
			i++
			continue
		case c == '`':
			return nil, errors.New("backquoted commands are not supported")
		case c == '\'':
			s, n := unquoteArg(rest[i:])
			cur.WriteString(s)
			i += n
		case c == '"':
			j := i + 1
			for j < len(rest) && (rest[j] != '"' || (j+1 < len(rest) && rest[j+1] == '"')) {
				if rest[j] == '"' {
					j++
				}
				j++
			}
			j = min(j+1, len(rest))
			cur.WriteString(rest[i:j])
			i = j
		case c == ':':
			if text, end, ok := vs.variableAt(rest, i); ok {
				cur.WriteString(text)
				i = end
			} else {
				cur.WriteByte(c)
				i++
			}
		default:
			cur.WriteByte(c)
			i++
		}
		inArg = true
	}
	flush()
	return out, nil
}

// unquoteArg reads the 'quoted' argument piece s starts with: its text
// and length.
func unquoteArg(s string) (string, int) {
	var b strings.Builder
	i := 1
	for i < len(s) {
		switch c := s[i]; {
		case c == '\'' && i+1 < len(s) && s[i+1] == '\'':
			b.WriteByte('\'')
			i += 2
		case c == '\'':
			return b.String(), i + 1
		case c == '\\' && i+1 < len(s):
			n := unescape(&b, s[i+1:])
			i += 1 + n
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String(), i
}

// unescape writes the escape s starts with (after the backslash) and
// returns its length.
func unescape(b *strings.Builder, s string) int {
	switch s[0] {
	case 'n':
		b.WriteByte('\n')
	case 't':
		b.WriteByte('\t')
	case 'b':
		b.WriteByte('\b')
	case 'r':
		b.WriteByte('\r')
	case 'f':
		b.WriteByte('\f')
	default:
		if s[0] >= '0' && s[0] <= '7' {
			v, n := 0, 0
			for n < 3 && n < len(s) && s[n] >= '0' && s[n] <= '7' {
				v = v*8 + int(s[n]-'0')
				n++
			}
			b.WriteByte(byte(v))
			return n
		}
		b.WriteByte(s[0])
	}
	return 1
}
