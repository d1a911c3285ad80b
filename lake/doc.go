// Package lake is magmalake's Iceberg layer over Apache's iceberg-go
// (imported as iceberg): what the engine, the delete engine and the
// statements know of catalogs, tables, files and snapshots. Warehouse is
// its root and hands out one part per job; by file:
//
//   - catalogs, tables and views: warehouse.go, catalogs.go,
//     catalog_sql_commit.go, tables.go, table_cache.go, views.go,
//     names.go, locations.go, create_table.go, schema_update.go,
//     properties.go, branches.go, branch_view.go;
//   - file IO: io_*.go, table_fs.go, parquet_*.go, files.go,
//     write_errors.go, progress.go (the IO that counts a scan's reads);
//   - scans and pruning: scan*.go, plan_*.go, rowgroup*.go, pages.go,
//     page_read.go, manifest_cache.go, manifest_readback.go,
//     metadata_*.go, changes.go;
//   - the snapshot producer and commit loop (Commits): producer*.go,
//     commit*.go, manifest_*write.go, manifest_summary.go, append.go,
//     moves.go, rebase.go, cherrypick.go, snapshot.go;
//   - what maintenance needs and must respect (Maintenance): readers.go
//     and writes.go (snapshots open statements read, files they are
//     writing), expire.go, orphans.go, orphan_walk.go, sweep_marker.go,
//     retention.go, rewrite_manifests.go, file_refs.go.
package lake
