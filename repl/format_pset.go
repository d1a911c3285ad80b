package repl

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// printSettings are psql's \pset options. The expanded "on" state is the
// printer's expanded field (which \gx also sets); auto is kept here.
type printSettings struct {
	format        string // aligned, asciidoc, csv, html, json, markdown, unaligned
	border        int
	null          string
	fieldSep      separator
	recordSep     separator
	csvFieldSep   byte
	tuplesOnly    bool
	footer        bool // psql's default footer, "(N rows)"
	expandedAuto  bool
	title         optional
	tableAttr     optional
	columns       int // \pset columns: the width expanded auto compares with
	pager         int // 0 off, 1 for long output, 2 always
	pagerMinLines int
	unicode       [3]string // border, column, header line styles (stored only)
}

// separator is an unaligned field or record separator, or the zero byte.
type separator struct {
	text string
	zero bool
}

func (s separator) String() string {
	if s.zero {
		return "\x00"
	}
	return s.text
}

// optional is a string setting psql distinguishes from unset (title,
// tableattr).
type optional struct {
	text string
	set  bool
}

func defaultSettings() *printSettings {
	return &printSettings{
		format: "aligned", border: 1, fieldSep: separator{text: "|"},
		recordSep: separator{text: "\n"}, csvFieldSep: ',', footer: true,
		pager: 1, unicode: [3]string{"single", "single", "single"},
	}
}

// psetNames are the options \pset lists, in psql's order.
var psetNames = []string{
	"border", "columns", "csv_fieldsep", "expanded", "fieldsep", "fieldsep_zero",
	"footer", "format", "linestyle", "null", "numericlocale", "pager",
	"pager_min_lines", "recordsep", "recordsep_zero", "tableattr", "title",
	"tuples_only", "unicode_border_linestyle", "unicode_column_linestyle",
	"unicode_header_linestyle",
}

// formats are the output formats \pset format takes: psql's, less latex,
// troff-ms and wrapped, plus json and markdown (which psql lacks).
var formats = []string{"aligned", "asciidoc", "csv", "html", "json", "markdown", "unaligned"}

// errSilent is a setting that succeeded and, as in psql, says nothing: a
// boolean given its value (\t on, \pset footer off).
var errSilent = errors.New("silent")

// pset is psql's do_pset: it changes option name (value nil: toggle,
// show or unset, as psql does per option) and returns psql's message
// saying the new state.
func (pr *printer) pset(name string, value *string) (string, error) {
	ps := pr.settings()
	canon := psetCanonical(name)
	set, ok := psetSetters[canon]
	if !ok {
		return "", fmt.Errorf(`\pset: unknown option: %s`, name)
	}
	if err := set(pr, ps, name, value); err != nil {
		return "", err
	}
	return pr.psetInfo(canon), nil
}

// psetCanonical maps psql's aliases to the option's name.
func psetCanonical(name string) string {
	switch name {
	case "x", "vertical":
		return "expanded"
	case "t":
		return "tuples_only"
	case "T":
		return "tableattr"
	}
	return name
}

type psetSetter func(pr *printer, ps *printSettings, name string, value *string) error

var psetSetters = map[string]psetSetter{
	"border":  func(_ *printer, ps *printSettings, _ string, v *string) error { setInt(&ps.border, v); return nil },
	"columns": func(_ *printer, ps *printSettings, _ string, v *string) error { setInt(&ps.columns, v); return nil },
	"pager_min_lines": func(_ *printer, ps *printSettings, _ string, v *string) error {
		setInt(&ps.pagerMinLines, v)
		return nil
	},
	"csv_fieldsep": setCSVFieldSep,
	"expanded":     setExpanded,
	"fieldsep": func(_ *printer, ps *printSettings, _ string, v *string) error {
		if v != nil {
			ps.fieldSep = separator{text: *v}
		}
		return nil
	},
	"fieldsep_zero": func(_ *printer, ps *printSettings, _ string, _ *string) error {
		ps.fieldSep = separator{zero: true}
		return nil
	},
	"recordsep": func(_ *printer, ps *printSettings, _ string, v *string) error {
		if v != nil {
			ps.recordSep = separator{text: *v}
		}
		return nil
	},
	"recordsep_zero": func(_ *printer, ps *printSettings, _ string, _ *string) error {
		ps.recordSep = separator{zero: true}
		return nil
	},
	"footer":        func(_ *printer, ps *printSettings, n string, v *string) error { return setBool(&ps.footer, n, v) },
	"tuples_only":   func(_ *printer, ps *printSettings, n string, v *string) error { return setBool(&ps.tuplesOnly, n, v) },
	"numericlocale": setNumericLocale,
	"format":        setFormat,
	"linestyle":     setLineStyle,
	"null": func(_ *printer, ps *printSettings, _ string, v *string) error {
		if v != nil {
			ps.null = *v
		}
		return nil
	},
	"pager": setPager,
	"tableattr": func(_ *printer, ps *printSettings, _ string, v *string) error {
		setOptional(&ps.tableAttr, v)
		return nil
	},
	"title":                    func(_ *printer, ps *printSettings, _ string, v *string) error { setOptional(&ps.title, v); return nil },
	"unicode_border_linestyle": unicodeSetter(0, "border"),
	"unicode_column_linestyle": unicodeSetter(1, "column"),
	"unicode_header_linestyle": unicodeSetter(2, "header"),
}

// setInt is psql's atoi: a value that is no number is 0.
func setInt(p *int, v *string) {
	if v == nil {
		return
	}
	s := strings.TrimSpace(*v)
	end := 0
	for end < len(s) && (s[end] >= '0' && s[end] <= '9' || end == 0 && (s[0] == '-' || s[0] == '+')) {
		end++
	}
	n, _ := strconv.Atoi(s[:end])
	*p = n
}

func setOptional(p *optional, v *string) {
	if v == nil {
		*p = optional{}
		return
	}
	*p = optional{text: *v, set: true}
}

// setBool toggles without a value; with one it is silent, as psql is.
func setBool(p *bool, name string, v *string) error {
	if v == nil {
		*p = !*p
		return nil
	}
	b, ok := psqlBool(*v)
	if !ok {
		return fmt.Errorf(`unrecognized value "%s" for "%s": Boolean expected`, *v, name)
	}
	*p = b
	return errSilent
}

// psqlBool is psql's ParseVariableBool: any prefix of true, false, yes, no,
// at least two letters of on and off, 1 and 0, in any case.
func psqlBool(v string) (value, ok bool) {
	l := strings.ToLower(v)
	prefix := func(word string, min int) bool {
		return len(l) >= min && len(l) <= len(word) && strings.HasPrefix(word, l)
	}
	switch {
	case prefix("true", 1), prefix("yes", 1), prefix("on", 2), l == "1":
		return true, true
	case prefix("false", 1), prefix("no", 1), prefix("off", 2), l == "0":
		return false, true
	}
	return false, false
}

func setCSVFieldSep(_ *printer, ps *printSettings, _ string, v *string) error {
	switch {
	case v == nil:
	case len(*v) != 1:
		return errors.New(`\pset: csv_fieldsep must be a single one-byte character`)
	case strings.ContainsAny(*v, "\"\n\r"):
		return errors.New(`\pset: csv_fieldsep cannot be a double quote, a newline, or a carriage return`)
	default:
		ps.csvFieldSep = (*v)[0]
	}
	return nil
}

// setExpanded takes on, off or auto; without a value it toggles, auto
// counting as on.
func setExpanded(pr *printer, ps *printSettings, name string, v *string) error {
	switch {
	case v == nil:
		pr.expanded = !pr.expanded && !ps.expandedAuto
		ps.expandedAuto = false
	case strings.EqualFold(*v, "auto"):
		pr.expanded, ps.expandedAuto = false, true
	default:
		b, ok := psqlBool(*v)
		if !ok {
			return fmt.Errorf("unrecognized value \"%s\" for \"%s\"\nAvailable values are: on, off, auto.", *v, name)
		}
		pr.expanded, ps.expandedAuto = b, false
	}
	return nil
}

func setPager(_ *printer, ps *printSettings, name string, v *string) error {
	switch {
	case v == nil && ps.pager == 1:
		ps.pager = 0
	case v == nil:
		ps.pager = 1
	case strings.EqualFold(*v, "always"):
		ps.pager = 2
	default:
		b, ok := psqlBool(*v)
		if !ok {
			return fmt.Errorf("unrecognized value \"%s\" for \"%s\"\nAvailable values are: on, off, always.", *v, name)
		}
		ps.pager = 0
		if b {
			ps.pager = 1
		}
	}
	return nil
}

// setNumericLocale accepts only off: the locale's digit grouping is not
// implemented.
func setNumericLocale(_ *printer, _ *printSettings, name string, v *string) error {
	on := true
	if v != nil {
		b, ok := psqlBool(*v)
		if !ok {
			return fmt.Errorf(`unrecognized value "%s" for "%s": Boolean expected`, *v, name)
		}
		on = b
	}
	if on {
		return errors.New(`\pset: numericlocale is not supported`)
	}
	return errSilent
}

// setFormat takes any unambiguous prefix of a format's name, as psql.
func setFormat(_ *printer, ps *printSettings, _ string, v *string) error {
	if v == nil {
		return nil
	}
	match := ""
	for _, f := range formats {
		if len(*v) <= len(f) && strings.EqualFold(f[:len(*v)], *v) {
			if match != "" {
				return fmt.Errorf(`\pset: ambiguous abbreviation "%s" matches both "%s" and "%s"`, *v, match, f)
			}
			match = f
		}
	}
	if match == "" {
		return fmt.Errorf(`\pset: allowed formats are %s`, strings.Join(formats, ", "))
	}
	ps.format = match
	return nil
}

// setLineStyle accepts psql's ascii only; old-ascii and unicode are not
// implemented.
func setLineStyle(_ *printer, _ *printSettings, _ string, v *string) error {
	if v == nil || len(*v) <= len("ascii") && strings.EqualFold("ascii"[:len(*v)], *v) {
		return nil
	}
	return errors.New(`\pset: only the ascii line style is supported`)
}

// unicodeSetter stores a unicode line style psql would use with linestyle
// unicode; \pset lists it.
func unicodeSetter(i int, what string) psetSetter {
	return func(_ *printer, ps *printSettings, _ string, v *string) error {
		if v == nil {
			return nil
		}
		for _, s := range []string{"single", "double"} {
			if len(*v) <= len(s) && strings.EqualFold(s[:len(*v)], *v) {
				ps.unicode[i] = s
				return nil
			}
		}
		return fmt.Errorf(`\pset: allowed Unicode %s line styles are single, double`, what)
	}
}

// psetInfo is psql's printPsetInfo: the sentence saying an option's state.
func (pr *printer) psetInfo(name string) string {
	ps := pr.settings()
	switch name {
	case "border":
		return fmt.Sprintf("Border style is %d.", ps.border)
	case "columns":
		if ps.columns == 0 {
			return "Target width is unset."
		}
		return fmt.Sprintf("Target width is %d.", ps.columns)
	case "expanded":
		return "Expanded display is " + map[string]string{"on": "on", "off": "off", "auto": "used automatically"}[pr.expandedMode()] + "."
	case "csv_fieldsep":
		return fmt.Sprintf("Field separator for CSV is \"%c\".", ps.csvFieldSep)
	case "fieldsep", "fieldsep_zero":
		if ps.fieldSep.zero {
			return "Field separator is zero byte."
		}
		return fmt.Sprintf("Field separator is \"%s\".", ps.fieldSep.text)
	case "recordsep", "recordsep_zero":
		return recordSepInfo(ps.recordSep)
	case "footer":
		return "Default footer is " + onOff(ps.footer) + "."
	case "tuples_only":
		return "Tuples only is " + onOff(ps.tuplesOnly) + "."
	case "numericlocale":
		return "Locale-adjusted numeric output is off."
	case "format":
		return fmt.Sprintf("Output format is %s.", ps.format)
	case "linestyle":
		return "Line style is ascii."
	case "null":
		return fmt.Sprintf("Null display is \"%s\".", ps.null)
	}
	return pr.psetInfoMore(ps, name)
}

func (pr *printer) psetInfoMore(ps *printSettings, name string) string {
	switch name {
	case "pager":
		return [...]string{"Pager usage is off.", "Pager is used for long output.", "Pager is always used."}[ps.pager]
	case "pager_min_lines":
		if ps.pagerMinLines == 1 {
			return "Pager won't be used for less than 1 line."
		}
		return fmt.Sprintf("Pager won't be used for less than %d lines.", ps.pagerMinLines)
	case "tableattr":
		if !ps.tableAttr.set {
			return "Table attributes unset."
		}
		return fmt.Sprintf("Table attributes are \"%s\".", ps.tableAttr.text)
	case "title":
		if !ps.title.set {
			return "Title is unset."
		}
		return fmt.Sprintf("Title is \"%s\".", ps.title.text)
	case "unicode_border_linestyle":
		return fmt.Sprintf("Unicode border line style is \"%s\".", ps.unicode[0])
	case "unicode_column_linestyle":
		return fmt.Sprintf("Unicode column line style is \"%s\".", ps.unicode[1])
	case "unicode_header_linestyle":
		return fmt.Sprintf("Unicode header line style is \"%s\".", ps.unicode[2])
	}
	return ""
}

func recordSepInfo(s separator) string {
	switch {
	case s.zero:
		return "Record separator is zero byte."
	case s.text == "\n":
		return "Record separator is <newline>."
	}
	return fmt.Sprintf("Record separator is \"%s\".", s.text)
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// expandedMode is on, off or auto.
func (pr *printer) expandedMode() string {
	switch {
	case pr.expanded:
		return "on"
	case pr.settings().expandedAuto:
		return "auto"
	}
	return "off"
}

// psetList is \pset without arguments: every option and its value, as
// psql's pset_value_string shows them.
func (pr *printer) psetList() string {
	ps := pr.settings()
	var b strings.Builder
	for _, name := range psetNames {
		fmt.Fprintf(&b, "%-24s %s\n", name, pr.psetValue(ps, name))
	}
	return b.String()
}

func (pr *printer) psetValue(ps *printSettings, name string) string {
	switch name {
	case "border":
		return strconv.Itoa(ps.border)
	case "columns":
		return strconv.Itoa(ps.columns)
	case "csv_fieldsep":
		return psetQuoted(string(ps.csvFieldSep))
	case "expanded":
		return pr.expandedMode()
	case "fieldsep":
		return psetQuoted(ps.fieldSep.text)
	case "fieldsep_zero":
		return onOff(ps.fieldSep.zero)
	case "footer":
		return onOff(ps.footer)
	case "format":
		return ps.format
	case "linestyle":
		return "ascii"
	case "null":
		return psetQuoted(ps.null)
	case "numericlocale":
		return "off"
	case "pager":
		return strconv.Itoa(ps.pager)
	case "pager_min_lines":
		return strconv.Itoa(ps.pagerMinLines)
	}
	return pr.psetValueMore(ps, name)
}

func (pr *printer) psetValueMore(ps *printSettings, name string) string {
	switch name {
	case "recordsep":
		return psetQuoted(ps.recordSep.text)
	case "recordsep_zero":
		return onOff(ps.recordSep.zero)
	case "tableattr":
		return psetOptional(ps.tableAttr)
	case "title":
		return psetOptional(ps.title)
	case "tuples_only":
		return onOff(ps.tuplesOnly)
	case "unicode_border_linestyle":
		return ps.unicode[0]
	case "unicode_column_linestyle":
		return ps.unicode[1]
	case "unicode_header_linestyle":
		return ps.unicode[2]
	}
	return ""
}

func psetOptional(o optional) string {
	if !o.set {
		return ""
	}
	return psetQuoted(o.text)
}

// psetQuoted is psql's pset_quoted_string: single quotes, with quotes and
// newlines backslash-escaped.
func psetQuoted(s string) string {
	return "'" + strings.NewReplacer("'", `\'`, "\n", `\n`).Replace(s) + "'"
}
