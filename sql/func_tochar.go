package sql

import (
	"math"
	"strconv"
	"strings"

	"github.com/magmalake/magmalake/pgerr"
)

// to_char(timestamp|timestamptz|date, text) as PostgreSQL 15's
// formatting.c writes it in the C locale with TimeZone UTC: the template
// is parsed into keyword and literal nodes the same way (FM/TM prefixes,
// TH/th/SP suffixes, "quoted text", backslashes), then each keyword prints
// its field.

// dchKeywords are formatting.c's DCH_keywords in its order: at each place
// the first keyword that matches wins, so longer ones come first.
var dchKeywords = []string{
	"A.D.", "A.M.", "AD", "AM", "B.C.", "BC", "CC", "DAY", "DDD", "DD", "DY", "Day", "Dy", "D",
	"FF1", "FF2", "FF3", "FF4", "FF5", "FF6", "FX", "HH24", "HH12", "HH", "IDDD", "ID", "IW", "IYYY", "IYY", "IY", "I",
	"J", "MI", "MM", "MONTH", "MON", "MS", "Month", "Mon", "OF", "P.M.", "PM", "Q", "RM",
	"SSSSS", "SSSS", "SS", "TZH", "TZM", "TZ", "US", "WW", "W", "Y,YYY", "YYYY", "YYY", "YY", "Y",
	"a.d.", "a.m.", "ad", "am", "b.c.", "bc", "cc", "day", "ddd", "dd", "dy", "d",
	"ff1", "ff2", "ff3", "ff4", "ff5", "ff6", "fx", "hh24", "hh12", "hh", "iddd", "id", "iw", "iyyy", "iyy", "iy", "i",
	"j", "mi", "mm", "month", "mon", "ms", "of", "p.m.", "pm", "q", "rm",
	"sssss", "ssss", "ss", "tzh", "tzm", "tz", "us", "ww", "w", "y,yyy", "yyyy", "yyy", "yy", "y",
}

// dchCaseless are the lower-case spellings that mean their upper-case
// keyword (formatting.c maps them to the same id); the others (day, mon,
// a.m., tz, ...) print in lower case.
var dchCaseless = map[string]bool{
	"cc": true, "ddd": true, "dd": true, "d": true, "ff1": true, "ff2": true, "ff3": true, "ff4": true,
	"ff5": true, "ff6": true, "fx": true, "hh24": true, "hh12": true, "hh": true, "iddd": true, "id": true,
	"iw": true, "iyyy": true, "iyy": true, "iy": true, "i": true, "j": true, "mi": true, "mm": true,
	"ms": true, "of": true, "tzh": true, "tzm": true, "q": true, "sssss": true, "ssss": true, "ss": true, "us": true, "ww": true,
	"w": true, "y,yyy": true, "yyyy": true, "yyy": true, "yy": true, "y": true,
}

// Suffix flags of a keyword node.
const (
	dchFM = 1 << iota
	dchTM
	dchTHUpper
	dchTHLower
	dchSP
)

// fmtNode is one node of a parsed template: a keyword (key, with its
// suffix flags) or literal text.
type fmtNode struct {
	key    string
	suffix int
	text   string
}

// parseDCH is formatting.c's parse_format for DATE-TIME templates.
func parseDCH(f string) []fmtNode {
	var nodes []fmtNode
	for len(f) > 0 {
		suffix := 0
		for _, p := range [...]struct {
			s    string
			flag int
		}{{"FM", dchFM}, {"fm", dchFM}, {"TM", dchTM}, {"tm", dchTM}} {
			if strings.HasPrefix(f, p.s) {
				suffix, f = p.flag, f[2:]
				break
			}
		}
		if len(f) == 0 {
			break
		}
		if k := matchKeyword(f, dchKeywords); k != "" {
			f = f[len(k):]
			for _, p := range [...]struct {
				s    string
				flag int
			}{{"TH", dchTHUpper}, {"th", dchTHLower}, {"SP", dchSP}} {
				if strings.HasPrefix(f, p.s) {
					suffix, f = suffix|p.flag, f[2:]
					break
				}
			}
			if dchCaseless[k] {
				k = strings.ToUpper(k)
			}
			nodes = append(nodes, fmtNode{key: k, suffix: suffix})
			continue
		}
		var lit string
		lit, f = templateLiteral(f)
		nodes = append(nodes, fmtNode{text: lit})
	}
	return nodes
}

// matchKeyword is the first keyword of kws that f starts with; only
// printable ASCII other than space and '~' starts one.
func matchKeyword(f string, kws []string) string {
	if c := f[0]; c <= ' ' || c >= '~' {
		return ""
	}
	for _, k := range kws {
		if k[0] == f[0] && strings.HasPrefix(f, k) {
			return k
		}
	}
	return ""
}

// templateLiteral takes the literal text at the start of f: a double-quoted
// string (a backslash quoting the next character) or one character (a
// backslash before a double quote quotes it).
func templateLiteral(f string) (lit, rest string) {
	if f[0] == '"' {
		var sb strings.Builder
		i := 1
		for i < len(f) {
			if f[i] == '"' {
				i++
				break
			}
			if f[i] == '\\' && i+1 < len(f) {
				i++
			}
			n := utf8Len(f[i:])
			sb.WriteString(f[i : i+n])
			i += n
		}
		return sb.String(), f[i:]
	}
	if f[0] == '\\' && len(f) > 1 && f[1] == '"' {
		f = f[1:]
	}
	n := utf8Len(f)
	return f[:n], f[n:]
}

// utf8Len is the byte length of the character starting s (1 for a broken one).
func utf8Len(s string) int {
	c := s[0]
	n := 1
	switch {
	case c >= 0xF0:
		n = 4
	case c >= 0xE0:
		n = 3
	case c >= 0xC0:
		n = 2
	}
	return min(n, len(s))
}

// dchTime is the broken-down value DCH_to_char prints.
type dchTime struct {
	year                 int64 // astronomical: 0 is 1 BC
	mon, mday            int
	hour, min, sec, fsec int64
	days                 int64 // since 1970-01-01
	tz                   bool  // timestamptz: TZ is "UTC"
}

var (
	monthsFull = []string{"January", "February", "March", "April", "May", "June", "July", "August", "September",
		"October", "November", "December"}
	daysFull      = []string{"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"}
	romanMonthsUp = []string{"I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X", "XI", "XII"}
)

// toCharTime is to_char of a timestamp (tz false) or timestamptz in µs;
// an infinite value is NULL.
func toCharTime(us int64, tz bool, f string) any {
	if us == math.MaxInt64 || us == math.MinInt64 || f == "" {
		return nil
	}
	days := floorDiv(us, usPerDay)
	clock := us - days*usPerDay
	y, m, d := fmtCivil(days)
	t := dchTime{year: y, mon: m, mday: d, days: days, tz: tz,
		hour: clock / 3_600_000_000, min: clock / 60_000_000 % 60, sec: clock / 1_000_000 % 60, fsec: clock % 1_000_000}
	return formatDCH(parseDCH(f), t)
}

// formatDCH is DCH_to_char.
func formatDCH(nodes []fmtNode, t dchTime) string {
	var sb strings.Builder
	wday := int(floorMod(t.days+4, 7)) // 1970-01-01 was a Thursday; Sunday is 0
	yday := t.days - fmtDaysFromCivil(t.year, 1, 1) + 1
	adjYear := t.year
	if adjYear <= 0 {
		adjYear = 1 - adjYear
	}
	isoYear, isoWk := isoWeek(t.days)
	adjISO := isoYear
	if adjISO <= 0 {
		adjISO = 1 - adjISO
	}
	for _, n := range nodes {
		if n.key == "" {
			sb.WriteString(n.text)
			continue
		}
		fm := n.suffix&dchFM != 0
		frac := false // fractions ignore FM
		num := func(v int64, width int) {
			if fm && !frac {
				width = 0
			}
			s := strconv.FormatInt(v, 10)
			if neg := v < 0; len(s) < width {
				if neg {
					s = "-" + strings.Repeat("0", width-len(s)) + s[1:]
				} else {
					s = strings.Repeat("0", width-len(s)) + s
				}
			}
			sb.WriteString(s)
			if n.suffix&(dchTHUpper|dchTHLower) != 0 {
				sb.WriteString(ordinalSuffix(s, n.suffix&dchTHUpper != 0))
			}
		}
		name := func(s string, pad int) {
			switch {
			case n.suffix&dchTM != 0:
				sb.WriteString(s)
			case fm || len(s) >= pad:
				sb.WriteString(s)
			default:
				sb.WriteString(s + strings.Repeat(" ", pad-len(s)))
			}
		}
		pm := t.hour >= 12
		switch n.key {
		case "A.M.", "P.M.":
			sb.WriteString(pick(pm, "P.M.", "A.M."))
		case "AM", "PM":
			sb.WriteString(pick(pm, "PM", "AM"))
		case "a.m.", "p.m.":
			sb.WriteString(pick(pm, "p.m.", "a.m."))
		case "am", "pm":
			sb.WriteString(pick(pm, "pm", "am"))
		case "HH", "HH12":
			h := t.hour % 12
			if h == 0 {
				h = 12
			}
			num(h, 2)
		case "HH24":
			num(t.hour, 2)
		case "MI":
			num(t.min, 2)
		case "SS":
			num(t.sec, 2)
		case "FF1":
			frac = true
			num(t.fsec/100000, 1)
		case "FF2":
			frac = true
			num(t.fsec/10000, 2)
		case "MS", "FF3":
			frac = true
			num(t.fsec/1000, 3)
		case "FF4":
			frac = true
			num(t.fsec/100, 4)
		case "FF5":
			frac = true
			num(t.fsec/10, 5)
		case "US", "FF6":
			frac = true
			num(t.fsec, 6)
		case "SSSS", "SSSSS":
			num(t.hour*3600+t.min*60+t.sec, 0)
		case "tz":
			if t.tz {
				sb.WriteString("utc")
			}
		case "TZ":
			if t.tz {
				sb.WriteString("UTC")
			}
		case "TZH":
			sb.WriteString("+00")
		case "TZM":
			sb.WriteString("00")
		case "OF":
			sb.WriteString(pick(fm, "+0", "+00"))
		case "A.D.", "B.C.":
			sb.WriteString(pick(t.year <= 0, "B.C.", "A.D."))
		case "AD", "BC":
			sb.WriteString(pick(t.year <= 0, "BC", "AD"))
		case "a.d.", "b.c.":
			sb.WriteString(pick(t.year <= 0, "b.c.", "a.d."))
		case "ad", "bc":
			sb.WriteString(pick(t.year <= 0, "bc", "ad"))
		case "MONTH":
			name(strings.ToUpper(monthsFull[t.mon-1]), 9)
		case "Month":
			name(monthsFull[t.mon-1], 9)
		case "month":
			name(strings.ToLower(monthsFull[t.mon-1]), 9)
		case "MON":
			sb.WriteString(strings.ToUpper(monthsFull[t.mon-1][:3]))
		case "Mon":
			sb.WriteString(monthsFull[t.mon-1][:3])
		case "mon":
			sb.WriteString(strings.ToLower(monthsFull[t.mon-1][:3]))
		case "MM":
			num(int64(t.mon), 2)
		case "DAY":
			name(strings.ToUpper(daysFull[wday]), 9)
		case "Day":
			name(daysFull[wday], 9)
		case "day":
			name(strings.ToLower(daysFull[wday]), 9)
		case "DY":
			sb.WriteString(strings.ToUpper(daysFull[wday][:3]))
		case "Dy":
			sb.WriteString(daysFull[wday][:3])
		case "dy":
			sb.WriteString(strings.ToLower(daysFull[wday][:3]))
		case "DDD":
			num(yday, 3)
		case "IDDD":
			num(t.days-isoYearStart(isoYear)+1, 3)
		case "DD":
			num(int64(t.mday), 2)
		case "D":
			num(int64(wday)+1, 0)
		case "ID":
			num(int64(pickInt(wday == 0, 7, wday)), 0)
		case "WW":
			num((yday-1)/7+1, 2)
		case "IW":
			num(isoWk, 2)
		case "Q":
			num(int64((t.mon-1)/3+1), 0)
		case "CC":
			var c int64
			if t.year > 0 {
				c = (t.year-1)/100 + 1
			} else {
				c = t.year/100 - 1
			}
			if c <= 99 && c >= -99 {
				num(c, pickInt(c >= 0, 2, 3))
			} else {
				num(c, 0)
			}
		case "Y,YYY":
			s := strconv.FormatInt(adjYear/1000, 10) + "," + leftZeros(adjYear%1000, 3)
			sb.WriteString(s)
			if n.suffix&(dchTHUpper|dchTHLower) != 0 {
				sb.WriteString(ordinalSuffix(s, n.suffix&dchTHUpper != 0))
			}
		case "YYYY":
			num(adjYear, 4)
		case "IYYY":
			num(adjISO, 4)
		case "YYY":
			num(adjYear%1000, 3)
		case "IYY":
			num(adjISO%1000, 3)
		case "YY":
			num(adjYear%100, 2)
		case "IY":
			num(adjISO%100, 2)
		case "Y":
			num(adjYear%10, 0)
		case "I":
			num(adjISO%10, 0)
		case "RM", "rm":
			r := romanMonthsUp[t.mon-1]
			if n.key == "rm" {
				r = strings.ToLower(r)
			}
			if !fm {
				r += strings.Repeat(" ", 4-len(r))
			}
			sb.WriteString(r)
		case "W":
			num(int64((t.mday-1)/7+1), 0)
		case "J":
			num(t.days+2440588, 0)
		}
	}
	return sb.String()
}

func pick(c bool, a, b string) string {
	if c {
		return a
	}
	return b
}

func pickInt(c bool, a, b int) int {
	if c {
		return a
	}
	return b
}

func leftZeros(v int64, width int) string {
	s := strconv.FormatInt(v, 10)
	if len(s) < width {
		s = strings.Repeat("0", width-len(s)) + s
	}
	return s
}

// ordinalSuffix is formatting.c's get_th: ST, ND, RD or TH after the last
// digit of s, TH for the teens.
func ordinalSuffix(s string, upper bool) string {
	last := s[len(s)-1]
	if len(s) > 1 && s[len(s)-2] == '1' {
		last = 0
	}
	var th string
	switch last {
	case '1':
		th = "st"
	case '2':
		th = "nd"
	case '3':
		th = "rd"
	default:
		th = "th"
	}
	if upper {
		return strings.ToUpper(th)
	}
	return th
}

func toCharFunctions() []Function {
	return []Function{
		{Name: "to_char", Strict: true, Volatility: Stable, bind: callBinder.bindToChar, row: perRow(toChar),
			Signatures: sigs("timestamp with time zone,text | numeric,text | integer,text | bigint,text | real,text | double precision,text | timestamp without time zone,text")},
	}
}

// bindToChar binds to_char(value, text): timestamp, timestamptz, date
// (as timestamptz, PostgreSQL's preferred cast), the integers, the floats
// and numeric. A time would be read as an interval, which magmalake does
// not have.
func (b callBinder) bindToChar(name string, args []Expr) (Expr, error) {
	if len(args) != 2 {
		return nil, noFunction(name, args)
	}
	if k := args[1].Type().Kind; k != KindUnknown && !args[1].Type().IsString() {
		return nil, noFunction(name, args)
	}
	switch args[0].Type().Kind {
	case KindUnknown:
		return nil, pgerr.Errorf(pgerr.AmbiguousFunction, "function to_char(unknown, %s) is not unique", pick(isUnknown(args[1]), "unknown", "text"))
	case KindInt16:
		// No exact form: double precision, the preferred numeric type, wins.
		args[0] = &Cast{X: args[0], T: Float64}
	case KindDate:
		args[0] = &Cast{X: args[0], T: TimestampTZ}
	case KindTime:
		return nil, pgerr.Errorf(pgerr.FeatureNotSupported, "to_char(interval, text) is not supported")
	case KindInt32, KindInt64, KindFloat32, KindFloat64, KindNumeric, KindTimestamp, KindTimestampTZ:
	default:
		return nil, noFunction(name, args)
	}
	if err := b.textArgs(name, args[1:]); err != nil {
		return nil, err
	}
	return &Func{Name: name, Args: args, T: Text}, nil
}

// toChar computes to_char for one row.
func toChar(x *Func, a []any) (any, error) {
	f := a[1].(string)
	switch t := x.Args[0].Type(); t.Kind {
	case KindTimestamp, KindTimestampTZ:
		return toCharTime(a[0].(int64), t.Kind == KindTimestampTZ, f), nil
	default:
		return toCharNumber(a[0], t, f)
	}
}
