package lake

// Maintenance is a warehouse's upkeep of its tables' files: expiring
// snapshots (expire.go), removing orphan files (orphans.go, with the sweep
// markers of sweep_marker.go), rewriting manifests (rewrite_manifests.go)
// and listing a snapshot's files (file_refs.go). It owns the cache of what
// manifests name, which expiry and orphan removal share.
type Maintenance struct {
	wh      *Warehouse
	commits *Commits  // whose turns it takes and whose readers and writers it spares
	refs    *FileRefs // what manifests name, for expiry and orphan removal
}
