package wire

import (
	"time"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/magmalake/magmalake/exec"
	"github.com/magmalake/magmalake/pgerr"
)

// progressWatcher is a session that reports long statements' progress
// (with magmalake.progress on).
type progressWatcher interface {
	WatchProgress(every time.Duration, f func(exec.ProgressReport))
}

func (c *conn) watchProgress() {
	if w, ok := c.sess.(progressWatcher); ok {
		w.WatchProgress(time.Second, c.progressNotice)
	}
}

// progressNotice sends one report as a NOTICE at once, between the
// messages the statement's goroutine flushes: psql prints NOTICEs as they
// arrive. A failed write shows on the connection's next flush.
func (c *conn) progressNotice(r exec.ProgressReport) {
	if r.Done {
		return
	}
	msg := &pgproto3.NoticeResponse{Severity: "NOTICE", SeverityUnlocalized: "NOTICE", Code: string(pgerr.SuccessfulCompletion),
		Message: "progress: " + r.String()}
	buf, err := msg.Encode(nil)
	if err != nil {
		return
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, _ = c.nc.Write(buf)
}
