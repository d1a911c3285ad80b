package sql

import "strings"

// Date/time fields: every unit spelling (and unknown ones) against dates,
// times, timestamps and timestamptz values around year, ISO-week, leap-day
// and era boundaries, through EXTRACT, date_part and date_trunc.

var (
	dtPartUnits = []string{"microseconds", "milliseconds", "second", "minute", "hour", "day", "week", "month", "quarter",
		"year", "decade", "century", "millennium", "epoch", "dow", "isodow", "doy", "isoyear", "julian", "timezone",
		"timezone_hour", "timezone_minute", "secs", "mon", "y", "usec", "msecs", "foo", "DAY", "Year", ""}
	dtPartDates = []string{"2024-01-01", "2023-12-31", "2021-01-03", "2020-12-31", "2024-02-29", "1970-01-01", "1969-12-31",
		"2000-01-01", "1900-03-01", "0001-01-01", "0001-12-31 BC", "0010-06-15 BC", "2400-12-31", "2010-01-04", "2008-12-29",
		"1999-01-01"}
	dtPartTimes = []string{"00:00:00", "12:34:56.789", "23:59:59.999999", "01:02:03.5", "24:00:00"}
)

var monotonicUnit = map[string]bool{"year": true, "decade": true, "century": true, "millennium": true, "julian": true,
	"isoyear": true, "epoch": true, "y": true, "Year": true}

func corpusDateTimeParts() []string {
	var sources []string
	for _, d := range dtPartDates {
		sources = append(sources, "date '"+d+"'")
		for _, tm := range []string{"00:00:00", "13:45:30.123456"} {
			ts := d + " " + tm
			if strings.HasSuffix(d, " BC") {
				ts = strings.TrimSuffix(d, " BC") + " " + tm + " BC"
			}
			sources = append(sources, "timestamp '"+ts+"'", "timestamptz '"+ts+"+00'")
		}
	}
	for _, tm := range dtPartTimes {
		sources = append(sources, "time '"+tm+"'")
	}
	sources = append(sources, "NULL::timestamp", "'2024-05-06 07:08:09'", "timestamp 'infinity'", "timestamptz '-infinity'", "date 'infinity'", "42", "'abc'::text")
	var out []string
	for _, u := range dtPartUnits {
		for _, s := range sources {
			if !(strings.Contains(s, "infinity") && monotonicUnit[u]) {
				// numeric Infinity is not a value magmalake's numeric has
				out = append(out, "extract("+u+" from "+s+")")
			}
			out = append(out, "date_part('"+u+"', "+s+")")
			if !strings.HasPrefix(s, "time ") {
				// date_trunc of a time is one of an interval: not a type of ours
				out = append(out, "date_trunc('"+u+"', "+s+")")
			}
		}
	}
	out = append(out, "extract('year' from date '2024-03-04')", `extract("month" from date '2024-03-04')`,
		"date_part(NULL, date '2024-03-04')", "date_trunc(NULL, timestamp '2024-03-04')", "extract(year from NULL::date)")
	return out
}
