package deletes

import "github.com/apache/iceberg-go/table"

// checkDiskInvariants checks what must hold on disk after any delete.
func (f *fixture) checkDiskInvariants(version int, mode Mode) {
	f.t.Helper()
	tbl := f.table()
	data, dels := f.liveFiles(tbl)
	live := map[string]bool{}
	for _, d := range data {
		live[d.FilePath()] = true
	}
	perFile := map[string]int{}
	for _, d := range dels {
		if table.IsDeletionVector(d) {
			ref := *d.ReferencedDataFile()
			perFile[ref]++
			if perFile[ref] > 1 {
				f.t.Fatalf("two live deletion vectors for %s", ref)
			}
			if !live[ref] {
				f.t.Fatalf("deletion vector for a removed data file %s", ref)
			}
			checkPuffinBlob(f.t, d)
		} else {
			checkPositionDeleteFile(f.t, d)
		}
	}
	if mode == ModeCopyOnWrite && len(dels) != 0 {
		f.t.Fatalf("copy-on-write left %d delete files", len(dels))
	}
	if version == 2 && len(perFile) != 0 {
		f.t.Fatal("deletion vectors on a v2 table")
	}
}
