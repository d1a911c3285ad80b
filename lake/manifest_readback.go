package lake

import (
	"errors"
	"fmt"
	"reflect"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/codec"
)

// readBack is the manifest w wrote, as iceberg-go's reader gives its
// entries when mf (its line in a manifest list) is read: each data_file
// decoded from the bytes written (iceberg-go's codec, whose schema it
// caches, not the file's header, which every read parses anew), and what
// entries inherit from mf (snapshot, sequence numbers, first row ids on v3
// data manifests) filled in as the reader fills it in.
// TestWrittenManifestsReadBack compares it with reading the file.
func (w *manifestWriter) readBack(mf iceberg.ManifestFile) ([]iceberg.ManifestEntry, error) {
	inheritRows := w.version >= 3 && w.content == iceberg.ManifestContentData && mf.FirstRowID() != nil
	var nextRow int64
	if inheritRows {
		nextRow = *mf.FirstRowID()
	}
	manifestSeq := mf.SequenceNum()
	out := make([]iceberg.ManifestEntry, 0, len(w.entries))
	for _, e := range w.entries {
		df, err := codec.DecodeDataFile(e.enc, w.spec, w.schema, w.version)
		if err != nil {
			return nil, err
		}
		seq, fileSeq := e.seq, e.fileSeq
		if manifestSeq != -1 && (manifestSeq == 0 || e.status == iceberg.EntryStatusADDED) {
			if seq == nil {
				seq = &manifestSeq
			}
			if fileSeq == nil {
				fileSeq = &manifestSeq
			}
		}
		if inheritRows && e.status != iceberg.EntryStatusDELETED && df.FirstRowID() == nil {
			if err := setFirstRowID(df, nextRow); err != nil {
				return nil, err
			}
			nextRow += df.Count()
		}
		snap := e.snap
		out = append(out, iceberg.NewManifestEntry(e.status, &snap, seq, fileSeq, df))
	}
	return out, nil
}

// setFirstRowID gives a decoded data file the first row id a reader
// assigns by inheritance; DataFile has no setter for it.
func setFirstRowID(df iceberg.DataFile, id int64) error {
	v := reflect.ValueOf(df)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return errors.New("not a data file of iceberg-go")
	}
	f := v.Elem().FieldByName("FirstRowIDField")
	if !f.IsValid() || !f.CanSet() || f.Type() != reflect.TypeOf(&id) {
		return fmt.Errorf("data file has no settable first row id")
	}
	f.Set(reflect.ValueOf(&id))
	return nil
}
