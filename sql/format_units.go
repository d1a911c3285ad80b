package sql

import "strconv"

// FormatKB spells kilobytes as PostgreSQL's SHOW does: the largest unit
// that divides them.
func FormatKB(kb int64) string {
	switch {
	case kb%(1024*1024) == 0:
		return strconv.FormatInt(kb/(1024*1024), 10) + "GB"
	case kb%1024 == 0:
		return strconv.FormatInt(kb/1024, 10) + "MB"
	}
	return strconv.FormatInt(kb, 10) + "kB"
}
