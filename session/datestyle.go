package session

import (
	"context"
	"strings"

	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql"
)

// DateStyle is PostgreSQL's pair of an output style and a field order. The
// order governs date/time input here exactly as in PostgreSQL; the output
// style is recorded and reported, but values are always printed in ISO.

// dateStyle is a DateStyle value split into its parts.
type dateStyle struct {
	output string // ISO, SQL, Postgres or German
	order  string // MDY, DMY or YMD
}

func (d dateStyle) String() string { return d.output + ", " + d.order }

// splitDateStyle reads a canonical value ("German, DMY"), falling back to the
// default for anything else.
func splitDateStyle(v string) dateStyle {
	out, order, ok := strings.Cut(v, ", ")
	if !ok {
		return dateStyle{"ISO", "MDY"}
	}
	return dateStyle{out, order}
}

// mergeDateStyle applies a SET DateStyle value to the current one as
// PostgreSQL's check_datestyle does: a part the value leaves out keeps its
// current setting, German implies DMY unless an order is given, and two
// different styles or orders in one value conflict.
func mergeDateStyle(cur, v string) (string, error) {
	if strings.TrimSpace(v) == "" {
		return cur, nil // an empty list changes nothing, as in PostgreSQL
	}
	next := splitDateStyle(cur)
	var haveOutput, haveOrder bool
	for _, raw := range strings.Split(v, ",") {
		tok := strings.ToUpper(strings.Trim(strings.TrimSpace(raw), `"`))
		output, order, err := dateStyleWord(tok, raw, v)
		if err != nil {
			return "", err
		}
		if output != "" {
			if haveOutput && next.output != output {
				return "", dateStyleConflict(v)
			}
			next.output, haveOutput = output, true
		}
		if order != "" {
			if haveOrder && next.order != order {
				return "", dateStyleConflict(v)
			}
			next.order, haveOrder = order, true
		}
		if output == "German" && !haveOrder {
			next.order = "DMY"
		}
		if tok == "DEFAULT" {
			next = mergeDefault(next, haveOutput, haveOrder)
		}
	}
	return next.String(), nil
}

// dateStyleWord is what one keyword sets: an output style, an order, or
// (DEFAULT) neither, left to mergeDefault.
func dateStyleWord(tok, raw, v string) (output, order string, err error) {
	switch {
	case tok == "ISO":
		return "ISO", "", nil
	case tok == "SQL":
		return "SQL", "", nil
	case strings.HasPrefix(tok, "POSTGRES"):
		return "Postgres", "", nil
	case tok == "GERMAN":
		return "German", "", nil
	case tok == "YMD":
		return "", "YMD", nil
	case tok == "DMY", strings.HasPrefix(tok, "EURO"):
		return "", "DMY", nil
	case tok == "MDY", tok == "US", strings.HasPrefix(tok, "NONEURO"):
		return "", "MDY", nil
	case tok == "DEFAULT":
		return "", "", nil
	}
	e := pgerr.Errorf(pgerr.InvalidParameterValue, "invalid value for parameter \"DateStyle\": \"%s\"", v)
	e.Detail = "Unrecognized key word: \"" + keyWord(raw) + "\"."
	return "", "", e
}

// keyWord is a DateStyle word as PostgreSQL names it in an error: folded
// to lower case unless quoted.
func keyWord(raw string) string {
	w := strings.TrimSpace(raw)
	if len(w) >= 2 && w[0] == '"' && w[len(w)-1] == '"' {
		return strings.ReplaceAll(w[1:len(w)-1], `""`, `"`)
	}
	return strings.ToLower(w)
}

// mergeDefault fills the parts not given from the default, ISO, MDY.
func mergeDefault(d dateStyle, haveOutput, haveOrder bool) dateStyle {
	if !haveOutput {
		d.output = "ISO"
	}
	if !haveOrder {
		d.order = "MDY"
	}
	return d
}

func dateStyleConflict(v string) error {
	e := pgerr.Errorf(pgerr.InvalidParameterValue, "invalid value for parameter \"DateStyle\": \"%s\"", v)
	e.Detail = `Conflicting "datestyle" specifications.`
	return e
}

// inputStyle is how the session's date/time input reads text now.
func (s *Settings) inputStyle() sql.InputStyle {
	v, _ := s.Get("datestyle")
	switch splitDateStyle(v).order {
	case "DMY":
		return sql.InputStyle{DateOrder: sql.DateOrderDMY}
	case "YMD":
		return sql.InputStyle{DateOrder: sql.DateOrderYMD}
	}
	return sql.InputStyle{DateOrder: sql.DateOrderMDY}
}

// withInputStyle records the session's input style for a statement's
// binding and evaluation.
func (s *Settings) withInputStyle(ctx context.Context) context.Context {
	return sql.WithInputStyle(ctx, s.inputStyle())
}
