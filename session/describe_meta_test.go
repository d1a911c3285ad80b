package session

import (
	"strings"
	"testing"
)

// TestDescribeMetadataTable: DESCRIBE of "t$files" and "t$snapshots" lists
// their own columns, the ones SELECT * returns, not the base table's.
func TestDescribeMetadataTable(t *testing.T) {
	s := testSession(t)
	mustQuery(t, s, "CREATE TABLE dm (id int, s text)")
	mustQuery(t, s, "INSERT INTO dm VALUES (1, 'a')")
	for _, meta := range []string{`"dm$files"`, `"dm$snapshots"`, `"dm$delete_debt_summary"`} {
		var described []string
		for _, r := range mustQuery(t, s, "DESCRIBE "+meta).rows {
			described = append(described, r[0])
		}
		selected := mustQuery(t, s, "SELECT * FROM "+meta+" LIMIT 0").cols
		if strings.Join(described, ",") != strings.Join(selected, ",") || len(selected) < 3 {
			t.Errorf("DESCRIBE %s lists %v; SELECT * has %v", meta, described, selected)
		}
	}
}
