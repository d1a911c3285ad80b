package sql

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math/rand"
	"os"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/magmalake/magmalake/internal/pgtest"
	"github.com/magmalake/magmalake/pgerr"
)

var dtDump = flag.String("dtdump", "", "write every datetime input disagreement to this file")

// TestDateTimeInputPG compares date, time, timestamp and timestamptz input
// with PostgreSQL 15 (TimeZone UTC; DateStyle ISO with MDY, DMY, YMD) on a generated
// corpus: the value's text or the error's SQLSTATE and message must agree,
// except for the classes in dtAllowed.
func TestDateTimeInputPG(t *testing.T) {
	conn := pgtest.Start(t).Connect(t, "postgres")
	ctx := context.Background()
	setup := []string{"SET TimeZone = 'UTC'"}
	for _, ty := range dtTypes {
		// The text cast runs the type's input function, as $1::date does for
		// an untyped parameter; catching the error keeps it to one round trip.
		setup = append(setup, fmt.Sprintf(`CREATE FUNCTION try_%[1]s(s text) RETURNS text LANGUAGE plpgsql AS $$
			BEGIN RETURN s::%[1]s::text;
			EXCEPTION WHEN others THEN RETURN 'ERROR ' || SQLSTATE || ' ' || SQLERRM; END $$`, ty.name))
	}
	for _, q := range setup {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	corpus := dtCorpus(rand.New(rand.NewSource(11)), 4000)
	agree, allowed, total := 0, map[string]int{}, 0
	var failures []string
	for _, style := range []struct {
		name  string
		order DateOrder
		n     int
	}{{"MDY", DateOrderMDY, len(corpus)}, {"DMY", DateOrderDMY, 1500}, {"YMD", DateOrderYMD, 1500}} {
		if _, err := conn.Exec(ctx, "SET DateStyle = 'ISO, "+style.name+"'"); err != nil {
			t.Fatal(err)
		}
		pg := dtQueryPG(t, conn, corpus[:style.n])
		for i, s := range corpus[:style.n] {
			for k, ty := range dtTypes {
				total++
				ours := dtOurs(s, ty.t, style.order)
				switch reason := dtAllowed(s, ty.t, pg[i][k], ours); {
				case ours == pg[i][k]:
					agree++
				case reason != "":
					allowed[reason]++
				default:
					failures = append(failures, fmt.Sprintf("%s %q::%s: PostgreSQL %s, magmalake %s", style.name, s, ty.name, pg[i][k], ours))
				}
			}
		}
	}
	t.Logf("%d strings (all in MDY, 1500 in DMY and YMD), %d comparisons: %d agree (%.2f%%), allowed %v, %d differ",
		len(corpus), total, agree, 100*float64(agree)/float64(total), allowed, len(failures))
	if *dtDump != "" {
		if err := os.WriteFile(*dtDump, []byte(strings.Join(failures, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for k, f := range failures {
		if k == 60 {
			t.Errorf("... and %d more", len(failures)-k)
			break
		}
		t.Error(f)
	}
}

var dtTypes = []struct {
	name string
	t    Type
}{{"date", Date}, {"time", Time}, {"timestamp", Timestamp}, {"timestamptz", TimestampTZ}}

// dtQueryPG reads each string as the four types in PostgreSQL, in one query.
func dtQueryPG(t *testing.T, conn *pgx.Conn, corpus []string) [][4]string {
	t.Helper()
	rows, err := conn.Query(context.Background(), `SELECT try_date(s), try_time(s), try_timestamp(s), try_timestamptz(s)
		FROM unnest($1::text[]) WITH ORDINALITY AS u(s, n) ORDER BY n`, corpus)
	if err != nil {
		t.Fatal(err)
	}
	var pg [][4]string
	for rows.Next() {
		var r [4]string
		if err := rows.Scan(&r[0], &r[1], &r[2], &r[3]); err != nil {
			t.Fatal(err)
		}
		pg = append(pg, r)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return pg
}

// dtOurs is magmalake's answer in the form the PostgreSQL function gives.
func dtOurs(s string, t Type, order DateOrder) string {
	v, err := coerceDateTime(s, t, order)
	if err != nil {
		var e *pgerr.Error
		if errors.As(err, &e) {
			return "ERROR " + string(e.Code) + " " + e.Message
		}
		return "ERROR " + err.Error()
	}
	us := v.(int64)
	switch t.Kind {
	case KindDate:
		return string(AppendDate(nil, us))
	case KindTime:
		return string(AppendTime(nil, us))
	}
	return string(AppendTimestamp(nil, us, t.Kind == KindTimestampTZ))
}

// dtAllowed names the known, accepted disagreements; "" for any other.
func dtAllowed(s string, t Type, pg, ours string) string {
	lower := strings.ToLower(s)
	// The words that need the statement's time: CoerceText does not know it,
	// so they are refused (0A000) rather than guessed.
	if strings.HasPrefix(ours, "ERROR "+string(pgerr.FeatureNotSupported)) {
		for _, w := range []string{"now", "today", "tomorrow", "yesterday"} {
			if strings.Contains(lower, w) {
				return "needs the statement time"
			}
		}
	}
	// Timestamps are int64 microseconds since 1970, which end in 294247 AD;
	// PostgreSQL counts from 2000 and goes on to 294276.
	if t.Kind != KindDate && t.Kind != KindTime && strings.HasPrefix(ours, "ERROR "+string(pgerr.DatetimeFieldOverflow)+" timestamp out of range") &&
		strings.HasPrefix(pg, "2942") {
		return "timestamp beyond 294247 AD"
	}
	// A POSIX zone with a daylight-saving part after its offset
	// ("bct20:20est", from a zone glued to a 'T'): PostgreSQL applies its
	// default DST rules; magmalake reads standard-time-only POSIX zones.
	if name, ok := strings.CutPrefix(ours, `ERROR `+string(pgerr.InvalidParameterValue)+` time zone "`); ok {
		name = strings.TrimSuffix(name, `" not recognized`)
		if k := strings.IndexAny(name, "0123456789+-"); k >= 0 {
			if _, rest, ok := posixOffset(name[k:]); ok && rest != "" {
				return "POSIX zone with a DST part"
			}
		}
	}
	return ""
}

// dtCorpus generates n input strings from date, time, zone and era parts in
// PostgreSQL's styles, with whitespace, case changes, junk and corruptions.
func dtCorpus(rng *rand.Rand, n int) []string {
	g := dtGen{rng}
	out := make([]string, 0, n)
	for len(out) < n {
		var s string
		switch k := rng.Intn(20); {
		case k == 0:
			s = g.special()
		case k <= 3:
			s = g.timeOnly()
		case k <= 7:
			s = g.date()
		default:
			s = g.timestamp()
		}
		if rng.Intn(8) == 0 {
			s = g.corrupt(s)
		}
		s = g.caseAndSpace(s)
		if !strings.ContainsRune(s, 0) {
			out = append(out, s)
		}
	}
	return out
}

type dtGen struct{ r *rand.Rand }

func (g dtGen) pick(xs ...string) string { return xs[g.r.Intn(len(xs))] }

// chance is true with probability 1/n.
func (g dtGen) chance(n int) bool { return g.r.Intn(n) == 0 }

func (g dtGen) year() int {
	if g.chance(6) {
		return []int{0, 1, 4, 24, 69, 70, 99, 100, 999, 1582, 4713, 4714, 10000, 12024, 294276, 294277, 5874897, 5874898}[g.r.Intn(18)]
	}
	return 1900 + g.r.Intn(200)
}

func (g dtGen) month() int {
	if g.chance(12) {
		return g.r.Intn(15)
	}
	return 1 + g.r.Intn(12)
}

func (g dtGen) day(m int) int {
	if g.chance(10) {
		return g.r.Intn(33)
	}
	if m == 2 && g.chance(3) {
		return 28 + g.r.Intn(3)
	}
	return 1 + g.r.Intn(28)
}

var dtMonthNames = []string{"", "January", "February", "March", "April", "May", "June", "July",
	"August", "September", "October", "November", "December"}

func (g dtGen) monthName(m int) string {
	if m < 1 || m > 12 {
		return g.pick("Foo", "Mon", "Sept", "Dec")
	}
	name := dtMonthNames[m]
	if g.chance(2) {
		return name[:3]
	}
	return name
}

func zpad(v, w int) string { return fmt.Sprintf("%0*d", w, v) }

// yearText prints y with 4 digits, or 2 (a two-digit year) now and then.
func (g dtGen) yearText(y int) string {
	if y < 100 && g.chance(2) {
		return fmt.Sprint(y)
	}
	if g.chance(10) && y >= 1900 {
		return zpad(y%100, 2)
	}
	return zpad(y, 4)
}

func (g dtGen) date() string {
	y, m := g.year(), g.month()
	d := g.day(m)
	var s string
	switch g.r.Intn(14) {
	case 0, 1, 2:
		s = g.yearText(y) + "-" + zpad(m, 2) + "-" + zpad(d, 2)
	case 3:
		s = fmt.Sprintf("%s/%d/%s", zpad(m, 2), d, g.yearText(y))
	case 4:
		s = fmt.Sprintf("%d.%d.%s", d, m, g.yearText(y))
	case 5:
		s = zpad(y, 4) + zpad(m, 2) + zpad(d, 2)
	case 6:
		s = fmt.Sprintf("%s %d %s", g.monthName(m), d, g.yearText(y))
	case 7:
		s = fmt.Sprintf("%d-%s-%s", d, g.monthName(m), g.yearText(y))
	case 8:
		s = fmt.Sprintf("%s %d, %s", g.monthName(m), d, g.yearText(y))
	case 9:
		s = fmt.Sprintf("%s-%s-%s", zpad(y, 4), g.monthName(m), zpad(d, 2))
	case 10:
		s = fmt.Sprintf("%d %s %s", d, g.monthName(m), g.yearText(y))
	case 11:
		s = fmt.Sprintf("%s.%s", zpad(y, 4), zpad(1+g.r.Intn(367), 3))
	case 12:
		s = fmt.Sprintf("%s/%s/%s", zpad(y, 4), zpad(m, 2), zpad(d, 2))
	default:
		s = fmt.Sprintf("%s-%d-%s", g.monthName(m), d, zpad(y, 4))
	}
	if g.chance(5) {
		s = g.pick("Thu ", "Thursday, ", "mon ", "Tues ", "sat, ") + s
	}
	if g.chance(6) {
		s += g.pick(" BC", " AD", " bc", "BC")
	}
	if g.chance(6) {
		s += g.zone()
	}
	return s
}

func (g dtGen) clock() string {
	h, mi, sec := g.r.Intn(24), g.r.Intn(60), g.r.Intn(60)
	if g.chance(10) {
		h, mi, sec = g.r.Intn(27), g.r.Intn(62), g.r.Intn(62)
	}
	if g.chance(15) {
		h, mi, sec = 24, 0, 0
	}
	var s string
	switch g.r.Intn(8) {
	case 0:
		s = fmt.Sprintf("%02d:%02d", h, mi)
	case 1:
		s = fmt.Sprintf("%d:%02d:%02d %s", 1+g.r.Intn(13), mi, sec, g.pick("am", "PM", "pm", "AM"))
	case 2:
		s = fmt.Sprintf("%d:%02d %s", g.r.Intn(14), mi, g.pick("am", "PM"))
	case 3:
		s = fmt.Sprintf("%02d%02d%02d", h, mi, sec)
	default:
		s = fmt.Sprintf("%02d:%02d:%02d", h, mi, sec)
	}
	if g.chance(3) && !strings.ContainsAny(s, "aApP") {
		digits := 1 + g.r.Intn(9)
		frac := ""
		for k := 0; k < digits; k++ {
			frac += string(rune('0' + g.r.Intn(10)))
		}
		if g.chance(5) {
			frac = g.pick("5", "9999995", "0000005", "0000015", "999999", "9999999", "")
		}
		s += "." + frac
	}
	return s
}

func (g dtGen) zone() string {
	z := g.pick("Z", "z", "+02", "-08", "+0530", "+05:30", "-08:00:00", "+5", "-3", "UTC", "GMT", "+00",
		"+16", "+15", "-15:59", "+05:60", "+12:30:61", "+123", "EST", "PDT", "CET", "zulu", "Europe/Paris",
		"America/New_York", "Asia/Kolkata", "Foo/Bar", "+05:", "-0800", "+1:2", "ut")
	return g.pick(" ", "", " ") + z
}

func (g dtGen) timestamp() string {
	d := g.date()
	if strings.ContainsAny(d, "+") || strings.HasSuffix(d, "C") || strings.HasSuffix(d, "c") {
		d = g.date()
	}
	sep := g.pick(" ", " ", "T", "t", "  ", " T")
	s := d + sep + g.clock()
	if g.chance(2) {
		s += g.zone()
	}
	if g.chance(10) {
		s += g.pick(" BC", " AD")
	}
	if g.chance(8) {
		// The Unix date(1) layout: weekday, month, day, time, zone, year.
		y := g.year()
		s = fmt.Sprintf("%s %s %d %s %s %d", g.pick("Thu", "Mon", "Fri"), g.monthName(g.month()), 1+g.r.Intn(28),
			g.clock(), g.pick("UTC", "PST", "+0100", ""), y)
	}
	return s
}

func (g dtGen) timeOnly() string {
	s := g.clock()
	if g.chance(3) {
		s += g.zone()
	}
	if g.chance(10) {
		s = "T" + s
	}
	if g.chance(10) {
		s = g.pick("2024-04-11 ", "20240411 ", "Apr 11 2024 ") + s
	}
	return s
}

func (g dtGen) special() string {
	s := g.pick("epoch", "infinity", "-infinity", "allballs", "Infinity", "- infinity", "+infinity",
		"EPOCH", "now", "today", "tomorrow", "yesterday", "2024-04-11 allballs", "epoch 10:00", "allballs z",
		"infinity bc", "thu infinity", "today 10:00", "10:00 allballs", "j2451187", "y2024m04d11", "at 10:00", "on 2024-04-11")
	return s
}

// corrupt damages s: a dropped, doubled or inserted character, or a junk token.
func (g dtGen) corrupt(s string) string {
	if s == "" {
		return "x"
	}
	k := g.r.Intn(len(s))
	switch g.r.Intn(5) {
	case 0:
		return s[:k] + s[k+1:]
	case 1:
		return s[:k] + s[k:k+1] + s[k:]
	case 2:
		return s[:k] + g.pick("-", "/", ".", ":", "+", "x", "9", " ", ",", "@", "#", "é", "_") + s[k:]
	case 3:
		return s + g.pick(" foo", " 12", " @", " -", " +", " 10:00", " 2024", " pm", " bc", " thu", " at", "!", " j")
	}
	return g.pick("foo ", "# ", "-", "+", ", ", "12 ") + s
}

func (g dtGen) caseAndSpace(s string) string {
	switch g.r.Intn(10) {
	case 0:
		s = strings.ToUpper(s)
	case 1:
		s = strings.ToLower(s)
	}
	switch g.r.Intn(12) {
	case 0:
		s = "  " + s
	case 1:
		s += " \t"
	case 2:
		s = strings.ReplaceAll(s, " ", "   ")
	}
	return s
}
