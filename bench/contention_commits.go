package bench

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/apache/iceberg-go/table"

	"github.com/magmalake/magmalake/lake"
)

// CommitStats is what the snapshots a workload committed say about their
// commits (magmalake records its statements and catalog attempts in each
// snapshot's summary).
type CommitStats struct {
	Snapshots  int `json:"snapshots"`
	Statements int `json:"statements"` // statements those snapshots committed
	Attempts   int `json:"attempts"`   // their tries at the catalog's compare-and-swap
	// RetriesPerCommit is the rounds a statement lost at the catalog before
	// its commit landed, on average.
	RetriesPerCommit float64 `json:"retries_per_commit"`
	// Rewrites is the snapshots background maintenance committed (replace
	// operations), counted apart from the statements'.
	Rewrites int `json:"rewrites"`
	// Expired: the table no longer holds the snapshots from before the
	// workload (maintenance expired them), so the figures cover the
	// snapshots kept, not every commit.
	Expired bool   `json:"expired,omitempty"`
	Err     string `json:"error,omitempty"`
}

// commitStats reads the table's snapshots committed since start.
func (l *sharedLake) commitStats(ctx context.Context, name string, start time.Time) CommitStats {
	var s CommitStats
	if err := l.readCommitStats(ctx, name, start, &s); err != nil {
		s.Err = err.Error()
	}
	if s.Statements > 0 {
		s.RetriesPerCommit = float64(s.Attempts-s.Statements) / float64(s.Statements)
	}
	return s
}

func (l *sharedLake) readCommitStats(ctx context.Context, name string, start time.Time, s *CommitStats) error {
	tbl, done, err := l.loadTable(ctx, name)
	if err != nil {
		return err
	}
	defer done()
	s.Expired = true
	for _, snap := range tbl.Metadata().Snapshots() {
		if snap.TimestampMs < start.UnixMilli() {
			s.Expired = false
		}
		if snap.TimestampMs < start.UnixMilli() || snap.Summary == nil {
			continue
		}
		stmts, err1 := strconv.Atoi(snap.Summary.Properties[lake.SummaryStatements])
		tries, err2 := strconv.Atoi(snap.Summary.Properties[lake.SummaryAttempts])
		if err1 != nil || err2 != nil {
			continue // not committed by magmalake's commit loop
		}
		if snap.Summary.Operation == table.OpReplace {
			s.Rewrites++
			continue
		}
		s.Snapshots++
		s.Statements += stmts
		s.Attempts += tries
	}
	return l.checkSnapshots(ctx, name)
}

// checkSnapshots is checkSnapshotFiles on the table as loaded now, again
// if it fails: maintenance running meanwhile may have expired a snapshot
// (and removed its files) after the table was loaded. A file missing from
// a snapshot the table still keeps stays missing.
func (l *sharedLake) checkSnapshots(ctx context.Context, name string) error {
	var err error
	for range 3 {
		tbl, done, lerr := l.loadTable(ctx, name)
		if lerr != nil {
			return lerr
		}
		err = checkSnapshotFiles(ctx, tbl)
		done()
		if err == nil {
			return nil
		}
	}
	return err
}

// checkSnapshotFiles makes sure every snapshot the table keeps can still be
// read: its manifest list and each manifest it lists exist. Maintenance
// and failed commits remove files; none may be one a kept snapshot names.
func checkSnapshotFiles(ctx context.Context, tbl *table.Table) error {
	fs, err := tbl.FS(ctx)
	if err != nil {
		return err
	}
	seen := map[string]bool{}
	for _, snap := range tbl.Metadata().Snapshots() {
		manifests, err := snap.Manifests(fs)
		if err != nil {
			return fmt.Errorf("snapshot %d: manifest list: %w", snap.SnapshotID, err)
		}
		for _, m := range manifests {
			if seen[m.FilePath()] {
				continue
			}
			seen[m.FilePath()] = true
			f, err := fs.Open(m.FilePath())
			if err != nil {
				return fmt.Errorf("snapshot %d lists a manifest that is gone: %w", snap.SnapshotID, err)
			}
			f.Close()
		}
	}
	return nil
}

// line is the stats as the text report shows them.
func (s CommitStats) line() string {
	if s.Err != "" {
		return "; commits unknown (" + s.Err + ")"
	}
	if s.Snapshots == 0 {
		return ""
	}
	kept := ""
	if s.Expired {
		kept = " kept"
	}
	line := fmt.Sprintf("; %d snapshots%s of %d statements (%.1f per snapshot), %.2f retries per commit",
		s.Snapshots, kept, s.Statements, float64(s.Statements)/float64(s.Snapshots), s.RetriesPerCommit)
	if s.Rewrites > 0 {
		line += fmt.Sprintf(", %d rewrites by maintenance", s.Rewrites)
	}
	return line
}
