package session

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/magmalake/magmalake/pgerr"
)

// The logging parameters PostgreSQL has. log_connections and
// log_disconnections are the wire layer's and fixed at server start (SHOW
// reports them); log_statement and log_min_duration_statement are this
// package's, and a session may SET them (PostgreSQL lets superusers, and
// every magmalake user is one).

// startOnly are the read-only parameters a server may still set at start.
var startOnly = map[string]bool{"log_connections": true, "log_disconnections": true}

// CheckServerSetting validates a parameter given at server start (serve -c
// name=value, as postgres -c): any parameter a session may SET, and the
// start-only ones. It returns the name as looked up and the value as SHOW
// reports it; the server's values are every session's defaults, what RESET
// returns to. Names fold case and accept '-' for '_', as postgres -c does.
func CheckServerSetting(name, value string) (string, string, error) {
	n := strings.ReplaceAll(strings.ToLower(strings.TrimSpace(name)), "-", "_")
	s := &Settings{defs: settingDefs(), values: map[string]string{}}
	d, ok := s.defs[n]
	if !ok || n == "session_authorization" || (d.readOnly && !startOnly[n]) {
		return n, "", fmt.Errorf("%q is not a parameter the server sets at start", name)
	}
	d.readOnly = false
	s.defs[n] = d
	if _, err := s.Set(n, value); err != nil {
		var se *pgerr.Error
		if errors.As(err, &se) && se.Hint != "" {
			return n, "", fmt.Errorf("%s (%s)", se.Message, se.Hint)
		}
		return n, "", err
	}
	return n, s.values[n], nil
}

// checkServerSettings validates EngineOptions.Settings.
func checkServerSettings(m map[string]string) (map[string]string, error) {
	out := make(map[string]string, len(m))
	for k, v := range m {
		n, cv, err := CheckServerSetting(k, v)
		if err != nil {
			return nil, fmt.Errorf("setting %s: %w", k, err)
		}
		out[n] = cv
	}
	return out, nil
}

// withServerDefaults makes the server's start values the defaults of s.
func (s *Settings) withServerDefaults(m map[string]string) *Settings {
	for n, v := range m {
		if d, ok := s.defs[n]; ok {
			d.def = v
			s.defs[n] = d
		}
	}
	return s
}

// logStatementLevels are log_statement's values, each logging more.
var logStatementLevels = []string{"none", "ddl", "mod", "all"}

func checkLogStatement(v string) (string, error) {
	l := strings.ToLower(strings.TrimSpace(v))
	if slices.Contains(logStatementLevels, l) {
		return l, nil
	}
	return "", &pgerr.Error{Code: pgerr.InvalidParameterValue,
		Message: fmt.Sprintf("invalid value for parameter \"log_statement\": \"%s\"", v),
		Hint:    "Available values: " + strings.Join(logStatementLevels, ", ") + "."}
}

// checkMinDuration reads log_min_duration_statement: -1 (off), or
// milliseconds, plain or with a unit as statement_timeout takes them.
func checkMinDuration(v string) (string, error) {
	if strings.TrimSpace(v) == "-1" {
		return "-1", nil
	}
	out, err := checkDuration("log_min_duration_statement", v)
	if err != nil {
		return "", &pgerr.Error{Code: pgerr.InvalidParameterValue,
			Message: fmt.Sprintf("invalid value for parameter \"log_min_duration_statement\": \"%s\"", v),
			Hint:    "Use -1 (off), 0 (every statement) or a duration such as 250ms or 1s."}
	}
	return out, nil
}

// minDuration is the session's log_min_duration_statement; off is false
// when it is -1.
func (s *Settings) minDuration() (d time.Duration, on bool) {
	v, _ := s.Get("log_min_duration_statement")
	if v == "-1" {
		return 0, false
	}
	d, ok := parseDuration(v)
	return d, ok
}
