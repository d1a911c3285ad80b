package lake

import (
	"fmt"
	"strconv"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
)

// changeFileKey identifies a file in a snapshot. Several deletion vectors
// share one Puffin file, so a DV is its path plus its blob offset.
func changeFileKey(df iceberg.DataFile) string {
	if off := df.ContentOffset(); off != nil {
		return df.FilePath() + "#" + strconv.FormatInt(*off, 10)
	}
	return df.FilePath()
}

// isDeletionVector tells a v3 deletion vector from a position delete file.
func isDeletionVector(df iceberg.DataFile) bool {
	return df.ContentType() == iceberg.EntryContentPosDeletes && df.FileFormat() == iceberg.PuffinFile
}

// checkChangeShape validates change on its own, before any manifest is read:
// contents match their lists, specs exist, delete files fit the format
// version, and no file is listed twice.
func checkChangeShape(meta table.Metadata, c FileChange) error {
	seen := map[string]bool{}
	lists := []struct {
		what  string
		files []iceberg.DataFile
		data  bool
	}{
		{"added data file", c.AddData, true},
		{"removed data file", c.RemoveData, true},
		{"added delete file", c.AddDeletes, false},
		{"removed delete file", c.RemoveDeletes, false},
	}
	for _, l := range lists {
		for _, df := range l.files {
			if df == nil {
				return fmt.Errorf("%s: nil file", l.what)
			}
			if err := checkChangeFile(meta, df, l.data); err != nil {
				return fmt.Errorf("%s %s: %w", l.what, df.FilePath(), err)
			}
			k := changeFileKey(df)
			if seen[k] {
				return fmt.Errorf("%s %s: listed more than once in the change", l.what, k)
			}
			seen[k] = true
		}
	}
	return nil
}

func checkChangeFile(meta table.Metadata, df iceberg.DataFile, wantData bool) error {
	if df == nil {
		return fmt.Errorf("nil file")
	}
	isData := df.ContentType() == iceberg.EntryContentData
	switch {
	case wantData && !isData:
		return fmt.Errorf("content is %s, want data", df.ContentType())
	case !wantData && isData:
		return fmt.Errorf("content is data, want position or equality deletes")
	case !isData && meta.Version() < 2:
		return fmt.Errorf("format version %d tables cannot hold delete files", meta.Version())
	case meta.PartitionSpecByID(int(df.SpecID())) == nil:
		return fmt.Errorf("partition spec %d does not exist", df.SpecID())
	}
	if isDeletionVector(df) {
		return checkDeletionVector(meta, df)
	}
	return nil
}

func checkDeletionVector(meta table.Metadata, df iceberg.DataFile) error {
	switch {
	case meta.Version() < 3:
		return fmt.Errorf("deletion vectors need format version 3, table is %d", meta.Version())
	case df.ReferencedDataFile() == nil:
		return fmt.Errorf("deletion vector without referenced_data_file")
	case df.ContentOffset() == nil || df.ContentSizeInBytes() == nil:
		return fmt.Errorf("deletion vector without content_offset/content_size_in_bytes")
	}
	return nil
}

// checkAgainstParent checks the change against what scanParent found: every
// removed file is live in the parent, and no data file ends up with two live
// deletion vectors.
func (p *changePlan) checkAgainstParent(scan *parentScan) error {
	for _, list := range [][]iceberg.DataFile{p.change.RemoveData, p.change.RemoveDeletes} {
		for _, df := range list {
			if _, ok := scan.removed[changeFileKey(df)]; !ok {
				return fmt.Errorf("remove %s: %w", changeFileKey(df), ErrFileNotInSnapshot)
			}
		}
	}
	if err := p.checkOneDVPerFile(scan); err != nil {
		return err
	}
	return p.checkAddedRowIDs()
}

// checkOneDVPerFile enforces at most one live deletion vector per data file
// after the change: a new vector must supersede (remove) the old one.
func (p *changePlan) checkOneDVPerFile(scan *parentScan) error {
	live := map[string]int{}
	for ref, keys := range scan.liveDVs {
		for _, k := range keys {
			if _, removed := scan.removed[k]; !removed {
				live[ref]++
			}
		}
	}
	for _, df := range p.change.AddDeletes {
		if !isDeletionVector(df) {
			continue
		}
		ref := *df.ReferencedDataFile()
		live[ref]++
		if live[ref] > 1 {
			return fmt.Errorf("data file %s would have %d live deletion vectors: remove the one the new vector supersedes", ref, live[ref])
		}
	}
	return nil
}

// checkAddedRowIDs: on v3, added data files get their first_row_id by
// inheritance from the new manifests, whose ranges start at the table's
// next-row-id. A file carrying its own first_row_id is accepted only when it
// is exactly the id inheritance would give and every added file carries one;
// a mix would hand two files the same row ids.
func (p *changePlan) checkAddedRowIDs() error {
	if p.version < 3 || len(p.change.AddData) == 0 {
		return nil
	}
	explicit := 0
	for _, df := range p.change.AddData {
		if df.FirstRowID() != nil {
			explicit++
		}
	}
	if explicit == 0 {
		return nil
	}
	if explicit != len(p.change.AddData) {
		return fmt.Errorf("added data files: %d of %d carry first_row_id; leave it unset on all (CommitChange assigns row ids)",
			explicit, len(p.change.AddData))
	}
	next := p.meta.NextRowID()
	for _, group := range groupBySpec(p.change.AddData) {
		for _, df := range group {
			if got := *df.FirstRowID(); got != next {
				return fmt.Errorf("added data file %s carries first_row_id %d, its rows get %d: leave it unset", df.FilePath(), got, next)
			}
			next += df.Count()
		}
	}
	return nil
}

// groupBySpec splits files by partition spec, in order of first appearance,
// keeping their order within a spec: the order manifests are written in.
func groupBySpec(files []iceberg.DataFile) [][]iceberg.DataFile {
	idx := map[int32]int{}
	var out [][]iceberg.DataFile
	for _, df := range files {
		i, ok := idx[df.SpecID()]
		if !ok {
			i = len(out)
			idx[df.SpecID()] = i
			out = append(out, nil)
		}
		out[i] = append(out[i], df)
	}
	return out
}
