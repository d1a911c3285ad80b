package lake

import (
	"compress/gzip"
	"context"
	dbsql "database/sql"
	"errors"
	"fmt"
	"io"
	"path"
	"regexp"
	"strconv"
	"strings"

	"github.com/apache/iceberg-go/catalog"
	iceio "github.com/apache/iceberg-go/io"
	"github.com/apache/iceberg-go/table"
	"github.com/klauspost/compress/zstd"
)

// sqlCommitCatalog commits to a SQL catalog itself, through the catalog's
// table of tables (iceberg_tables, the schema iceberg-go's SQL catalog
// shares with Java's JdbcCatalog and PyIceberg's SqlCatalog): a commit
// is a compare-and-swap of each table's metadata_location row, so several
// tables can move in one database transaction (CommitTransaction), which
// iceberg-go's SQL catalog does not offer. A single table's commit also
// starts from the table as loaded through the wrapped catalog (the parsed
// tables cache) instead of parsing its metadata file again.
type sqlCommitCatalog struct {
	catalog.Catalog
	db   *dbsql.DB
	name string // the catalog_name column
	// bind is the driver's placeholder for the n-th argument (from 1).
	bind func(n int) string
	// json encodes the metadata files it writes.
	json metadataJSON
}

var (
	_ catalog.TransactionalCatalog = (*sqlCommitCatalog)(nil)
	// The metadata file names Java and iceberg-go write: 00012-<uuid>.metadata.json.
	metadataVersionRe = regexp.MustCompile(`^(\d+)-[\w-]{36}(?:\.\w+)?\.metadata\.json$`)
)

// stagedMetadata is one table's new metadata, written but not yet swapped in.
type stagedMetadata struct {
	cur     *table.Table
	meta    table.Metadata
	loc     string
	written bool
}

// CommitTable commits one table as CommitTransaction does. A table the
// catalog does not hold yet (a create) goes to the wrapped catalog.
func (c *sqlCommitCatalog) CommitTable(ctx context.Context, ident table.Identifier, reqs []table.Requirement, updates []table.Update) (table.Metadata, string, error) {
	if len(ident) != 2 {
		return c.Catalog.CommitTable(ctx, ident, reqs, updates)
	}
	cur, err := c.Catalog.LoadTable(ctx, ident)
	if errors.Is(err, catalog.ErrNoSuchTable) {
		return c.Catalog.CommitTable(ctx, ident, reqs, updates)
	}
	if err != nil {
		return nil, "", err
	}
	staged, err := c.commit(ctx, []*table.Table{cur}, []table.TableCommit{{Identifier: ident, Requirements: reqs, Updates: updates}})
	if err != nil {
		return nil, "", err
	}
	return staged[0].meta, staged[0].loc, nil
}

// CommitTransaction commits every table's updates, all or none.
func (c *sqlCommitCatalog) CommitTransaction(ctx context.Context, commits []table.TableCommit) error {
	if len(commits) == 0 {
		return catalog.ErrEmptyCommitList
	}
	curs := make([]*table.Table, len(commits))
	for i, tc := range commits {
		if len(tc.Identifier) != 2 {
			return ErrNotAtomic // nested namespaces: their row keys are the wrapped catalog's business
		}
		cur, err := c.Catalog.LoadTable(ctx, tc.Identifier)
		if err != nil {
			return err
		}
		curs[i] = cur
	}
	_, err := c.commit(ctx, curs, commits)
	return err
}

// commit writes each table's new metadata file, then swaps all rows in one
// database transaction. A row that no longer names the metadata the
// updates were checked against fails the whole transaction as a conflict
// (table.ErrCommitFailed), and the new metadata files are removed.
func (c *sqlCommitCatalog) commit(ctx context.Context, curs []*table.Table, commits []table.TableCommit) ([]*stagedMetadata, error) {
	staged := make([]*stagedMetadata, len(commits))
	removeAll := func() {
		for _, s := range staged {
			if s != nil && s.written {
				commitRemoveWritten(s.cur, []string{s.loc})
			}
		}
	}
	for i, tc := range commits {
		s, err := stageMetadata(ctx, curs[i], tc, &c.json)
		if err != nil {
			removeAll()
			return nil, err
		}
		staged[i] = s
	}
	if err := c.swap(ctx, staged); err != nil {
		if !errors.Is(err, ErrCommitUnknown) {
			removeAll()
		}
		return nil, err
	}
	for _, s := range staged {
		r, ok := c.Catalog.(interface{ remember(*table.Table) })
		if !ok || !s.written {
			continue
		}
		if fsF, err := sharedFS(ctx, s.cur); err == nil {
			r.remember(table.New(s.cur.Identifier(), s.meta, s.loc, fsF, c))
		}
	}
	return staged, nil
}

// stageMetadata checks tc's requirements against cur, applies its updates
// and writes the new metadata file next to cur's.
func stageMetadata(ctx context.Context, cur *table.Table, tc table.TableCommit, enc *metadataJSON) (*stagedMetadata, error) {
	what := "commit " + IdentKey(tc.Identifier)
	for _, r := range tc.Requirements {
		if err := r.Validate(cur.Metadata()); err != nil {
			return nil, fmt.Errorf("%s: %w: %w", what, table.ErrCommitFailed, err)
		}
	}
	meta, err := table.UpdateTableMetadata(builderBase(cur.Metadata()), tc.Updates, cur.MetadataLocation())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	s := &stagedMetadata{cur: cur, meta: meta, loc: cur.MetadataLocation()}
	if meta.Equals(cur.Metadata()) {
		return s, nil
	}
	version, ok := metadataVersion(cur.MetadataLocation())
	if !ok {
		return nil, fmt.Errorf("%s: metadata file name %q carries no version", what, path.Base(cur.MetadataLocation()))
	}
	provider, err := table.LoadLocationProvider(meta.Location(), meta.Properties())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	if s.loc, err = provider.NewTableMetadataFileLocation(version + 1); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	if err := writeMetadataFile(ctx, cur, meta, s.loc, enc); err != nil {
		commitRemoveWritten(cur, []string{s.loc})
		return nil, fmt.Errorf("%s: write %s: %w", what, s.loc, err)
	}
	s.written = true
	return s, nil
}

// metadataVersion is the version a metadata file's name starts with.
func metadataVersion(location string) (int, bool) {
	m := metadataVersionRe.FindStringSubmatch(path.Base(location))
	if m == nil {
		return 0, false
	}
	v, err := strconv.Atoi(m[1])
	return v, err == nil
}

// writeMetadataFile writes meta as JSON, compressed as the table asks
// (write.metadata.compression-codec: none, gzip or zstd, as iceberg-go's
// catalogs write it; the file name says which).
func writeMetadataFile(ctx context.Context, cur *table.Table, meta table.Metadata, loc string, enc *metadataJSON) (err error) {
	fsys, err := cur.FS(ctx)
	if err != nil {
		return err
	}
	wfs, ok := fsys.(iceio.WriteFileIO)
	if !ok {
		return errors.New("the table's file IO cannot write")
	}
	codec := meta.Properties().Get(table.MetadataCompressionKey, table.MetadataCompressionDefault)
	switch codec {
	case table.MetadataCompressionCodecNone, table.MetadataCompressionCodecGzip, table.MetadataCompressionCodecZstd:
	default:
		return fmt.Errorf("%s %q is not supported", table.MetadataCompressionKey, codec)
	}
	out, err := wfs.Create(loc)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := out.Close(); err == nil {
			err = cerr
		}
	}()
	var w io.WriteCloser
	switch codec {
	case table.MetadataCompressionCodecGzip:
		w = gzip.NewWriter(out)
	case table.MetadataCompressionCodecZstd:
		if w, err = zstd.NewWriter(out); err != nil {
			return err
		}
	default:
		return enc.write(out, meta)
	}
	defer func() {
		if cerr := w.Close(); err == nil {
			err = cerr
		}
	}()
	return enc.write(w, meta)
}

// swap moves every staged table's row from its current metadata file to
// its new one in one database transaction.
func (c *sqlCommitCatalog) swap(ctx context.Context, staged []*stagedMetadata) error {
	// The swap is not cancellable: one cut short leaves its outcome open.
	ctx = context.WithoutCancel(ctx)
	tx, err := c.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("commit: begin: %w", err)
	}
	defer tx.Rollback()
	q := fmt.Sprintf(`UPDATE iceberg_tables SET metadata_location = %s, previous_metadata_location = %s
		WHERE catalog_name = %s AND table_namespace = %s AND table_name = %s AND metadata_location = %s`,
		c.bind(1), c.bind(2), c.bind(3), c.bind(4), c.bind(5), c.bind(6))
	for _, s := range staged {
		if !s.written {
			continue
		}
		ident, old := s.cur.Identifier(), s.cur.MetadataLocation()
		res, err := tx.ExecContext(ctx, q, s.loc, old, c.name, sqlNamespaceKey(ident[:1]), ident[1], old)
		if err != nil {
			return fmt.Errorf("commit %s: %w", IdentKey(ident), err)
		}
		if n, err := res.RowsAffected(); err != nil || n != 1 {
			return fmt.Errorf("commit %s: %w: its metadata moved on since %s", IdentKey(ident), table.ErrCommitFailed, path.Base(old))
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit %s: %w (%w)", stagedNames(staged), err, ErrCommitUnknown)
	}
	return nil
}

func stagedNames(staged []*stagedMetadata) string {
	names := make([]string, len(staged))
	for i, s := range staged {
		names[i] = IdentKey(s.cur.Identifier())
	}
	return strings.Join(names, ", ")
}

// questionMarks binds SQLite's and MySQL's placeholders.
func questionMarks(int) string { return "?" }

// dollarNumbers binds PostgreSQL's.
func dollarNumbers(n int) string { return "$" + strconv.Itoa(n) }
