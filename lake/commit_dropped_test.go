package lake

import (
	"context"
	"errors"
	"slices"
	"testing"
)

// TestCommitChangeOnDroppedTable: a table dropped between staging and the
// swap is a known outcome (nothing can reference the change), so the
// manifests go and the error is "no such table", not "outcome unknown".
func TestCommitChangeOnDroppedTable(t *testing.T) {
	ctx := context.Background()
	w := openTest(t, t.TempDir())
	ident := createPCTable(t, w, "gone", 2)
	cols := pcCols()
	base := appendRows(t, w, ident, cols, genRows(cols, 0, 10))
	before := avroFiles(t, base)
	change := FileChange{AddData: writeRows(t, base, 50, 55)}
	if err := w.Tables().DropTable(ctx, ident, false); err != nil {
		t.Fatal(err)
	}
	_, err := CommitChange(ctx, w.Catalog(), base, change)
	if !errors.Is(err, ErrNoSuchTable) || errors.Is(err, ErrCommitUnknown) {
		t.Fatalf("commit on a dropped table: %v", err)
	}
	if got := avroFiles(t, base); !slices.Equal(got, before) {
		t.Fatalf("manifests left behind: %v, before %v", got, before)
	}
}
