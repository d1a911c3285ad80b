package lake

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
)

// Snapshot summary keys, as the Iceberg reference implementation writes them.
const (
	SummaryAddedDataFiles        = "added-data-files"
	SummaryDeletedDataFiles      = "deleted-data-files"
	SummaryAddedRecords          = "added-records"
	SummaryDeletedRecords        = "deleted-records"
	SummaryAddedFilesSize        = "added-files-size"
	SummaryRemovedFilesSize      = "removed-files-size"
	SummaryAddedDeleteFiles      = "added-delete-files"
	SummaryRemovedDeleteFiles    = "removed-delete-files"
	SummaryAddedPosDeleteFiles   = "added-position-delete-files"
	SummaryRemovedPosDeleteFiles = "removed-position-delete-files"
	SummaryAddedDVs              = "added-dvs"
	SummaryRemovedDVs            = "removed-dvs"
	SummaryAddedEqDeleteFiles    = "added-equality-delete-files"
	SummaryRemovedEqDeleteFiles  = "removed-equality-delete-files"
	SummaryAddedPosDeletes       = "added-position-deletes"
	SummaryRemovedPosDeletes     = "removed-position-deletes"
	SummaryAddedEqDeletes        = "added-equality-deletes"
	SummaryRemovedEqDeletes      = "removed-equality-deletes"
	SummaryChangedPartitions     = "changed-partition-count"
	SummaryTotalRecords          = "total-records"
	SummaryTotalFilesSize        = "total-files-size"
	SummaryTotalDataFiles        = "total-data-files"
	SummaryTotalDeleteFiles      = "total-delete-files"
	SummaryTotalPosDeletes       = "total-position-deletes"
	SummaryTotalEqDeletes        = "total-equality-deletes"
)

// summaryTotals pairs each total with the keys that raise and lower it.
var summaryTotals = []struct{ total, added, removed string }{
	{SummaryTotalRecords, SummaryAddedRecords, SummaryDeletedRecords},
	{SummaryTotalFilesSize, SummaryAddedFilesSize, SummaryRemovedFilesSize},
	{SummaryTotalDataFiles, SummaryAddedDataFiles, SummaryDeletedDataFiles},
	{SummaryTotalDeleteFiles, SummaryAddedDeleteFiles, SummaryRemovedDeleteFiles},
	{SummaryTotalPosDeletes, SummaryAddedPosDeletes, SummaryRemovedPosDeletes},
	{SummaryTotalEqDeletes, SummaryAddedEqDeletes, SummaryRemovedEqDeletes},
}

// changeCounts accumulates one snapshot's per-operation counts.
type changeCounts map[string]int64

// count adds one file to the counts. A deletion vector counts as a delete
// file and its positions as position deletes, but under added-dvs rather
// than added-position-delete-files, as the reference implementation does.
func (c changeCounts) count(df iceberg.DataFile, added bool) {
	pick := func(add, remove string) string {
		if added {
			return add
		}
		return remove
	}
	c[pick(SummaryAddedFilesSize, SummaryRemovedFilesSize)] += df.FileSizeBytes()
	switch {
	case df.ContentType() == iceberg.EntryContentData:
		c[pick(SummaryAddedDataFiles, SummaryDeletedDataFiles)]++
		c[pick(SummaryAddedRecords, SummaryDeletedRecords)] += df.Count()
		return
	case df.ContentType() == iceberg.EntryContentEqDeletes:
		c[pick(SummaryAddedEqDeleteFiles, SummaryRemovedEqDeleteFiles)]++
		c[pick(SummaryAddedEqDeletes, SummaryRemovedEqDeletes)] += df.Count()
	case isDeletionVector(df):
		c[pick(SummaryAddedDVs, SummaryRemovedDVs)]++
		c[pick(SummaryAddedPosDeletes, SummaryRemovedPosDeletes)] += df.Count()
	default:
		c[pick(SummaryAddedPosDeleteFiles, SummaryRemovedPosDeleteFiles)]++
		c[pick(SummaryAddedPosDeletes, SummaryRemovedPosDeletes)] += df.Count()
	}
	c[pick(SummaryAddedDeleteFiles, SummaryRemovedDeleteFiles)]++
}

// summary computes the new snapshot's summary: the caller's properties, the
// counts of this change (removed files as the parent records them), and the
// parent's totals adjusted. A total the parent lacks stays unknown (absent);
// the first snapshot starts from zero. Computed keys win over Props.
func (p *changePlan) summary(scan *parentScan) (table.Summary, error) {
	counts := changeCounts{}
	partitions := map[string]bool{}
	note := func(df iceberg.DataFile, added bool) {
		counts.count(df, added)
		partitions[partitionKey(df)] = true
	}
	for _, df := range slices.Concat(p.change.AddData, p.change.AddDeletes) {
		note(df, true)
	}
	for _, df := range slices.Concat(p.change.RemoveData, p.change.RemoveDeletes) {
		e, ok := scan.removed[changeFileKey(df)]
		if !ok {
			return table.Summary{}, fmt.Errorf("remove %s: %w", changeFileKey(df), ErrFileNotInSnapshot)
		}
		note(e.DataFile(), false)
	}
	props := iceberg.Properties{}
	maps.Copy(props, p.change.Props)
	for k, v := range counts {
		if v > 0 {
			props[k] = strconv.FormatInt(v, 10)
		}
	}
	if len(partitions) > 0 {
		props[SummaryChangedPartitions] = strconv.Itoa(len(partitions))
	}
	p.addTotals(props, counts)
	return table.Summary{Operation: p.op, Properties: props}, nil
}

func (p *changePlan) addTotals(props iceberg.Properties, counts changeCounts) {
	var prev iceberg.Properties
	if p.parent != nil && p.parent.Summary != nil {
		prev = p.parent.Summary.Properties
	}
	for _, t := range summaryTotals {
		var total int64
		if p.parent != nil {
			v, err := strconv.ParseInt(prev[t.total], 10, 64)
			if err != nil {
				continue // the parent's total is unknown, so ours is too
			}
			total = v
		}
		total += counts[t.added] - counts[t.removed]
		if total >= 0 {
			props[t.total] = strconv.FormatInt(total, 10)
		}
	}
}

// partitionKey names the partition a file belongs to, spec included: the
// unit changed-partition-count counts. Unpartitioned files share one.
func partitionKey(df iceberg.DataFile) string {
	part := df.Partition()
	ids := slices.Sorted(maps.Keys(part))
	var sb strings.Builder
	fmt.Fprintf(&sb, "%d", df.SpecID())
	for _, id := range ids {
		fmt.Fprintf(&sb, "/%d=%v", id, part[id])
	}
	return sb.String()
}
