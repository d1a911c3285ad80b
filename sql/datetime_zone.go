package sql

import (
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Zone names in date/time input: a time zone database name, matched without
// regard to case as PostgreSQL does, or a POSIX zone ("EST5", "foo/bar3:30")
// with a standard-time offset only.

// zoneinfoDir is where the system keeps the time zone database, the one a
// Debian PostgreSQL reads too.
const zoneinfoDir = "/usr/share/zoneinfo"

// loadZone resolves a zone name, nil when it names no zone.
func loadZone(name string) *time.Location {
	if name == "" || len(name) > 255 || strings.EqualFold(name, "local") {
		return nil
	}
	if canon, ok := zoneFileName(name); ok {
		if loc, err := time.LoadLocation(canon); err == nil {
			return loc
		}
	}
	return posixZone(name)
}

// zoneFileName finds the database file whose path equals name ignoring case.
func zoneFileName(name string) (string, bool) {
	var parts []string
	dir := zoneinfoDir
	for _, p := range strings.Split(name, "/") {
		if p == "" || p == "." || p == ".." {
			return "", false
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			return "", false
		}
		found := ""
		for _, e := range entries {
			if strings.EqualFold(e.Name(), p) {
				found = e.Name()
				break
			}
		}
		if found == "" {
			return "", false
		}
		parts = append(parts, found)
		dir = filepath.Join(dir, found)
	}
	if st, err := os.Stat(dir); err != nil || st.IsDir() {
		return "", false
	}
	return strings.Join(parts, "/"), true
}

// posixZone reads "NAME[+-]hh[:mm[:ss]]": any characters but digits, ',',
// '+' and '-' for the name, then the offset west of UTC. A daylight-saving
// part is not supported.
func posixZone(s string) *time.Location {
	i := 0
	for i < len(s) && !isDigit(s[i]) && s[i] != ',' && s[i] != '+' && s[i] != '-' {
		i++
	}
	name, rest := s[:i], s[i:]
	if rest == "" {
		return nil
	}
	west, rest, ok := posixOffset(rest)
	if !ok || rest != "" {
		return nil
	}
	return time.FixedZone(name, -west)
}

func posixOffset(s string) (int, string, bool) {
	sign := 1
	if s[0] == '+' || s[0] == '-' {
		if s[0] == '-' {
			sign = -1
		}
		s = s[1:]
	}
	limits := []int{24*7 - 1, 59, 60}
	secs := 0
	for k, scale := range []int{3600, 60, 1} {
		if k > 0 {
			if !strings.HasPrefix(s, ":") {
				break
			}
			s = s[1:]
		}
		j := scanWhile(s, 0, isDigit)
		if j == 0 {
			return 0, "", false
		}
		v := int(atoiSat(s[:j]))
		if v > limits[k] {
			return 0, "", false
		}
		secs += v * scale
		s = s[j:]
	}
	return sign * secs, s, true
}
