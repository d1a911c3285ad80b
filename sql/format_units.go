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

// SizePretty is pg_size_pretty(bigint): bytes below 10 kB, then the unit
// that keeps the number under 20480, rounded half away from zero.
func SizePretty(size int64) string {
	units := []struct {
		name  string
		limit int64
		round bool
		bits  uint
	}{{"bytes", 10 * 1024, false, 0}, {"kB", 20*1024 - 1, true, 10}, {"MB", 20*1024 - 1, true, 20},
		{"GB", 20*1024 - 1, true, 30}, {"TB", 20*1024 - 1, true, 40}, {"PB", 20*1024 - 1, true, 50}}
	abs := func(v int64) int64 {
		if v < 0 {
			return -v
		}
		return v
	}
	b2i := func(b bool) uint {
		if b {
			return 1
		}
		return 0
	}
	for i, u := range units {
		if i == len(units)-1 || abs(size) < u.limit {
			if u.round {
				if size < 0 {
					size = (size - 1) / 2
				} else {
					size = (size + 1) / 2
				}
			}
			return strconv.FormatInt(size, 10) + " " + u.name
		}
		next := units[i+1]
		size /= int64(1) << (next.bits - u.bits - b2i(next.round) + b2i(u.round))
	}
	return ""
}
