package sql

// The words date/time input knows (PostgreSQL's "Date/Time Key Words"
// appendix) and the zone abbreviations it accepts.

type dtWordKind uint8

const (
	wMonth    dtWordKind = iota + 1
	wWeekday             // read and ignored
	wMeridiem            // am, pm
	wEra                 // ad, bc
	wSpecial             // epoch, infinity, allballs, now, today, ...
	wNoise               // at, on
	wISOTime             // the 'T' between an ISO date and time
	wUnit                // ISO 8601 field labels (y, m, d, h, mm, s, j)
)

// Values of wSpecial words.
const (
	spEpoch = iota + 1
	spLate
	spEarly
	spAllBalls
	spNow
	spToday
	spTomorrow
	spYesterday
)

// Values of wMeridiem and wEra words.
const (
	merAM = 1
	merPM = 2
	eraBC = 1
	eraAD = 2
)

type dtKeyword struct {
	kind dtWordKind
	val  int
}

var dtKeywords = map[string]dtKeyword{
	"jan": {wMonth, 1}, "january": {wMonth, 1},
	"feb": {wMonth, 2}, "february": {wMonth, 2},
	"mar": {wMonth, 3}, "march": {wMonth, 3},
	"apr": {wMonth, 4}, "april": {wMonth, 4},
	"may": {wMonth, 5},
	"jun": {wMonth, 6}, "june": {wMonth, 6},
	"jul": {wMonth, 7}, "july": {wMonth, 7},
	"aug": {wMonth, 8}, "august": {wMonth, 8},
	"sep": {wMonth, 9}, "sept": {wMonth, 9}, "september": {wMonth, 9},
	"oct": {wMonth, 10}, "october": {wMonth, 10},
	"nov": {wMonth, 11}, "november": {wMonth, 11},
	"dec": {wMonth, 12}, "december": {wMonth, 12},

	"sun": {wWeekday, 0}, "sunday": {wWeekday, 0},
	"mon": {wWeekday, 1}, "monday": {wWeekday, 1},
	"tue": {wWeekday, 2}, "tues": {wWeekday, 2}, "tuesday": {wWeekday, 2},
	"wed": {wWeekday, 3}, "weds": {wWeekday, 3}, "wednesday": {wWeekday, 3},
	"thu": {wWeekday, 4}, "thur": {wWeekday, 4}, "thurs": {wWeekday, 4}, "thursday": {wWeekday, 4},
	"fri": {wWeekday, 5}, "friday": {wWeekday, 5},
	"sat": {wWeekday, 6}, "saturday": {wWeekday, 6},

	"am": {wMeridiem, merAM}, "pm": {wMeridiem, merPM},
	"ad": {wEra, eraAD}, "bc": {wEra, eraBC},

	"epoch": {wSpecial, spEpoch}, "infinity": {wSpecial, spLate}, "-infinity": {wSpecial, spEarly},
	"allballs": {wSpecial, spAllBalls}, "now": {wSpecial, spNow}, "today": {wSpecial, spToday},
	"tomorrow": {wSpecial, spTomorrow}, "yesterday": {wSpecial, spYesterday},

	"at": {wNoise, 0}, "on": {wNoise, 0},
	"t": {wISOTime, 0},

	"y": {wUnit, uYear}, "m": {wUnit, uMonth}, "d": {wUnit, uDay}, "h": {wUnit, uHour}, "mm": {wUnit, uMinute},
	"s": {wUnit, uSecond}, "j": {wUnit, uJulian}, "jd": {wUnit, uJulian}, "julian": {wUnit, uJulian},
	"dow": {wUnit, uOther}, "doy": {wUnit, uOther}, "isodow": {wUnit, uOther}, "isoyear": {wUnit, uOther},
	// "dst" after a zone abbreviation adds an hour; known to the lexer but
	// not supported.
	"dst": {},
}

// dtZoneAbbrevs are fixed-offset abbreviations from PostgreSQL's Default
// timezone_abbreviations set, in seconds east of UTC. They are looked up
// before the keywords, as PostgreSQL does.
var dtZoneAbbrevs = map[string]int64{
	"utc": 0, "ut": 0, "gmt": 0, "z": 0, "zulu": 0, "wet": 0,
	"west": 3600, "bst": 3600, "cet": 3600, "met": 3600,
	"cest": 7200, "mest": 7200, "eet": 7200,
	"eest": 10800,
	"jst":  9 * 3600, "nzst": 12 * 3600, "nzdt": 13 * 3600,
	"est": -5 * 3600, "edt": -4 * 3600,
	"cst": -6 * 3600, "cdt": -5 * 3600,
	"mst": -7 * 3600, "mdt": -6 * 3600,
	"pst": -8 * 3600, "pdt": -7 * 3600,
	"akst": -9 * 3600, "akdt": -8 * 3600,
	"hst": -10 * 3600,
}
