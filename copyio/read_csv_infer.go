package copyio

import (
	"strconv"
	"strings"

	"github.com/magmalake/magmalake/sql"
)

// csvCandidates are the types read_csv infers, in order of preference: a
// column gets the first one every sampled value fits, else text (DuckDB's
// order; integers are bigint, decimals double precision).
var csvCandidates = []sql.Type{sql.Bool, sql.Int64, sql.Float64, sql.Date, sql.Timestamp, sql.TimestampTZ}

// inferCSVTypes is each column's type over rows; a column with no value
// is text.
func inferCSVTypes(rows [][]copyField, width int, allText bool, in sql.InputStyle) []sql.Type {
	types := make([]sql.Type, width)
	for c := range width {
		types[c] = sql.Text
		if !allText {
			types[c] = inferColumn(rows, c, in)
		}
	}
	return types
}

func inferColumn(rows [][]copyField, c int, in sql.InputStyle) sql.Type {
	possible := make([]bool, len(csvCandidates))
	for i := range possible {
		possible[i] = true
	}
	seen := false
	for _, row := range rows {
		if c >= len(row) || row[c].null {
			continue
		}
		seen = true
		left := false
		for i, t := range csvCandidates {
			if possible[i] {
				possible[i] = fitsCSVType(row[c].val, t, in)
				left = left || possible[i]
			}
		}
		if !left {
			return sql.Text
		}
	}
	if !seen {
		return sql.Text
	}
	for i, t := range csvCandidates {
		if possible[i] {
			return t
		}
	}
	return sql.Text
}

// looksLikeHeader decides, when the header option is not given, whether
// the first row names the columns (rest: the types of the other rows): it does when one of its values does
// not fit the type the other rows give its column, or when every column
// is text and the first row has no empty field.
func looksLikeHeader(rows [][]copyField, rest []sql.Type, in sql.InputStyle) bool {
	if len(rows) == 0 {
		return false
	}
	first := rows[0]
	if len(rows) == 1 {
		// One row: a header only if all of it is text.
		rest = inferCSVTypes(rows, len(rest), false, in)
	}
	allText := true
	for c, t := range rest {
		named := c < len(first) && !first[c].null
		if t.Kind == sql.KindText {
			allText = allText && named
			continue
		}
		if len(rows) == 1 {
			return false
		}
		allText = false
		if named && !fitsCSVType(first[c].val, t, in) {
			return true
		}
	}
	return allText
}

// fitsCSVType reports whether v reads as t. Numbers with leading zeros
// (zip codes, ids) stay text, so nothing in them is lost.
func fitsCSVType(v string, t sql.Type, in sql.InputStyle) bool {
	switch t.Kind {
	case sql.KindBool:
		return strings.EqualFold(v, "true") || strings.EqualFold(v, "false")
	case sql.KindInt64:
		if !plainNumber(v, false) {
			return false
		}
		_, err := strconv.ParseInt(v, 10, 64)
		return err == nil
	case sql.KindFloat64:
		if !plainNumber(v, true) {
			return false
		}
		_, err := strconv.ParseFloat(v, 64)
		return err == nil
	case sql.KindDate:
		return isDateText(v) && len(v) == 10 && inputOK(in, v, t)
	case sql.KindTimestamp:
		rest, ok := timestampPrefix(v)
		return ok && rest == "" && inputOK(in, v, t)
	case sql.KindTimestampTZ:
		rest, ok := timestampPrefix(v)
		return ok && isZoneSuffix(rest) && inputOK(in, v, t)
	}
	return false
}

func inputOK(in sql.InputStyle, v string, t sql.Type) bool {
	_, err := in.CoerceText(v, t)
	return err == nil
}

// plainNumber: an optional sign, digits without a leading zero, and with
// frac a decimal part and exponent.
func plainNumber(v string, frac bool) bool {
	s := strings.TrimPrefix(strings.TrimPrefix(v, "-"), "+")
	if s == "" {
		return false
	}
	digits := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			if digits == 0 && c == '0' && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9' {
				return false
			}
			digits++
		case frac && (c == '.' || c == 'e' || c == 'E' || (c == '-' || c == '+') && i > 0 && (s[i-1] == 'e' || s[i-1] == 'E')):
			if c != '.' {
				digits = 1 // the exponent's digits may start with 0
			}
		default:
			return false
		}
	}
	return digits > 0
}

func isDateText(v string) bool {
	if len(v) < 10 {
		return false
	}
	for i := 0; i < 10; i++ {
		c := v[i]
		if i == 4 || i == 7 {
			if c != '-' {
				return false
			}
		} else if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// timestampPrefix matches YYYY-MM-DD[ T]HH:MM[:SS[.ffffff]] and returns
// what follows.
func timestampPrefix(v string) (string, bool) {
	if !isDateText(v) || len(v) < 16 || v[10] != ' ' && v[10] != 'T' {
		return "", false
	}
	if !twoDigits(v[11:13]) || v[13] != ':' || !twoDigits(v[14:16]) {
		return "", false
	}
	rest := v[16:]
	if len(rest) >= 3 && rest[0] == ':' && twoDigits(rest[1:3]) {
		rest = rest[3:]
		if len(rest) > 1 && rest[0] == '.' {
			k := 1
			for k < len(rest) && rest[k] >= '0' && rest[k] <= '9' {
				k++
			}
			if k == 1 {
				return "", false
			}
			rest = rest[k:]
		}
	}
	return rest, true
}

// isZoneSuffix matches Z, +HH, +HH:MM and +HHMM (or -).
func isZoneSuffix(s string) bool {
	if s == "Z" || s == "z" {
		return true
	}
	if len(s) < 3 || s[0] != '+' && s[0] != '-' || !twoDigits(s[1:3]) {
		return false
	}
	switch rest := s[3:]; {
	case rest == "":
		return true
	case len(rest) == 3 && rest[0] == ':':
		return twoDigits(rest[1:])
	case len(rest) == 2:
		return twoDigits(rest)
	}
	return false
}

func twoDigits(s string) bool {
	return len(s) == 2 && s[0] >= '0' && s[0] <= '9' && s[1] >= '0' && s[1] <= '9'
}
