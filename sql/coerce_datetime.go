package sql

import (
	"strconv"
	"strings"
)

// Date and time input: the ISO 8601 forms PostgreSQL reads with DateStyle ISO
// ("2024-01-01", "2024-01-01 10:00:00.5+02", "2024-01-01T10:00Z") plus 'epoch'.
// Named infinities and relative words ('today', 'infinity') are 0A000.

func dateTimeErr(t Type, s string) *Error {
	return Errorf(CodeInvalidDatetimeFormat, "invalid input syntax for type %s: %q", t, s)
}

func specialDateTime(v string, t Type) (bool, error) {
	switch strings.ToLower(v) {
	case "epoch":
		return true, nil
	case "infinity", "-infinity", "now", "today", "tomorrow", "yesterday", "allballs":
		return false, Errorf(CodeFeatureNotSupported, "special %s value %q is not supported", t, v)
	}
	return false, nil
}

// splitDate reads "YYYY-MM-DD" at the start of v and returns the rest.
func splitDate(v string, t Type, orig string) (int64, string, error) {
	parts := strings.SplitN(v, "-", 3)
	if len(parts) != 3 || len(parts[0]) < 4 || len(parts[1]) == 0 || len(parts[1]) > 2 {
		return 0, "", dateTimeErr(t, orig)
	}
	end := 0
	for end < len(parts[2]) && parts[2][end] >= '0' && parts[2][end] <= '9' {
		end++
	}
	dayStr, rest := parts[2][:end], parts[2][end:]
	y, e1 := strconv.Atoi(parts[0])
	m, e2 := strconv.Atoi(parts[1])
	d, e3 := strconv.Atoi(dayStr)
	if e1 != nil || e2 != nil || e3 != nil || len(dayStr) == 0 || len(dayStr) > 2 {
		return 0, "", dateTimeErr(t, orig)
	}
	if m < 1 || m > 12 || d < 1 || d > daysIn(y, m) || y < 1 {
		return 0, "", Errorf(CodeDatetimeFieldOverflow, "date/time field value out of range: %q", orig)
	}
	return daysFromCivil(y, m, d), rest, nil
}

func daysIn(y, m int) int {
	switch m {
	case 2:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

func parseDate(s string) (any, error) {
	v := strings.TrimSpace(s)
	if ok, err := specialDateTime(v, Date); ok || err != nil {
		return int64(0), err
	}
	days, rest, err := splitDate(v, Date, s)
	if err != nil {
		return nil, err
	}
	// A time part after the date is accepted and ignored, as PostgreSQL does.
	if rest != "" {
		if _, _, err := splitClock(strings.TrimLeft(rest, " T"), Date, s); err != nil {
			return nil, err
		}
	}
	return days, nil
}

// splitClock reads "HH:MM[:SS[.frac]]" and returns microseconds and the rest.
func splitClock(v string, t Type, orig string) (int64, string, error) {
	end := 0
	for end < len(v) && (v[end] >= '0' && v[end] <= '9' || v[end] == ':' || v[end] == '.') {
		end++
	}
	clock, rest := v[:end], v[end:]
	secPart := ""
	hm := strings.SplitN(clock, ":", 3)
	if len(hm) < 2 {
		return 0, "", dateTimeErr(t, orig)
	}
	if len(hm) == 3 {
		secPart = hm[2]
	}
	h, e1 := strconv.Atoi(hm[0])
	m, e2 := strconv.Atoi(hm[1])
	if e1 != nil || e2 != nil || len(hm[0]) > 2 || len(hm[1]) != 2 {
		return 0, "", dateTimeErr(t, orig)
	}
	var us int64
	if secPart != "" {
		whole, frac, _ := strings.Cut(secPart, ".")
		sec, err := strconv.Atoi(whole)
		if err != nil || len(whole) != 2 || strings.Trim(frac, "0123456789") != "" {
			return 0, "", dateTimeErr(t, orig)
		}
		us = int64(sec) * 1e6
		us += fracMicros(frac)
		if sec > 60 {
			return 0, "", Errorf(CodeDatetimeFieldOverflow, "date/time field value out of range: %q", orig)
		}
	}
	if h > 24 || m > 59 || (h == 24 && (m > 0 || us > 0)) {
		return 0, "", Errorf(CodeDatetimeFieldOverflow, "date/time field value out of range: %q", orig)
	}
	return int64(h)*3600e6 + int64(m)*60e6 + us, rest, nil
}

// fracMicros rounds a fraction of a second to microseconds (half up, as PostgreSQL).
func fracMicros(frac string) int64 {
	if frac == "" {
		return 0
	}
	padded := (frac + "0000000")[:7]
	n, _ := strconv.ParseInt(padded, 10, 64)
	return (n + 5) / 10
}

func parseTime(s string) (any, error) {
	v := strings.TrimSpace(s)
	us, rest, err := splitClock(v, Time, s)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(rest) != "" {
		return nil, dateTimeErr(Time, s)
	}
	return us, nil
}

func parseTimestamp(s string, t Type) (any, error) {
	v := strings.TrimSpace(s)
	if ok, err := specialDateTime(v, t); ok || err != nil {
		return int64(0), err
	}
	days, rest, err := splitDate(v, t, s)
	if err != nil {
		return nil, err
	}
	us := days * usPerDay
	rest = strings.TrimLeft(rest, " ")
	if strings.HasPrefix(rest, "T") || (rest != "" && rest[0] >= '0' && rest[0] <= '9') {
		clock, r2, err := splitClock(strings.TrimPrefix(rest, "T"), t, s)
		if err != nil {
			return nil, err
		}
		us += clock
		rest = r2
	}
	offset, err := parseZone(strings.TrimSpace(rest), t, s)
	if err != nil {
		return nil, err
	}
	// timestamp without time zone ignores a zone in its input, as PostgreSQL does.
	if t.Kind == KindTimestampTZ {
		us -= offset
	}
	return us, nil
}

// parseZone reads "", "Z", "UTC", "+HH", "+HH:MM", "+HHMM" as an offset in µs.
func parseZone(z string, t Type, orig string) (int64, error) {
	switch strings.ToUpper(z) {
	case "", "Z", "UTC", "GMT", "+00", "-00":
		return 0, nil
	}
	if z[0] != '+' && z[0] != '-' {
		return 0, dateTimeErr(t, orig)
	}
	sign := int64(1)
	if z[0] == '-' {
		sign = -1
	}
	body := strings.ReplaceAll(z[1:], ":", "")
	if strings.Trim(body, "0123456789") != "" || len(body) == 0 || len(body) > 6 || len(body)%2 == 1 && len(body) != 1 {
		return 0, dateTimeErr(t, orig)
	}
	var h, m, sec int
	switch len(body) {
	case 1, 2:
		h, _ = strconv.Atoi(body)
	case 4:
		h, _ = strconv.Atoi(body[:2])
		m, _ = strconv.Atoi(body[2:])
	case 6:
		h, _ = strconv.Atoi(body[:2])
		m, _ = strconv.Atoi(body[2:4])
		sec, _ = strconv.Atoi(body[4:])
	}
	if h > 15 || m > 59 || sec > 59 {
		return 0, Errorf(CodeInvalidDatetimeFormat, "time zone displacement out of range: %q", orig)
	}
	return sign * (int64(h)*3600 + int64(m)*60 + int64(sec)) * 1e6, nil
}
