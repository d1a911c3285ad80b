package lake

import (
	"reflect"

	"github.com/apache/iceberg-go/table"
)

// builderBase returns meta as the base to give iceberg-go's
// MetadataBuilderFromBase and UpdateTableMetadata. For metadata it built
// itself, the builder deep-copies every snapshot, summary map included:
// with the thousands of snapshots a busy table keeps, that copy at every
// commit and every block view was a quarter of what a contended server
// allocated and 45% of its live heap, and the collector's marking of it
// slowed every statement. From metadata of another type the builder copies
// the snapshot list shallowly, so meta is wrapped in one whose Snapshots
// are read in place: the new metadata shares the snapshots that carry
// over, which neither the builder nor this module changes once committed
// (iceberg-go's own accessors still hand out deep copies). meta itself is
// returned when its snapshots cannot be read in place.
func builderBase(meta table.Metadata) table.Metadata {
	snaps, ok := snapshotsInPlace(meta)
	if !ok {
		return meta
	}
	return sharedSnapshots{Metadata: meta, snaps: snaps}
}

// sharedSnapshots is metadata whose Snapshots are the wrapped metadata's
// own list, not a copy. Only the builder sees it: embedding the interface
// hides iceberg-go's unexported builder hook, which is the point.
type sharedSnapshots struct {
	table.Metadata
	snaps []table.Snapshot
}

func (m sharedSnapshots) Snapshots() []table.Snapshot { return m.snaps }

// snapshotsInPlace is meta's snapshot list itself, reached through
// iceberg-go's exported SnapshotList field by reflection (as encoding/json
// reaches it); false for v1 metadata and for metadata whose snapshots are
// still unparsed JSON (iceberg-go decodes a parsed file's snapshots on
// first use).
func snapshotsInPlace(meta table.Metadata) ([]table.Snapshot, bool) {
	if meta == nil || meta.Version() < 2 {
		return nil, false
	}
	v := reflect.ValueOf(meta)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return nil, false
	}
	deferred := v.Elem().FieldByName("deferredSnapshots")
	if !deferred.IsValid() || deferred.Kind() != reflect.Pointer || !deferred.IsNil() {
		return nil, false
	}
	list := v.Elem().FieldByName("SnapshotList")
	if !list.IsValid() || list.Type() != reflect.TypeOf([]table.Snapshot(nil)) || !list.CanInterface() {
		return nil, false
	}
	return list.Interface().([]table.Snapshot), true
}
