package wire

import (
	"time"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/stmt"
)

// progressWatcher is a session that reports long statements' progress
// (with magmalake.progress on).
type progressWatcher interface {
	WatchProgress(every time.Duration, f func(stmt.ProgressReport))
}

func (c *conn) watchProgress() {
	if w, ok := c.ex.sess.(progressWatcher); ok {
		w.WatchProgress(time.Second, c.t.progressNotice)
	}
}

// progressNotice sends one report as a NOTICE at once, between the
// messages the statement's goroutine flushes: psql prints NOTICEs as they
// arrive. A failed write shows on the connection's next flush.
func (t *transport) progressNotice(r stmt.ProgressReport) {
	if r.Done {
		return
	}
	msg := &pgproto3.NoticeResponse{Severity: "NOTICE", SeverityUnlocalized: "NOTICE", Code: string(pgerr.SuccessfulCompletion),
		Message: "progress: " + r.String()}
	buf, err := msg.Encode(nil)
	if err != nil {
		return
	}
	t.wmu.Lock()
	defer t.wmu.Unlock()
	_, _ = t.nc.Write(buf)
}
