package session

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/magmalake/magmalake/maintenance"
	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/stmt"
)

// ServerVersion is what clients see; pgjdbc, libpq and SQLAlchemy parse it.
const (
	ServerVersion    = "15.8"
	ServerVersionNum = "150008"
	VersionString    = "PostgreSQL 15.8 (magmalake) on x86_64-pc-linux-gnu, compiled by Go, 64-bit"
)

// setting is one run-time parameter as PostgreSQL 15 reports it.
type setting struct {
	def      string
	report   bool // sent as ParameterStatus at connect and when changed
	readOnly bool
	check    func(v string) (string, error)
	// merge is check for a value read against the current one (DateStyle
	// keeps the part a SET leaves out).
	merge func(cur, v string) (string, error)
}

// settingDefs are the parameters clients read or set at connect. Names are
// lower case; lookups fold case as PostgreSQL does.
func settingDefs() map[string]setting {
	return map[string]setting{
		"application_name":                    {def: "", report: true},
		"client_encoding":                     {def: "UTF8", report: true, check: checkEncoding},
		"datestyle":                           {def: "ISO, MDY", report: true, merge: mergeDateStyle},
		"default_transaction_read_only":       {def: "off", report: true, check: boolCheck("default_transaction_read_only")},
		"in_hot_standby":                      {def: "off", report: true, readOnly: true},
		"integer_datetimes":                   {def: "on", report: true, readOnly: true},
		"intervalstyle":                       {def: "postgres", report: true, check: onlyHonoured("IntervalStyle", enumCheck("IntervalStyle", "postgres", "postgres_verbose", "sql_standard", "iso_8601"), "postgres", "intervals are output in the postgres style")},
		"is_superuser":                        {def: "on", report: true, readOnly: true},
		"server_encoding":                     {def: "UTF8", report: true, readOnly: true},
		"server_version":                      {def: ServerVersion, report: true, readOnly: true},
		"server_version_num":                  {def: ServerVersionNum, readOnly: true},
		"session_authorization":               {def: "", report: true},
		"standard_conforming_strings":         {def: "on", report: true, check: checkStandardStrings},
		"timezone":                            {def: "UTC", report: true, check: checkTimeZone},
		"extra_float_digits":                  {def: "1", check: checkExtraFloatDigits},
		"search_path":                         {def: `"$user", public`},
		"statement_timeout":                   {def: "0", check: durationCheck("statement_timeout")},
		"lock_timeout":                        {def: "0", check: durationCheck("lock_timeout")},
		"idle_in_transaction_session_timeout": {def: "0", check: durationCheck("idle_in_transaction_session_timeout")},
		"transaction_isolation":               {def: "read committed", check: enumCheck("transaction_isolation", isolationLevels...)},
		"default_transaction_isolation":       {def: "read committed", check: enumCheck("default_transaction_isolation", isolationLevels...)},
		"transaction_read_only":               {def: "off", readOnly: true},
		"max_identifier_length":               {def: "63", readOnly: true},
		"bytea_output":                        {def: "hex", check: onlyHonoured("bytea_output", enumCheck("bytea_output", "escape", "hex"), "hex", "bytea values are output in hex")},
		"client_min_messages":                 {def: "notice", check: enumCheck("client_min_messages", messageLevels...)},
		"geqo":                                {def: "on", check: boolCheck("geqo")},
		"jit":                                 {def: "off", check: boolCheck("jit")},
		"max_index_keys":                      {def: "32", readOnly: true},
		"block_size":                          {def: "8192", readOnly: true},
		"lc_collate":                          {def: "C", readOnly: true},
		"lc_ctype":                            {def: "C", readOnly: true},
		"lc_messages":                         {def: "C"},
		"lc_monetary":                         {def: "C"},
		"lc_numeric":                          {def: "C"},
		"lc_time":                             {def: "C"},
		"partition_overwrite_mode":            {def: "static", check: enumCheck("partition_overwrite_mode", "static", "dynamic")},
		"magmalake.equality_deletes":          {def: "off", check: boolCheck("magmalake.equality_deletes")},
		"magmalake.progress":                  {def: "off", check: boolCheck("magmalake.progress")},
		"magmalake.branch":                    {def: "", check: checkBranchName},
		maintenance.OrphanMinRetentionSetting: {def: "1h", check: maintenance.CheckMinRetention},
		"max_stack_depth":                     {def: "2MB", check: checkStackDepth},
		"work_mem":                            {def: "256MB", check: checkWorkMem},
		// Logging (log_settings.go): the server's start values are the defaults.
		"log_connections":            {def: "off", readOnly: true, check: boolCheck("log_connections")},
		"log_disconnections":         {def: "off", readOnly: true, check: boolCheck("log_disconnections")},
		"log_statement":              {def: "none", check: checkLogStatement},
		"log_min_duration_statement": {def: "-1", check: checkMinDuration},
	}
}

// displayName restores PostgreSQL's spelling for ParameterStatus.
var reportNames = map[string]string{
	"datestyle":     "DateStyle",
	"intervalstyle": "IntervalStyle",
	"timezone":      "TimeZone",
}

// Settings is one session's parameter values.
type Settings struct {
	defs   map[string]setting
	values map[string]string
	block  *settingsBlock // inside a transaction block (see tx_settings.go)
}

// newSettings starts a session's parameters: the server's start values
// (serve -c) as defaults, then what the client sent at connect (see
// startup_options.go), which become the session's defaults, as in
// PostgreSQL: RESET returns to them. An unknown parameter or an invalid
// value fails, to refuse the connection.
func newSettings(info stmt.SessionInfo, serverDefaults map[string]string) (*Settings, error) {
	s := (&Settings{defs: settingDefs(), values: map[string]string{}}).withServerDefaults(serverDefaults)
	s.values["session_authorization"] = info.User
	list, err := startupSettings(info)
	if err != nil {
		return nil, err
	}
	for _, st := range list {
		if err := s.setStartup(st); err != nil {
			return nil, err
		}
	}
	s.endIsolation() // outside a block it reads default_transaction_isolation
	return s, nil
}

// setStartup applies one startup setting as the parameter's default.
func (s *Settings) setStartup(st startupSetting) error {
	if st.err != nil {
		return st.err
	}
	n := strings.ToLower(st.name)
	if _, err := s.Set(st.name, st.value); err != nil {
		var se *pgerr.Error
		if st.driver && n == "timezone" && errors.As(err, &se) && se.Code == pgerr.FeatureNotSupported {
			// A driver's own time zone (pgjdbc sends the Java VM's): the
			// session stays in UTC, as ParameterStatus tells the client,
			// rather than no BI tool off UTC connecting at all. SET
			// TimeZone still refuses it.
			return nil
		}
		return err
	}
	if n == "transaction_isolation" { // as PostgreSQL refuses it at connect
		return pgerr.Errorf(pgerr.ActiveSQLTransaction, "SET TRANSACTION ISOLATION LEVEL must be called before any query")
	}
	if d, ok := s.defs[n]; ok {
		d.def = s.values[n]
		s.defs[n] = d
		delete(s.values, n)
	}
	return nil
}

// Get returns the value of a parameter, 42704 when it does not exist.
func (s *Settings) Get(name string) (string, error) {
	n := strings.ToLower(name)
	if v, ok := s.values[n]; ok {
		return v, nil
	}
	if d, ok := s.defs[n]; ok {
		return d.def, nil
	}
	if strings.Contains(n, ".") { // custom placeholder variables, as in PostgreSQL
		return "", pgerr.Errorf(pgerr.UndefinedObject, "unrecognized configuration parameter \"%s\"", name)
	}
	return "", pgerr.Errorf(pgerr.UndefinedObject, "unrecognized configuration parameter \"%s\"", name)
}

// Set changes a parameter; it returns the ParameterStatus to send, if any.
func (s *Settings) Set(name, value string) (*stmt.ParameterChange, error) {
	n := strings.ToLower(name)
	d, ok := s.defs[n]
	if !ok {
		if strings.Contains(n, ".") {
			s.values[n] = value
			return nil, nil
		}
		return nil, pgerr.Errorf(pgerr.UndefinedObject, "unrecognized configuration parameter \"%s\"", name)
	}
	if d.readOnly {
		return nil, &pgerr.Error{Code: pgerr.CantChangeRuntimeParam, Message: "parameter \"" + n + "\" cannot be changed"}
	}
	if d.check != nil {
		v, err := d.check(value)
		if err != nil {
			return nil, err
		}
		value = v
	}
	if d.merge != nil {
		cur, _ := s.Get(n)
		v, err := d.merge(cur, value)
		if err != nil {
			return nil, err
		}
		value = v
	}
	s.values[n] = value
	if d.report {
		return &stmt.ParameterChange{Name: reportName(n), Value: value}, nil
	}
	return nil, nil
}

// Reset restores a parameter's default.
func (s *Settings) Reset(name string) (*stmt.ParameterChange, error) {
	n := strings.ToLower(name)
	d, ok := s.defs[n]
	if !ok {
		return nil, pgerr.Errorf(pgerr.UndefinedObject, "unrecognized configuration parameter \"%s\"", name)
	}
	if d.readOnly {
		return nil, &pgerr.Error{Code: pgerr.CantChangeRuntimeParam, Message: "parameter \"" + n + "\" cannot be changed"}
	}
	delete(s.values, n)
	if d.report {
		return &stmt.ParameterChange{Name: reportName(n), Value: d.def}, nil
	}
	return nil, nil
}

// ResetAll restores every parameter (RESET ALL, DISCARD ALL).
func (s *Settings) ResetAll() []stmt.ParameterChange {
	if s.block != nil {
		clear(s.block.local) // the defaults are now the session values
	}
	var out []stmt.ParameterChange
	for _, n := range s.names() {
		d := s.defs[n]
		// transaction_isolation is the transaction's (PostgreSQL's RESET ALL
		// leaves it); outside a block it follows the default, below.
		if d.readOnly || n == "session_authorization" || n == "transaction_isolation" {
			continue
		}
		if _, set := s.values[n]; !set {
			continue
		}
		delete(s.values, n)
		if d.report {
			out = append(out, stmt.ParameterChange{Name: reportName(n), Value: d.def})
		}
	}
	if s.block == nil {
		s.endIsolation()
	}
	return out
}

// Reported is the ParameterStatus set sent after authentication.
func (s *Settings) Reported() map[string]string {
	out := map[string]string{}
	for n, d := range s.defs {
		if d.report {
			v, _ := s.Get(n)
			out[reportName(n)] = v
		}
	}
	return out
}

// All lists every parameter with its value, sorted (SHOW ALL).
func (s *Settings) All() [][2]string {
	var out [][2]string
	for _, n := range s.names() {
		v, _ := s.Get(n)
		out = append(out, [2]string{n, v})
	}
	return out
}

func (s *Settings) names() []string {
	names := make([]string, 0, len(s.defs))
	for n := range s.defs {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func reportName(n string) string {
	if r, ok := reportNames[n]; ok {
		return r
	}
	return n
}

// parseBool reads a Boolean as PostgreSQL's parse_bool does: any prefix
// of true, false, yes or no, on or off (two letters at least), 1 or 0, in
// any case.
func parseBool(v string) (b, ok bool) {
	l := strings.ToLower(v)
	prefixOf := func(word string, least int) bool {
		return len(l) >= least && strings.HasPrefix(word, l)
	}
	switch {
	case prefixOf("true", 1), prefixOf("yes", 1), prefixOf("on", 2), l == "1":
		return true, true
	case prefixOf("false", 1), prefixOf("no", 1), prefixOf("off", 2), l == "0":
		return false, true
	}
	return false, false
}

// boolCheck is the check of the Boolean parameter name: on or off.
func boolCheck(name string) func(string) (string, error) {
	return func(v string) (string, error) {
		b, ok := parseBool(v)
		if !ok {
			return "", pgerr.Errorf(pgerr.InvalidParameterValue, "parameter \"%s\" requires a Boolean value", name)
		}
		if b {
			return "on", nil
		}
		return "off", nil
	}
}

func checkEncoding(v string) (string, error) {
	switch strings.ToUpper(strings.ReplaceAll(strings.TrimSpace(v), "-", "")) {
	case "UTF8", "UNICODE":
		return "UTF8", nil
	case "SQL_ASCII":
		return "SQL_ASCII", nil
	}
	return "", pgerr.Errorf(pgerr.FeatureNotSupported, "client_encoding \"%s\" is not supported; only UTF8", v)
}

func checkStandardStrings(v string) (string, error) {
	b, err := boolCheck("standard_conforming_strings")(v)
	if err != nil {
		return "", err
	}
	if b == "off" {
		return "", pgerr.Errorf(pgerr.FeatureNotSupported, "standard_conforming_strings cannot be turned off")
	}
	return b, nil
}

func checkTimeZone(v string) (string, error) {
	switch strings.ToUpper(strings.TrimSpace(v)) {
	case "UTC", "GMT", "ZULU", "Z", "ETC/UTC", "+00", "+00:00", "0", "UCT", "ETC/GMT":
		return "UTC", nil
	}
	return "", &pgerr.Error{Code: pgerr.FeatureNotSupported,
		Message: fmt.Sprintf("time zone \"%s\" is not supported; magmalake sessions run in UTC", v),
		Hint:    "Set TimeZone to UTC. pgjdbc sends the Java VM's time zone: run it with -Duser.timezone=UTC."}
}

// enumCheck is the check of an enum parameter: one of values, in any
// case, else PostgreSQL's error listing them.
func enumCheck(name string, values ...string) func(string) (string, error) {
	return func(v string) (string, error) {
		l := strings.ToLower(strings.TrimSpace(v))
		if slices.Contains(values, l) {
			return l, nil
		}
		return "", &pgerr.Error{Code: pgerr.InvalidParameterValue,
			Message: fmt.Sprintf("invalid value for parameter \"%s\": \"%s\"", name, v),
			Hint:    "Available values: " + strings.Join(values, ", ") + "."}
	}
}

// onlyHonoured refuses, with 0A000, a valid value other than the one
// magmalake honours (why says what it does instead), rather than
// accepting a setting it would ignore.
func onlyHonoured(name string, check func(string) (string, error), honoured, why string) func(string) (string, error) {
	return func(v string) (string, error) {
		c, err := check(v)
		if err != nil || c == honoured {
			return c, err
		}
		return "", pgerr.Errorf(pgerr.FeatureNotSupported, "%s \"%s\" is not supported: %s", name, c, why)
	}
}

// isolationLevels and messageLevels are PostgreSQL's enum values, in its order.
var (
	isolationLevels = []string{"serializable", "repeatable read", "read committed", "read uncommitted"}
	messageLevels   = []string{"debug5", "debug4", "debug3", "debug2", "debug1", "log", "notice", "warning", "error"}
)

// checkExtraFloatDigits takes PostgreSQL's range, -15 to 3. Floats are
// always output exactly (shortest round trip), which is what 1 to 3 ask
// for; fewer digits are not supported.
func checkExtraFloatDigits(v string) (string, error) {
	n, err := strconv.Atoi(strings.TrimSpace(v))
	switch {
	case err != nil:
		return "", pgerr.Errorf(pgerr.InvalidParameterValue, "invalid value for parameter \"extra_float_digits\": \"%s\"", v)
	case n < -15 || n > 3:
		return "", pgerr.Errorf(pgerr.InvalidParameterValue, "%d is outside the valid range for parameter \"extra_float_digits\" (-15 .. 3)", n)
	case n < 1:
		return "", pgerr.Errorf(pgerr.FeatureNotSupported, "extra_float_digits %d is not supported: floats are output exactly (shortest round trip), as 1 to 3 ask", n)
	}
	return strconv.Itoa(n), nil
}

// visible keeps the notices client_min_messages lets through, as
// PostgreSQL does: a NOTICE at notice or below, a WARNING at warning or
// below; other severities (INFO) always.
func (s *Settings) visible(ns []stmt.Notice) []stmt.Notice {
	level, _ := s.Get("client_min_messages")
	min := slices.Index(messageLevels, level)
	var out []stmt.Notice
	for _, n := range ns {
		if rank := slices.Index(messageLevels, strings.ToLower(n.Severity)); rank < 0 || rank >= min {
			out = append(out, n)
		}
	}
	return out
}
