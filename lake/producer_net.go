package lake

import (
	"fmt"
	"maps"
	"slices"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
)

// View is base as it would be once s committed: its metadata carries the
// staged snapshot as main's head, so statements later in a transaction can
// plan and scan against it. It is read-only: its catalog is nil, and a
// commit must go through CommitChange from the real base.
func (s *StagedChange) View(base *table.Table) (*table.Table, error) {
	b, err := table.MetadataBuilderFromBase(builderBase(base.Metadata()), base.MetadataLocation())
	if err != nil {
		return nil, fmt.Errorf("staged view of %s: %w", IdentKey(base.Identifier()), err)
	}
	for _, u := range s.Updates {
		if err := u.Apply(b); err != nil {
			return nil, fmt.Errorf("staged view of %s: %s: %w", IdentKey(base.Identifier()), u.Action(), err)
		}
	}
	meta, err := b.Build()
	if err != nil {
		return nil, fmt.Errorf("staged view of %s: %w", IdentKey(base.Identifier()), err)
	}
	return table.New(base.Identifier(), meta, base.MetadataLocation(), base.FS, nil), nil
}

// Then is the net change of c followed by next, where next was planned
// against the table as c left it: a file c added and next removes cancels
// out. The result applies to the table c was planned against, as one
// snapshot. orphans are the paths of cancelled files no remaining added file
// shares (a Puffin file can hold several DVs): delete them once the net
// change commits or is abandoned.
//
// It refuses next adding equality deletes when c added data: in one
// snapshot they share a sequence number, and equality deletes only apply to
// older data, so they would no longer delete c's rows.
func (c FileChange) Then(next FileChange) (net FileChange, orphans []string, err error) {
	if len(c.AddData) > 0 && slices.ContainsFunc(next.AddDeletes, isEqualityDelete) {
		return FileChange{}, nil, fmt.Errorf("equality deletes after added data cannot share one snapshot with it")
	}
	addData, cancelledData, err := netFiles(c.AddData, c.RemoveData, next.AddData, next.RemoveData)
	if err != nil {
		return FileChange{}, nil, fmt.Errorf("data files: %w", err)
	}
	addDeletes, cancelledDeletes, err := netFiles(c.AddDeletes, c.RemoveDeletes, next.AddDeletes, next.RemoveDeletes)
	if err != nil {
		return FileChange{}, nil, fmt.Errorf("delete files: %w", err)
	}
	net = FileChange{
		AddData:       addData,
		RemoveData:    netRemoved(c.RemoveData, next.RemoveData, cancelledData),
		AddDeletes:    addDeletes,
		RemoveDeletes: netRemoved(c.RemoveDeletes, next.RemoveDeletes, cancelledDeletes),
		Props:         mergeProps(c.Props, next.Props),
		Rebase:        rebaseOf(c, next),
	}
	if c.Operation == next.Operation {
		net.Operation = c.Operation
	}
	return net, orphanPaths(slices.Concat(cancelledData, cancelledDeletes), slices.Concat(addData, addDeletes)), nil
}

func isEqualityDelete(df iceberg.DataFile) bool {
	return df.ContentType() == iceberg.EntryContentEqDeletes
}

// netFiles is what stays added after both steps, and the files first added
// then removed. A file removed by both steps, or added twice, is an error:
// next cannot see such a file.
func netFiles(add1, remove1, add2, remove2 []iceberg.DataFile) (added, cancelled []iceberg.DataFile, err error) {
	removedFirst := keySet(remove1)
	addedFirst := keySet(add1)
	for _, df := range remove2 {
		if removedFirst[changeFileKey(df)] {
			return nil, nil, fmt.Errorf("%s removed twice", changeFileKey(df))
		}
	}
	for _, df := range add2 {
		if addedFirst[changeFileKey(df)] {
			return nil, nil, fmt.Errorf("%s added twice", changeFileKey(df))
		}
	}
	removedNext := keySet(remove2)
	for _, df := range slices.Concat(add1, add2) {
		if removedNext[changeFileKey(df)] && addedFirst[changeFileKey(df)] {
			cancelled = append(cancelled, df)
			continue
		}
		added = append(added, df)
	}
	return added, cancelled, nil
}

// netRemoved is both steps' removals less those of files the first step
// added (they never reached the base).
func netRemoved(remove1, remove2, cancelled []iceberg.DataFile) []iceberg.DataFile {
	skip := keySet(cancelled)
	out := slices.Clone(remove1)
	for _, df := range remove2 {
		if !skip[changeFileKey(df)] {
			out = append(out, df)
		}
	}
	return out
}

func keySet(files []iceberg.DataFile) map[string]bool {
	out := make(map[string]bool, len(files))
	for _, df := range files {
		out[changeFileKey(df)] = true
	}
	return out
}

// orphanPaths are the distinct paths of cancelled files that no kept file
// still lives in.
func orphanPaths(cancelled, kept []iceberg.DataFile) []string {
	inUse := map[string]bool{}
	for _, df := range kept {
		inUse[df.FilePath()] = true
	}
	var out []string
	for _, df := range cancelled {
		if p := df.FilePath(); !inUse[p] && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

func mergeProps(a, b map[string]string) map[string]string {
	if len(a)+len(b) == 0 {
		return nil
	}
	out := maps.Clone(a)
	if out == nil {
		out = map[string]string{}
	}
	maps.Copy(out, b)
	return out
}
