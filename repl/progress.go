package repl

import (
	"fmt"
	"github.com/magmalake/magmalake/stmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
)

// progressEvery is how often the progress line is redrawn.
const progressEvery = 250 * time.Millisecond

// ProgressWatcher is a session that reports statements running past a
// second (the server's own session in this process; a remote one sends NOTICEs instead).
type ProgressWatcher interface {
	WatchProgress(every time.Duration, f func(stmt.ProgressReport))
}

// progressLine draws a statement's progress on one terminal line of the
// error output, like DuckDB's bar, and erases it when the statement ends.
type progressLine struct {
	mu    sync.Mutex
	w     io.Writer
	width func() int
	shown bool
}

// watchProgress shows progress when errOut is a terminal.
func (sh *Shell) watchProgress() {
	f, ok := sh.pr.errOut.(*os.File)
	w, watches := sh.sess.(ProgressWatcher)
	if !ok || !watches || !IsTerminal(f) {
		return
	}
	line := &progressLine{w: f, width: func() int { cols, _ := terminalSize(f); return cols }}
	w.WatchProgress(progressEvery, line.show)
}

func (l *progressLine) show(r stmt.ProgressReport) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if r.Done {
		if l.shown {
			io.WriteString(l.w, "\r\x1b[K")
			l.shown = false
		}
		return
	}
	io.WriteString(l.w, "\r"+progressText(r, l.width())+"\x1b[K")
	l.shown = true
}

// progressText is the bar and the report's figures, cut to width columns
// (0: unknown, 80).
func progressText(r stmt.ProgressReport, width int) string {
	if width <= 0 {
		width = 80
	}
	text := r.String()
	if frac := r.Fraction(); frac >= 0 {
		const barWidth = 20
		full := int(frac * barWidth)
		bar := strings.Repeat("=", full)
		if full < barWidth {
			bar += ">" + strings.Repeat(" ", barWidth-full-1)
		}
		text = "[" + bar + "] " + pct(frac) + " " + text
	}
	if len(text) >= width {
		// Keep whole figures: cut at the last separator that fits.
		text = text[:width-1]
		if i := strings.LastIndex(text, ", "); i > 0 {
			text = text[:i]
		}
	}
	return text
}

func pct(f float64) string { return fmt.Sprintf("%3d%%", int(f*100)) }
