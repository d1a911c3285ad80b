package sql

import (
	"math"
	"strconv"
	"strings"
	"time"
)

// The second pass of date/time input: each lexed field gets a meaning from
// its shape and from the fields already read, following PostgreSQL's
// documented rules ("Date/Time Input Interpretation"). The result is a set
// of broken-down fields that parseDate, parseTime and parseTimestamp turn
// into values.

// DateOrder is DateStyle's field order for ambiguous numeric dates
// (01/02/03); the zero value is PostgreSQL's default, MDY.
type DateOrder uint8

const (
	DateOrderMDY DateOrder = iota // the default, "ISO, MDY"
	DateOrderDMY
	DateOrderYMD
)

// dtMask records which fields have been read; reading one twice is an error.
type dtMask uint16

const (
	mYear dtMask = 1 << iota
	mMonth
	mDay
	mHour
	mMinute
	mSecond
	mTZ
	mWeekday
	mDOY
	mMeridiem
	mEra
	mReserved // epoch, infinity, -infinity: other fields are read and dropped

	mDate = mYear | mMonth | mDay
	mTime = mHour | mMinute | mSecond
	mAll  = mDate | mTime | mTZ
)

// dtFail is why decoding failed; dtError turns it into PostgreSQL's error.
type dtFail uint8

const (
	failNone       dtFail = iota
	failFormat            // 22007 invalid input syntax
	failField             // 22008 field value out of range
	failMonthDay          // 22008, with the DateStyle hint
	failZoneOffset        // 22009 time zone displacement out of range
	failZoneName          // 22023 time zone "..." not recognized
)

// dtFields is the decoder's state and result.
type dtFields struct {
	order    DateOrder
	timeOnly bool // decoding for type time: dates are mostly refused
	toks     []dtToken

	have                    dtMask
	year, month, day, doy   int64
	hour, min, sec          int64
	fsec                    int64 // microseconds
	zone                    int64 // seconds east of UTC
	loc                     *time.Location
	badZone                 string
	bc, twoDigit, textMonth bool
	meridiem                int
	special                 int
	julian                  bool
	unit                    int // a pending label (the ISO 'T', 'y', 'm', 'j', ...) for the next field
}

// decodeDateTime lexes and decodes s.
func decodeDateTime(s string, order DateOrder, timeOnly bool) (*dtFields, dtFail) {
	toks, ok := lexDateTime(s)
	if !ok || len(toks) == 0 {
		return nil, failFormat
	}
	f := &dtFields{order: order, timeOnly: timeOnly, toks: toks}
	for i := range toks {
		got, fail := f.field(i)
		if fail != failNone {
			return f, fail
		}
		if got&f.have != 0 {
			return f, failFormat
		}
		f.have |= got
	}
	return f, f.finish()
}

func (f *dtFields) field(i int) (dtMask, dtFail) {
	tok := f.toks[i]
	switch tok.kind {
	case dtDate:
		return f.dateField(i)
	case dtClock:
		return f.clockField(tok.text)
	case dtZone:
		return mTZ, f.numericZone(tok.text)
	case dtNumber:
		return f.numberField(i)
	}
	return f.wordField(i)
}

// finish checks the whole: the date is complete and valid, AM/PM applied.
func (f *dtFields) finish() dtFail {
	switch f.special {
	case spNow, spToday, spTomorrow, spYesterday:
		// Refused later as needing the statement's time.
		return failNone
	}
	if fail := f.validateDate(); fail != failNone {
		return fail
	}
	if f.meridiem != 0 && f.hour > 12 {
		return failField
	}
	switch {
	case f.meridiem == merAM && f.hour == 12:
		f.hour = 0
	case f.meridiem == merPM && f.hour != 12:
		f.hour += 12
	}
	if f.timeOnly {
		return f.finishTime()
	}
	if f.special == 0 && f.have&mDate != mDate {
		return failFormat
	}
	return failNone
}

func (f *dtFields) finishTime() dtFail {
	if f.hour < 0 || f.min < 0 || f.min > 59 || f.sec < 0 || f.sec > 60 || f.hour > 24 ||
		f.hour == 24 && (f.min > 0 || f.sec > 0 || f.fsec > 0) || f.fsec < 0 || f.fsec > 1e6 {
		return failField
	}
	if f.have&mTime != mTime {
		return failFormat
	}
	// A zone whose offset changed over time needs a date to be resolved.
	if f.loc != nil && f.have&mDate != mDate && !fixedZone(f.loc) {
		return failFormat
	}
	return failNone
}

// validateDate completes the year (BC, two digits), the day of year, and
// range-checks month and day.
func (f *dtFields) validateDate() dtFail {
	if f.have&mYear != 0 && !f.julian {
		switch {
		case f.bc:
			if f.year <= 0 {
				return failField
			}
			f.year = 1 - f.year // 1 BC is year 0
		case f.twoDigit:
			if f.year < 70 {
				f.year += 2000
			} else if f.year < 100 {
				f.year += 1900
			}
		case f.year <= 0:
			return failField
		}
	}
	if f.have&mDOY != 0 {
		y, m, d := fmtCivil(fmtDaysFromCivil(f.year, 1, 1) + f.doy - 1)
		f.year, f.month, f.day = y, int64(m), int64(d)
	}
	if f.have&mMonth != 0 && (f.month < 1 || f.month > 12) {
		return failMonthDay
	}
	if f.have&mDay != 0 && (f.day < 1 || f.day > 31) {
		return failMonthDay
	}
	if f.have&mDate == mDate && f.day > int64(daysInMonth(f.year, f.month)) {
		return failField
	}
	return failNone
}

func daysInMonth(y, m int64) int {
	if m == 2 && y%4 == 0 && (y%100 != 0 || y%400 == 0) {
		return 29
	}
	return [...]int{31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}[m-1]
}

// dateField decodes a field with separators: a date, or after a complete
// month and day (or the ISO 'T') a zone name or an hhmmss-zz time.
func (f *dtFields) dateField(i int) (dtMask, dtFail) {
	tok := f.toks[i]
	if f.timeOnly {
		last := len(f.toks) - 1
		if i == 0 && last >= 1 && (f.toks[last].kind == dtDate || f.toks[1].kind == dtClock) {
			return f.decodeDate(tok.text)
		}
		return f.zoneField(tok)
	}
	if f.unit != 0 || f.have&(mMonth|mDay) == mMonth|mDay {
		return f.zoneField(tok)
	}
	return f.decodeDate(tok.text)
}

// zoneField reads a zone name, or a run-together time with a trailing
// numeric zone (101112-08).
func (f *dtFields) zoneField(tok dtToken) (dtMask, dtFail) {
	if !isDigit(tok.text[0]) && f.unit == 0 {
		return mTZ, f.namedZone(tok, failZoneName)
	}
	if fail := f.takeISOTime(); fail != failNone {
		return 0, fail
	}
	if f.have&mTime == mTime {
		return 0, failFormat
	}
	dash := strings.IndexByte(tok.text, '-')
	if dash < 0 {
		return 0, failFormat
	}
	if fail := f.numericZone(tok.text[dash:]); fail != failNone {
		return 0, fail
	}
	got, fail := f.numberField6(tok.text[:dash], f.dateContext())
	return got | mTZ, fail
}

// dateContext is the field mask the run-together readers see: for type time
// the date counts as given, so digits are read as a time.
func (f *dtFields) dateContext() dtMask {
	if f.timeOnly {
		return f.have | mDate
	}
	return f.have
}

// namedZone looks a zone name up in the time zone database.
func (f *dtFields) namedZone(tok dtToken, notFound dtFail) dtFail {
	loc := loadZone(tok.raw)
	if loc == nil {
		f.badZone = tok.text
		return notFound
	}
	f.loc = loc
	return failNone
}

// fixedZone reports whether loc has kept one offset, so that a time of day
// can be placed in it without a date.
func fixedZone(loc *time.Location) bool {
	_, off := time.Date(1800, 1, 1, 0, 0, 0, 0, loc).Zone()
	for _, y := range []int{1900, 1950, 2000} {
		for _, m := range []time.Month{1, 7} {
			if _, o := time.Date(y, m, 1, 0, 0, 0, 0, loc).Zone(); o != off {
				return false
			}
		}
	}
	return true
}

// clockField decodes h:m[:s][.frac] (or m:s.frac).
func (f *dtFields) clockField(text string) (dtMask, dtFail) {
	if fail := f.takeISOTime(); fail != failNone {
		return 0, fail
	}
	if fail := f.decodeClock(text); fail != failNone {
		return 0, fail
	}
	if !f.timeOnly && clockOverflows(f.hour, f.min, f.sec, f.fsec) {
		return 0, failField
	}
	return mTime, failNone
}

func clockOverflows(h, m, s, fsec int64) bool {
	if h < 0 || h > 24 || m < 0 || m > 59 || s < 0 || s > 60 || fsec < 0 || fsec > 1e6 {
		return true
	}
	return ((h*60+m)*60+s)*1e6+fsec > usPerDay
}

func (f *dtFields) decodeClock(text string) dtFail {
	h, rest, over := cInt(text)
	if over {
		return failField
	}
	if !strings.HasPrefix(rest, ":") {
		return failFormat
	}
	m, rest, over := cInt(rest[1:])
	if over {
		return failField
	}
	var s, fsec int64
	switch {
	case rest == "":
	case rest[0] == '.':
		// "mm:ss.fff": two fields with a fraction are minutes and seconds.
		var ok bool
		if fsec, ok = fracField(rest); !ok {
			return failFormat
		}
		h, m, s = 0, h, m
	case rest[0] == ':':
		if s, rest, over = cInt(rest[1:]); over {
			return failField
		}
		if rest != "" {
			var ok bool
			if rest[0] != '.' {
				return failFormat
			}
			if fsec, ok = fracField(rest); !ok {
				return failFormat
			}
		}
	default:
		return failFormat
	}
	if h < 0 || m < 0 || m > 59 || s < 0 || s > 60 || fsec < 0 || fsec > 1e6 {
		return failField
	}
	f.hour, f.min, f.sec, f.fsec = h, m, s, fsec
	return failNone
}

// cInt reads an optionally signed decimal integer at the start of s as C's
// strtol does: no digits reads 0 and consumes nothing; over is set when the
// value does not fit in 32 bits.
func cInt(s string) (v int64, rest string, over bool) {
	i := 0
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	j := scanWhile(s, i, isDigit)
	if j == i {
		return 0, s, false
	}
	for _, c := range s[i:j] {
		v = v*10 + int64(c-'0')
		if v > math.MaxInt32+1 {
			over = true
			v = math.MaxInt32 + 1
		}
	}
	if neg {
		v = -v
	}
	if v > math.MaxInt32 || v < math.MinInt32 {
		over = true
	}
	return v, s[j:], over
}

// fracField reads ".ddd" as microseconds, rounding half to even as
// PostgreSQL's rint does; anything after the digits is an error.
func fracField(s string) (int64, bool) {
	// A lone "." is a zero fraction.
	if j := scanWhile(s, 1, isDigit); j != len(s) {
		return 0, false
	}
	return fracMicrosFloat(s), true
}

func fracMicrosFloat(s string) int64 {
	v, err := strconv.ParseFloat("0"+s, 64)
	if err != nil {
		return 0
	}
	return int64(math.RoundToEven(v * 1e6))
}

// numericZone reads +h, +hh, +hhmm, +h:mm or +h:mm:ss.
func (f *dtFields) numericZone(text string) dtFail {
	h, rest, over := cInt(text[1:])
	if over {
		return failZoneOffset
	}
	var m, s int64
	switch {
	case strings.HasPrefix(rest, ":"):
		if m, rest, over = cInt(rest[1:]); over {
			return failZoneOffset
		}
		if strings.HasPrefix(rest, ":") {
			if s, rest, over = cInt(rest[1:]); over {
				return failZoneOffset
			}
		}
	case rest == "" && len(text) > 3:
		h, m = h/100, h%100
	}
	if h < 0 || h > 15 || m < 0 || m > 59 || s < 0 || s > 59 {
		return failZoneOffset
	}
	off := h*3600 + m*60 + s
	if text[0] == '-' {
		off = -off
	}
	f.zone, f.loc = off, nil
	if rest != "" {
		return failFormat
	}
	return failNone
}

// numberField decodes a field of digits (with at most one '.').
func (f *dtFields) numberField(i int) (dtMask, dtFail) {
	text := f.toks[i].text
	if f.unit != 0 {
		return f.labelledNumber(text)
	}
	dot := strings.IndexByte(text, '.')
	if f.timeOnly {
		return f.timeNumber(i, dot)
	}
	switch {
	case dot >= 0 && f.have&mDate == 0:
		return f.decodeDate(text)
	case dot > 2:
		return f.numberField6(text, f.have)
	case len(text) >= 6 && (f.have&mDate == 0 || f.have&mTime == 0):
		return f.numberField6(text, f.have)
	}
	return f.decodeNumber(text, f.textMonth, f.have)
}

// timeNumber is numberField for type time: only a leading date with a
// separator, or run-together digits read as hhmm[ss].
func (f *dtFields) timeNumber(i, dot int) (dtMask, dtFail) {
	text := f.toks[i].text
	switch {
	case dot >= 0:
		if i == 0 && len(f.toks) >= 2 && f.toks[len(f.toks)-1].kind == dtDate {
			return f.decodeDate(text)
		}
		if dot > 2 {
			return f.numberField6(text, f.have|mDate)
		}
		return 0, failFormat
	case len(text) > 4:
		return f.numberField6(text, f.have|mDate)
	}
	return f.decodeNumber(text, false, f.have|mDate)
}

// numberField6 reads run-together digits: yyyymmdd (or yymmdd) while the
// date is incomplete, then hhmmss or hhmm, with an optional fraction.
func (f *dtFields) numberField6(text string, have dtMask) (dtMask, dtFail) {
	if dot := strings.IndexByte(text, '.'); dot >= 0 {
		f.fsec = fracMicrosFloat(text[dot:])
		text = text[:dot]
	} else if have&mDate != mDate && len(text) >= 6 {
		n := len(text)
		f.day, f.month, f.year = atoiSat(text[n-2:]), atoiSat(text[n-4:n-2]), atoiSat(text[:n-4])
		if n-4 == 2 {
			f.twoDigit = true
		}
		return mDate, failNone
	}
	if have&mTime != mTime {
		switch len(text) {
		case 6:
			f.hour, f.min, f.sec = atoiSat(text[:2]), atoiSat(text[2:4]), atoiSat(text[4:])
			return mTime, failNone
		case 4:
			f.hour, f.min, f.sec = atoiSat(text[:2]), atoiSat(text[2:]), 0
			return mTime, failNone
		}
	}
	return 0, failFormat
}

// atoiSat reads digits, saturating far beyond any valid field.
func atoiSat(s string) int64 {
	var v int64
	for _, c := range s {
		if c < '0' || c > '9' {
			break
		}
		if v < 1e15 {
			v = v*10 + int64(c-'0')
		}
	}
	return v
}

// decodeNumber gives a lone number its meaning from what is already known
// and the DateStyle order.
func (f *dtFields) decodeNumber(text string, textMonth bool, have dtMask) (dtMask, dtFail) {
	val, rest, over := cInt(text)
	if over {
		return 0, failField
	}
	if rest == text {
		return 0, failFormat
	}
	if rest != "" {
		if rest[0] != '.' {
			return 0, failFormat
		}
		if len(text)-len(rest) > 2 {
			return f.numberField6(text, have|mDate)
		}
		var ok bool
		if f.fsec, ok = fracField(rest); !ok {
			return 0, failFormat
		}
	}
	flen := len(text)
	if flen == 3 && have&mDate == mYear && val >= 1 && val <= 366 {
		f.doy = val
		return mDOY | mMonth | mDay, failNone
	}
	if have&mDate == mDate {
		// The date is complete: the digits are a run-together time.
		return f.numberField6(text, have)
	}
	got, fail := f.placeNumber(val, flen, textMonth, have)
	if got == mYear {
		f.twoDigit = flen <= 2
	}
	return got, fail
}

// placeNumber decides which date field val is, by the fields already read.
func (f *dtFields) placeNumber(val int64, flen int, textMonth bool, have dtMask) (dtMask, dtFail) {
	yearFirst := flen >= 3 || f.order == DateOrderYMD
	switch have & mDate {
	case 0:
		switch {
		case yearFirst:
			f.year = val
			return mYear, failNone
		case f.order == DateOrderDMY:
			f.day = val
			return mDay, failNone
		}
		f.month = val
		return mMonth, failNone
	case mYear:
		f.month = val
		return mMonth, failNone
	case mMonth:
		if textMonth && yearFirst {
			f.year = val
			return mYear, failNone
		}
		f.day = val
		return mDay, failNone
	case mYear | mMonth:
		if textMonth && flen >= 3 && f.twoDigit {
			// "11-Apr-2024": the first number was the day after all.
			f.day, f.year, f.twoDigit = f.year, val, false
			return mDay, failNone
		}
		f.day = val
		return mDay, failNone
	case mDay:
		f.month = val
		return mMonth, failNone
	case mMonth | mDay:
		f.year = val
		return mYear, failNone
	}
	return 0, failFormat
}

// decodeDate reads a date with separators: words must be month names,
// numbers are placed around them.
func (f *dtFields) decodeDate(text string) (dtMask, dtFail) {
	parts, ok := splitDateParts(text)
	if !ok {
		return 0, failFormat
	}
	have, got := f.have, dtMask(0)
	textMonth := false
	for k, p := range parts {
		if !dtAlpha(p[0]) {
			continue
		}
		kw := dtKeywords[p]
		if kw.kind == wNoise {
			parts[k] = ""
			continue
		}
		if kw.kind != wMonth || have&mMonth != 0 {
			return 0, failFormat
		}
		f.month, textMonth = int64(kw.val), true
		have, got = have|mMonth, got|mMonth
		parts[k] = ""
	}
	for _, p := range parts {
		if p == "" {
			continue
		}
		m, fail := f.decodeNumber(p, textMonth, have)
		if fail != failNone {
			return 0, fail
		}
		if m&have != 0 {
			return 0, failFormat
		}
		have, got = have|m, got|m
	}
	if have&^(mDOY|mTZ) != mDate {
		return 0, failFormat
	}
	return got, failNone
}

// splitDateParts cuts a date field into runs of digits or letters; the one
// character after each run, whatever it is, is taken as its separator.
func splitDateParts(s string) ([]string, bool) {
	var parts []string
	for i := 0; i < len(s) && len(parts) < dtMaxFields; {
		for i < len(s) && !dtAlnum(s[i]) {
			i++
		}
		if i == len(s) {
			return nil, false
		}
		j := scanWhile(s, i, isDigit)
		if j == i {
			j = scanWhile(s, i, dtAlpha)
		}
		parts = append(parts, s[i:j])
		i = j + 1
	}
	return parts, true
}

// wordField decodes a word: a zone abbreviation, a keyword, or a zone name.
func (f *dtFields) wordField(i int) (dtMask, dtFail) {
	tok := f.toks[i]
	if off, ok := dtZoneAbbrevs[tok.text]; ok {
		f.zone, f.loc = off, nil
		return mTZ, failNone
	}
	kw, ok := dtKeywords[tok.text]
	if !ok {
		if tok.kind == dtSigned {
			return 0, failFormat
		}
		return mTZ, f.namedZone(tok, failFormat)
	}
	switch kw.kind {
	case wSpecial:
		return f.specialWord(kw.val)
	case wMonth:
		return f.monthWord(int64(kw.val))
	case wWeekday:
		if f.timeOnly {
			return 0, failFormat
		}
		return mWeekday, failNone
	case wMeridiem:
		f.meridiem = kw.val
		return mMeridiem, failNone
	case wEra:
		f.bc = kw.val == eraBC
		return mEra, failNone
	case wNoise:
		return 0, failNone
	case wISOTime:
		return 0, f.isoTimeWord(i)
	case wUnit:
		f.unit = kw.val
		return 0, failNone
	}
	return 0, failFormat
}

// monthWord takes a month name; a number already read as the month was
// then the day ("11 Apr 2024" in MDY order).
func (f *dtFields) monthWord(month int64) (dtMask, dtFail) {
	if f.timeOnly {
		return 0, failFormat
	}
	got := mMonth
	if f.have&mMonth != 0 && !f.textMonth && f.have&mDay == 0 && f.month >= 1 && f.month <= 31 {
		f.day = f.month
		got = mDay
	}
	f.textMonth = true
	f.month = month
	return got, failNone
}

// isoTimeWord checks the 'T' of 2024-04-11T10:00: a date before it (for
// timestamps) and a time after it.
func (f *dtFields) isoTimeWord(i int) dtFail {
	if !f.timeOnly && f.have&mDate != mDate {
		return failFormat
	}
	if i+1 >= len(f.toks) {
		return failFormat
	}
	switch f.toks[i+1].kind {
	case dtNumber, dtClock, dtDate:
		f.unit = uISOTime
		return failNone
	}
	return failFormat
}

func (f *dtFields) specialWord(sp int) (dtMask, dtFail) {
	switch sp {
	case spAllBalls:
		f.hour, f.min, f.sec, f.fsec, f.zone, f.loc = 0, 0, 0, 0, 0, nil
		return mTime | mTZ, failNone
	case spNow:
		f.special = sp
		if f.timeOnly {
			return mTime | mTZ, failNone
		}
		return mAll, failNone
	}
	if f.timeOnly {
		return 0, failFormat
	}
	f.special = sp
	if sp == spToday || sp == spTomorrow || sp == spYesterday {
		return mDate, failNone
	}
	return mReserved, failNone
}

// takeISOTime consumes a pending ISO 'T' before a time field; any other
// pending label cannot be followed by one.
func (f *dtFields) takeISOTime() dtFail {
	if f.unit != 0 && f.unit != uISOTime {
		return failFormat
	}
	f.unit = 0
	return failNone
}

// Labels of the ISO 8601 "labelled" input (y2024m04d11, j2451187) and the T.
const (
	uISOTime = iota + 1
	uYear
	uMonth
	uDay
	uHour
	uMinute
	uSecond
	uJulian
	uOther // dow, doy, isodow, isoyear: labels of nothing input accepts
)

// labelledNumber reads the number after a label.
func (f *dtFields) labelledNumber(text string) (dtMask, dtFail) {
	unit := f.unit
	f.unit = 0
	val, rest, over := cInt(text)
	if over {
		return 0, failField
	}
	if rest != "" && rest[0] != '.' {
		return 0, failFormat
	}
	switch unit {
	case uISOTime:
		got, fail := f.numberField6(text, f.have|mDate)
		if fail == failNone && got != mTime {
			return 0, failFormat
		}
		return got, fail
	case uYear:
		f.year = val
		return mYear, failNone
	case uMonth:
		// After a month and an hour, "m" is minutes.
		if f.have&mMonth != 0 && f.have&mHour != 0 {
			f.min = val
			return mMinute, failNone
		}
		f.month = val
		return mMonth, failNone
	case uDay:
		f.day = val
		return mDay, failNone
	case uHour:
		f.hour = val
		return mHour, failNone
	case uMinute:
		f.min = val
		return mMinute, failNone
	case uSecond:
		f.sec = val
		if rest != "" {
			var ok bool
			if f.fsec, ok = fracField(rest); !ok {
				return 0, failFormat
			}
		}
		return mSecond, failNone
	case uJulian:
		return f.julianDay(val, rest)
	}
	return 0, failFormat
}

// julianDay reads a Julian day number, a fraction of it being the time.
func (f *dtFields) julianDay(val int64, frac string) (dtMask, dtFail) {
	if val < 0 {
		return 0, failField
	}
	y, m, d := fmtCivil(val - julianEpochDays)
	f.year, f.month, f.day, f.julian = y, int64(m), int64(d), true
	if frac == "" {
		return mDate, failNone
	}
	if j := scanWhile(frac, 1, isDigit); j != len(frac) {
		return 0, failFormat
	}
	v, _ := strconv.ParseFloat("0"+frac, 64)
	us := int64(v * usPerDay)
	f.hour, us = us/3600e6, us%3600e6
	f.min, us = us/60e6, us%60e6
	f.sec, f.fsec = us/1e6, us%1e6
	return mDate | mTime, failNone
}
