package lake

import (
	"bytes"
	"context"
	"fmt"

	iceio "github.com/apache/iceberg-go/io"
	"github.com/apache/iceberg-go/puffin"
	"github.com/apache/iceberg-go/table"
	"github.com/google/uuid"

	"github.com/magmalake/magmalake/internal/theta"
)

// writeStatisticsFile writes the sketches of cols, computed from snap, as
// one Puffin file in the table's metadata directory, named as Iceberg's
// Java writers name theirs (<snapshot id>-<uuid>.stats), and returns its
// entry for the table's metadata.
func writeStatisticsFile(ctx context.Context, tbl *table.Table, snap table.Snapshot, cols []sketchedColumn, sketches []*theta.Sketch, kept []keptBlob) (table.StatisticsFile, error) {
	var buf bytes.Buffer
	w, err := puffin.NewWriter(&buf)
	if err != nil {
		return table.StatisticsFile{}, err
	}
	if err := w.SetCreatedBy("magmalake"); err != nil {
		return table.StatisticsFile{}, err
	}
	var blobs []table.BlobMetadata
	for i, c := range cols {
		data, err := sketches[i].Compact().MarshalBinary()
		if err != nil {
			return table.StatisticsFile{}, err
		}
		bm := table.BlobMetadata{
			Type: table.BlobTypeApacheDatasketchesThetaV1, SnapshotID: snap.SnapshotID,
			SequenceNumber: snap.SequenceNumber, Fields: []int32{int32(c.field.ID)},
			Properties: map[string]string{ndvProperty: formatNDV(ndvOf(sketches[i]))},
		}
		if _, err := w.AddBlob(puffin.BlobMetadataInput{Type: puffin.BlobType(bm.Type), SnapshotID: bm.SnapshotID,
			SequenceNumber: bm.SequenceNumber, Fields: bm.Fields, Properties: bm.Properties}, data); err != nil {
			return table.StatisticsFile{}, err
		}
		blobs = append(blobs, bm)
	}
	for _, k := range kept {
		if _, err := w.AddBlob(puffin.BlobMetadataInput{Type: puffin.BlobType(k.meta.Type), SnapshotID: k.meta.SnapshotID,
			SequenceNumber: k.meta.SequenceNumber, Fields: k.meta.Fields, Properties: k.meta.Properties}, k.data); err != nil {
			return table.StatisticsFile{}, err
		}
		blobs = append(blobs, k.meta)
	}
	beforeFooter := int64(buf.Len())
	if err := w.Finish(); err != nil {
		return table.StatisticsFile{}, err
	}
	provider, err := table.LoadLocationProvider(tbl.Location(), tbl.Properties())
	if err != nil {
		return table.StatisticsFile{}, err
	}
	path := provider.NewMetadataLocation(fmt.Sprintf("%d-%s.stats", snap.SnapshotID, uuid.New()))
	fs, err := FS(ctx, tbl)
	if err != nil {
		return table.StatisticsFile{}, err
	}
	wfs, ok := fs.(iceio.WriteFileIO)
	if !ok {
		return table.StatisticsFile{}, fmt.Errorf("the file system of %s cannot write", IdentKey(tbl.Identifier()))
	}
	if err := writeBytes(wfs, path, buf.Bytes()); err != nil {
		return table.StatisticsFile{}, err
	}
	return table.StatisticsFile{
		SnapshotID: snap.SnapshotID, StatisticsPath: path, FileSizeInBytes: int64(buf.Len()),
		FileFooterSizeInBytes: int64(buf.Len()) - beforeFooter, BlobMetadata: blobs,
	}, nil
}

// keptBlob is a blob of a snapshot's statistics that an ANALYZE of some of
// its columns keeps: the other columns' sketches, as they were computed.
type keptBlob struct {
	meta table.BlobMetadata
	data []byte
}

// keptBlobs are the theta blobs of the statistics snapshot snapID of tbl
// has, for the columns not among cols: ANALYZE t (a) leaves b's statistics
// as they were, as PostgreSQL's does. Statistics are informational: a
// file that cannot be read keeps nothing.
func keptBlobs(ctx context.Context, tbl *table.Table, snapID int64, cols []sketchedColumn) []keptBlob {
	var sf *table.StatisticsFile
	for e := range tbl.Metadata().Statistics() {
		if e.SnapshotID == snapID {
			sf = &e
		}
	}
	if sf == nil {
		return nil
	}
	analyzed := map[int32]bool{}
	for _, c := range cols {
		analyzed[int32(c.field.ID)] = true
	}
	fs, err := FS(ctx, tbl)
	if err != nil {
		return nil
	}
	f, err := fs.Open(sf.StatisticsPath)
	if err != nil {
		return nil
	}
	defer f.Close()
	r, err := puffin.NewReader(f)
	if err != nil {
		return nil
	}
	var out []keptBlob
	for _, b := range r.Blobs() {
		if string(b.Type) != string(table.BlobTypeApacheDatasketchesThetaV1) || len(b.Fields) != 1 || analyzed[b.Fields[0]] {
			continue
		}
		data, err := r.ReadBlobByMetadata(b)
		if err != nil {
			return nil
		}
		out = append(out, keptBlob{meta: table.BlobMetadata{Type: table.BlobTypeApacheDatasketchesThetaV1, SnapshotID: b.SnapshotID,
			SequenceNumber: b.SequenceNumber, Fields: b.Fields, Properties: b.Properties}, data: data})
	}
	return out
}
