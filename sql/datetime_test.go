package sql

import (
	"testing"

	"github.com/magmalake/magmalake/pgerr"
)

// TestDateTimeInput pins the forms clients send (pgjdbc's setDate sends
// '2024-04-11 +00') without a PostgreSQL to compare with; the generated
// corpus in datetime_pg_test.go checks the rest against PostgreSQL.
func TestDateTimeInput(t *testing.T) {
	cases := []struct {
		in   string
		t    Type
		want string
	}{
		{"2024-04-11 +00", Date, "2024-04-11"},
		{"2024-04-11 10:00:00.123456+02", TimestampTZ, "2024-04-11 08:00:00.123456+00"},
		{"2024-04-11T10:11:12Z", Timestamp, "2024-04-11 10:11:12"},
		{"20240411T101112", Timestamp, "2024-04-11 10:11:12"},
		{"2024-04-11 10:00 -08:00:00", TimestampTZ, "2024-04-11 18:00:00+00"},
		{"2024-04-11 10:00 +0530", TimestampTZ, "2024-04-11 04:30:00+00"},
		{"Thu Apr 11 2024", Date, "2024-04-11"},
		{"11-Apr-2024", Date, "2024-04-11"},
		{"April 11, 2024", Date, "2024-04-11"},
		{"2024-APR-11", Date, "2024-04-11"},
		{"04/11/2024", Date, "2024-04-11"},
		{"0001-01-01 BC", Date, "0001-01-01 BC"},
		{"12024-04-11", Date, "12024-04-11"},
		{"epoch", TimestampTZ, "1970-01-01 00:00:00+00"},
		{"infinity", Date, "infinity"},
		{"-infinity", Timestamp, "-infinity"},
		{"allballs", Time, "00:00:00"},
		{"10:00 PM", Time, "22:00:00"},
		{"1:02:03 am", Time, "01:02:03"},
		{"24:00:00", Time, "24:00:00"},
		{"10:00:00.5+02", Time, "10:00:00.5"},
		{"2024-02-30", Date, `ERROR ` + string(pgerr.DatetimeFieldOverflow) + ` date/time field value out of range: "2024-02-30"`},
		{"25:00", Time, `ERROR ` + string(pgerr.DatetimeFieldOverflow) + ` date/time field value out of range: "25:00"`},
		{"garbage", Date, `ERROR ` + string(pgerr.InvalidDatetimeFormat) + ` invalid input syntax for type date: "garbage"`},
		{"2024-04-11 +16", TimestampTZ, `ERROR ` + string(pgerr.InvalidTimeZoneDisplacementValue) + ` time zone displacement out of range: "2024-04-11 +16"`},
		{"today", Date, `ERROR ` + string(pgerr.FeatureNotSupported) + ` special date value "today" is not supported`},
	}
	for _, c := range cases {
		if got := dtOurs(c.in, c.t, DateOrderMDY); got != c.want {
			t.Errorf("%q::%s = %s, want %s", c.in, c.t, got, c.want)
		}
	}
	for in, want := range map[string]string{"04/11/2024": "2024-11-04", "11.04.24": "2024-04-11"} {
		if got := dtOurs(in, Date, DateOrderDMY); got != want {
			t.Errorf("DMY %q = %s, want %s", in, got, want)
		}
	}
}
