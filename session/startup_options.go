package session

import (
	"slices"
	"strings"

	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/stmt"
)

// A client sets parameters at connect two ways, as in PostgreSQL: as
// startup packet parameters named after them (pgjdbc's DateStyle,
// extra_float_digits, search_path from currentSchema), and through the
// "options" parameter (psql's PGOPTIONS, libpq's options=), which holds
// server command-line switches: -c name=value or --name=value. PostgreSQL
// applies the switches first, then the named parameters, and refuses the
// connection (FATAL) on an unknown parameter or an invalid value; so do we.

// startupSetting is one parameter value a client sent at connect, or,
// when err is set, a switch that fails the connection at that point.
type startupSetting struct {
	name, value string
	err         error
	// driver: a named startup parameter, which drivers send on their own
	// (pgjdbc its Java VM's TimeZone), not a -c switch the user gave.
	driver bool
}

// startupKeys are the startup packet parameters that are not settings
// (user and database are read by the wire layer).
var startupKeys = []string{"user", "database", "options", "replication"}

// startupSettings lists the settings of a connection's startup parameters
// in the order they apply: the switches of options, then the other
// parameters by name (the packet's order is not kept; names differ).
func startupSettings(info stmt.SessionInfo) ([]startupSetting, error) {
	if err := checkReplication(info.Options["replication"]); err != nil {
		return nil, err
	}
	out := optionSwitches(splitOptions(info.Options["options"]))
	if info.ApplicationName != "" {
		out = append(out, startupSetting{name: "application_name", value: info.ApplicationName})
	}
	named := make([]string, 0, len(info.Options))
	for k := range info.Options {
		if !slices.Contains(startupKeys, k) {
			named = append(named, k)
		}
	}
	slices.Sort(named)
	for _, k := range named {
		out = append(out, startupSetting{name: k, value: info.Options[k], driver: true})
	}
	return out, nil
}

// checkReplication refuses a replication connection (physical, or logical
// with "database"); absent or false is an ordinary connection.
func checkReplication(v string) error {
	if v == "" {
		return nil
	}
	switch strings.ToLower(v) {
	case "database":
	default:
		b, ok := parseBool(v)
		if !ok {
			return &pgerr.Error{Code: pgerr.InvalidParameterValue,
				Message: `invalid value for parameter "replication": "` + v + `"`,
				Hint:    `Valid values are: "false", 0, "true", 1, "database".`}
		}
		if !b {
			return nil
		}
	}
	return pgerr.Errorf(pgerr.FeatureNotSupported, "replication connections are not supported")
}

// splitOptions cuts options into words at white space, as PostgreSQL's
// pg_split_opts does: a backslash makes the next character (a space, a
// backslash) part of the word, so "-c search_path=a,\ b" is two words.
func splitOptions(s string) []string {
	var words []string
	var w strings.Builder
	inWord, escaped := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case escaped:
			w.WriteByte(c)
			escaped = false
		case c == '\\':
			escaped, inWord = true, true
		case isOptionSpace(c):
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		default:
			w.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, w.String())
	}
	return words
}

// isOptionSpace is C's isspace in the C locale.
func isOptionSpace(c byte) bool {
	return c == ' ' || (c >= '\t' && c <= '\r')
}

// Switches PostgreSQL's backend takes from a client (getopt's
// "B:bc:C:D:d:EeFf:h:ijk:lN:nOPp:r:S:sTt:v:W:-:"): the letters that take a
// value, and those that do not.
const (
	switchesWithValue = "BcCDdfhkNprStvW-"
	switchesFlag      = "bEeFijlnOPsT"
)

// optionSwitches reads words as the server's command line, getopt-style:
// switches may be grouped (-eS 100) and a value may follow its letter
// (-cname=value) or be the next word; "--" ends the switches. As in
// PostgreSQL, each switch applies in turn, a letter that is not a switch
// (or a switch missing its value) fails the connection there, and a word
// that is not a switch fails it after all the switches.
func optionSwitches(words []string) []startupSetting {
	var out []startupSetting
	var stray []string // words that are not switches
	for i := 0; i < len(words); i++ {
		w := words[i]
		if w == "--" {
			stray = append(stray, words[i+1:]...)
			break
		}
		if len(w) < 2 || w[0] != '-' {
			stray = append(stray, w) // getopt moves such words after the switches
			continue
		}
		set, next, ok := wordSwitches(words, i)
		out = append(out, set...)
		if !ok {
			// PostgreSQL stops at the first switch getopt refuses.
			return append(out, startupSetting{err: invalidArgument(w)})
		}
		i = next
	}
	if len(stray) > 0 {
		out = append(out, startupSetting{err: invalidArgument(stray[0])})
	}
	return out
}

// wordSwitches reads the switches of words[i]; next is the index of the
// last word used (a value may be the next word). ok is false when a letter
// is not a switch or a value is missing.
func wordSwitches(words []string, i int) (set []startupSetting, next int, ok bool) {
	w := words[i]
	for j := 1; j < len(w); j++ {
		letter := w[j]
		if strings.IndexByte(switchesFlag, letter) >= 0 {
			set = append(set, flagSwitch(letter))
			continue
		}
		if strings.IndexByte(switchesWithValue, letter) < 0 {
			return set, i, false
		}
		value := w[j+1:]
		if value == "" {
			if i+1 == len(words) {
				return set, i, false
			}
			i++
			value = words[i]
		}
		return append(set, valueSwitch(letter, value)), i, true
	}
	return set, i, true
}

// valueSwitch is what a switch with a value sets: -c and -- a parameter
// (dashes in its name read as underscores), -S work_mem.
func valueSwitch(letter byte, value string) startupSetting {
	switch letter {
	case 'c', '-':
		name, v, ok := strings.Cut(value, "=")
		if !ok {
			prefix := "-c "
			if letter == '-' {
				prefix = "--"
			}
			return startupSetting{err: pgerr.Errorf(pgerr.SyntaxError, "%s%s requires a value", prefix, value)}
		}
		return startupSetting{name: strings.ReplaceAll(name, "-", "_"), value: v}
	case 'S':
		return startupSetting{name: "work_mem", value: value}
	}
	return startupSetting{err: unsupportedSwitch(letter)}
}

// flagSwitch is what a switch without a value sets: -e the European date
// order.
func flagSwitch(letter byte) startupSetting {
	if letter == 'e' {
		return startupSetting{name: "datestyle", value: "euro"}
	}
	return startupSetting{err: unsupportedSwitch(letter)}
}

// unsupportedSwitch is one of PostgreSQL's other switches: server
// settings (-B, -F, -p, ...), planner and statistics switches, and ones
// PostgreSQL takes only from its own command line.
func unsupportedSwitch(letter byte) error {
	return &pgerr.Error{Code: pgerr.FeatureNotSupported,
		Message: "command-line switch -" + string(letter) + " is not supported in startup options",
		Hint:    "Set parameters with -c name=value."}
}

func invalidArgument(w string) error {
	return &pgerr.Error{Code: pgerr.SyntaxError,
		Message: "invalid command-line argument for server process: " + w,
		Hint:    `Try "postgres --help" for more information.`}
}
