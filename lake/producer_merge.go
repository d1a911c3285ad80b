package lake

import (
	"context"
	"fmt"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
)

// Every commit adds at least one manifest, and every scan and every later
// commit opens them all: without merging, a table written by many small
// statements gets slower with each one. Merging follows Java's
// MergingSnapshotProducer settings (commit.manifest-merge.enabled,
// commit.manifest.min-count-to-merge, commit.manifest.target-size-bytes)
// with two differences. Merging is on unless the table turns it off (as in
// Java; iceberg-go leaves it off). And manifests merge by size class, as a
// log-structured merge does: the count (default 4, not Java's 100: opening a
// manifest is the largest fixed cost of a small statement here) applies to
// manifests of about the same size (within a factor of four), so a table
// keeps a few manifests per class, and an entry is rewritten once per class
// it climbs instead of at every merge of the small manifests beside it.
const defaultMinCountToMerge = 4

// sizeClassBase is the upper bound of the smallest size class.
const sizeClassBase = 16 << 10

// mergePolicy is what the table's properties ask of manifest merging.
type mergePolicy struct {
	enabled  bool
	minCount int
	target   int64
}

func mergePolicyOf(props iceberg.Properties) mergePolicy {
	p := mergePolicy{
		enabled:  props.GetBool(table.ManifestMergeEnabledKey, true),
		minCount: props.GetInt(table.ManifestMinMergeCountKey, defaultMinCountToMerge),
		target:   props.GetInt64(table.ManifestTargetSizeBytesKey, table.ManifestTargetSizeBytesDefault),
	}
	if p.minCount < 2 {
		p.minCount = 2
	}
	return p
}

// mergeKey groups the manifests that may share a merged manifest.
type mergeKey struct {
	content iceberg.ManifestContent
	spec    int32
	class   int
}

// sizeClass is 0 up to sizeClassBase bytes, then one more per factor of 4.
func sizeClass(n int64) int {
	c := 0
	for limit := int64(sizeClassBase); n > limit; limit *= 4 {
		c++
	}
	return c
}

// mergeManifests merges the carried manifests: within each content,
// partition spec and size class, once minCount or more are under the target
// size, runs of them filling up to the target become one manifest whose entries are
// EXISTING with their snapshot ids and sequence numbers. The order of the
// list is kept, a merged manifest taking the place of its first member.
func (p *changePlan) mergeManifests(ctx context.Context, carried []iceberg.ManifestFile) ([]iceberg.ManifestFile, error) {
	pol := mergePolicyOf(p.meta.Properties())
	if !pol.enabled {
		return carried, nil
	}
	ours := map[string]bool{} // rewritten by this change: not merged again
	for _, path := range p.written {
		ours[path] = true
	}
	small := map[mergeKey][]int{}
	for i, mf := range carried {
		if mf.Length() < pol.target && !ours[mf.FilePath()] {
			k := mergeKey{mf.ManifestContent(), mf.PartitionSpecID(), sizeClass(mf.Length())}
			small[k] = append(small[k], i)
		}
	}
	replace := map[int]iceberg.ManifestFile{} // first member -> merged manifest
	drop := map[int]bool{}                    // later members
	for _, idx := range small {
		if len(idx) < pol.minCount {
			continue
		}
		for _, bin := range packBins(carried, idx, pol.target) {
			if len(bin) < 2 {
				continue
			}
			merged, err := p.mergeBin(ctx, carried, bin)
			if err != nil {
				return nil, err
			}
			replace[bin[0]] = merged
			for _, i := range bin[1:] {
				drop[i] = true
			}
		}
	}
	if len(replace) == 0 {
		return carried, nil
	}
	out := make([]iceberg.ManifestFile, 0, len(carried)-len(drop))
	for i, mf := range carried {
		switch {
		case drop[i]:
		case replace[i] != nil:
			out = append(out, replace[i])
		default:
			out = append(out, mf)
		}
	}
	return out, nil
}

// packBins cuts idx, in list order, into runs whose manifests add up to no
// more than target bytes (a run holds at least one).
func packBins(mfs []iceberg.ManifestFile, idx []int, target int64) [][]int {
	var bins [][]int
	var cur []int
	var size int64
	for _, i := range idx {
		n := mfs[i].Length()
		if len(cur) > 0 && size+n > target {
			bins = append(bins, cur)
			cur, size = nil, 0
		}
		cur = append(cur, i)
		size += n
	}
	if len(cur) > 0 {
		bins = append(bins, cur)
	}
	return bins
}

// mergeBin writes the live entries of the bin's manifests into one.
func (p *changePlan) mergeBin(ctx context.Context, mfs []iceberg.ManifestFile, bin []int) (iceberg.ManifestFile, error) {
	first := mfs[bin[0]]
	var entries []iceberg.ManifestEntry
	for _, i := range bin {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		es, err := p.manifests.entries(p.fs, mfs[i]) // writeExisting skips DELETED entries
		if err != nil {
			return nil, fmt.Errorf("merge manifests: read %s: %w", mfs[i].FilePath(), err)
		}
		entries = append(entries, es...)
	}
	mf, err := p.writeManifest(first.PartitionSpecID(), first.ManifestContent(), func(w *manifestWriter) error {
		return writeExisting(w, entries)
	})
	if err != nil {
		return nil, fmt.Errorf("merge %d manifests: %w", len(bin), err)
	}
	return mf, nil
}

// writeExisting writes entries as EXISTING, keeping what they inherited.
func writeExisting(w *manifestWriter, entries []iceberg.ManifestEntry) error {
	for _, e := range entries {
		if e.Status() == iceberg.EntryStatusDELETED {
			continue
		}
		if err := w.Existing(keptEntry(e)); err != nil {
			return fmt.Errorf("entry %s: %w", e.DataFile().FilePath(), err)
		}
	}
	return nil
}
