package bench

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/apache/iceberg-go/table"
	"github.com/apache/iceberg-go/table/compaction"

	"github.com/magmalake/magmalake/lake"
)

// rewriteWithIcebergGo is the baseline: iceberg-go's own compaction, as
// its CLI's `compact` runs it — plan groups with compaction.Analyze, then
// Table.RewriteDataFiles in one atomic replace snapshot — configured as
// OPTIMIZE is (compactionConfig). It returns the number of groups planned.
func rewriteWithIcebergGo(ctx context.Context, wh *lake.Warehouse, id table.Identifier, cfg MaintenanceConfig) (int, error) {
	tbl, err := wh.LoadTable(ctx, id)
	if err != nil {
		return 0, err
	}
	plan, err := compaction.Analyze(ctx, tbl, compactionConfig(tbl, cfg))
	if err != nil {
		return 0, fmt.Errorf("iceberg-go compaction plan of %s: %w", owQualified(id), err)
	}
	groups := make([]table.CompactionTaskGroup, len(plan.Groups))
	for i, g := range plan.Groups {
		groups[i] = table.CompactionTaskGroup{PartitionKey: g.PartitionKey, Tasks: g.Tasks, TotalSizeBytes: g.TotalSizeBytes}
	}
	out, err := tbl.RewriteDataFiles(ctx, groups, table.RewriteDataFilesOptions{})
	if err != nil {
		return len(groups), fmt.Errorf("iceberg-go RewriteDataFiles of %s: %w", owQualified(id), err)
	}
	if out.RewrittenGroups == 0 {
		return len(groups), errors.New("iceberg-go RewriteDataFiles rewrote nothing")
	}
	return len(groups), nil
}

// compactionConfig sets iceberg-go's planner as close to OPTIMIZE as its
// knobs allow:
//
//   - output files of the table's write.target-file-size-bytes, the size
//     OPTIMIZE's writer (iceberg-go's WriteRecords) aims at too;
//   - a file below file_size_threshold is a candidate (MinFileSizeBytes;
//     both compare with <);
//   - a file whose deleted share reaches delete_ratio_threshold is one
//     (DeleteRatioThreshold; iceberg-go counts only file-scoped deletes,
//     so a v2 position delete file naming many data files does not count,
//     while OPTIMIZE counts every deleted row);
//   - no rule by the number of delete files (OPTIMIZE has none);
//   - MinInputFiles 1: OPTIMIZE rewrites a dead file even when it is its
//     partition's only candidate (iceberg-go's 5 would skip it; it also
//     rewrites a lone small file, which OPTIMIZE leaves, but no case here
//     has one).
func compactionConfig(tbl *table.Table, cfg MaintenanceConfig) compaction.Config {
	c := compaction.DefaultConfig()
	c.TargetFileSizeBytes = tbl.Properties().GetInt64(table.WriteTargetFileSizeBytesKey, table.WriteTargetFileSizeBytesDefault)
	c.MinFileSizeBytes = min(cfg.SizeThreshold, c.TargetFileSizeBytes)
	c.MaxFileSizeBytes = c.TargetFileSizeBytes * 9 / 5
	c.MinInputFiles = 1
	c.DeleteFileThreshold = math.MaxInt
	c.DeleteRatioThreshold = cfg.RatioThreshold
	return c
}
