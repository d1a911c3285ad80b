package session

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/magmalake/magmalake/lake"
	"github.com/magmalake/magmalake/pgerr"
)

// statement_timeout (and idle_in_transaction_session_timeout), as PostgreSQL's: a statement running longer, rows sent
// included, is cancelled with 57014 "canceling statement due to statement
// timeout", and what it wrote is removed as for any cancelled statement.

// durationCheck reads the time setting name: an integer of milliseconds or
// a number with a unit (us, ms, s, min, h, d); 0 disables it.
func durationCheck(name string) func(string) (string, error) {
	return func(v string) (string, error) { return checkDuration(name, v) }
}

func checkDuration(name, v string) (string, error) {
	d, ok := parseDuration(v)
	if !ok {
		return "", pgerr.Errorf(pgerr.InvalidParameterValue, "invalid value for parameter \"%s\": \"%s\"", name, v)
	}
	if d == 0 {
		return "0", nil
	}
	ms := d.Milliseconds()
	switch {
	case ms%3600000 == 0:
		return strconv.FormatInt(ms/3600000, 10) + "h", nil
	case ms%60000 == 0:
		return strconv.FormatInt(ms/60000, 10) + "min", nil
	case ms%1000 == 0:
		return strconv.FormatInt(ms/1000, 10) + "s", nil
	}
	return strconv.FormatInt(ms, 10) + "ms", nil
}

func parseDuration(v string) (time.Duration, bool) {
	s := strings.TrimSpace(v)
	units := []struct {
		suffix string
		unit   time.Duration
	}{{"us", time.Microsecond}, {"ms", time.Millisecond}, {"min", time.Minute}, {"s", time.Second}, {"h", time.Hour}, {"d", 24 * time.Hour}}
	unit := time.Millisecond
	for _, u := range units {
		if strings.HasSuffix(s, u.suffix) {
			s, unit = strings.TrimSpace(strings.TrimSuffix(s, u.suffix)), u.unit
			break
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 || n > int64(1<<31) {
		return 0, false
	}
	return time.Duration(n) * unit, true
}

// statementDeadline is when the statement starting now must end (zero: never).
func (s *Settings) statementDeadline(start time.Time) time.Time {
	d := s.durationSetting("statement_timeout")
	if d == 0 {
		return time.Time{}
	}
	return start.Add(d)
}

// IdleInTransactionTimeout is idle_in_transaction_session_timeout (0: off):
// the wire ends a session left idle inside a transaction block this long
// (25P03), as PostgreSQL does, so it cannot hold its block's staged files.
func (s *Session) IdleInTransactionTimeout() time.Duration {
	return s.settings.durationSetting("idle_in_transaction_session_timeout")
}

// withLockTimeout bounds the statement's wait for a table's commit turn
// behind this server's other commits by lock_timeout (55P03), PostgreSQL's
// limit on waiting for a lock.
func (s *Settings) withLockTimeout(ctx context.Context) context.Context {
	return lake.WithLockTimeout(ctx, s.durationSetting("lock_timeout"))
}

func (s *Settings) durationSetting(name string) time.Duration {
	v, _ := s.Get(name)
	d, ok := parseDuration(v)
	if !ok {
		return 0
	}
	return d
}
