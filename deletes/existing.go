package deletes

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
	"github.com/apache/iceberg-go/table/dv"
)

// deleteIndex reads the delete files that apply to the planned data files,
// each at most once per plan even when many data files (and workers) share it.
type deleteIndex struct {
	reader positionalReader
	schema *iceberg.Schema

	mu  sync.Mutex
	pos map[string]*posDeleteFile
	eq  map[string]*eqDeleteFile
}

// posDeleteFile is one v2 position delete file: positions by data file, and
// every data file it names (to know when removing it is safe).
type posDeleteFile struct {
	once   sync.Once
	byData map[string][]int64
	err    error
}

// eqDeleteFile is one equality delete file: its key columns and key set.
type eqDeleteFile struct {
	once   sync.Once
	ids    []int
	keys   map[string]struct{}
	schema *iceberg.Schema
	err    error
}

func newDeleteIndex(reader positionalReader, sc *iceberg.Schema) *deleteIndex {
	return &deleteIndex{reader: reader, schema: sc, pos: map[string]*posDeleteFile{}, eq: map[string]*eqDeleteFile{}}
}

// existingDeletes is what already removes rows of one data file.
type existingDeletes struct {
	positions  *dv.RoaringPositionBitmap // from DVs and position delete files
	superseded []iceberg.DataFile        // DVs a new DV must absorb and replace
	posFiles   []iceberg.DataFile        // v2 position delete files naming the file
	posTargets map[string][]string       // position delete file → every data file it names
	eqFiles    []*eqDeleteFile
}

// load gathers the existing deletes of a data file from its scan tasks
// (iceberg-go already applied the sequence-number and partition rules).
func (ix *deleteIndex) load(ctx context.Context, path string, tasks []table.FileScanTask) (*existingDeletes, error) {
	ex := &existingDeletes{positions: dv.NewRoaringPositionBitmap(), posTargets: map[string][]string{}}
	seen := map[string]bool{}
	for _, t := range tasks {
		for _, d := range t.DeletionVectorFiles {
			if key := d.FilePath() + "#" + strconv.FormatInt(ptrOr(d.ContentOffset()), 10); !seen[key] {
				seen[key] = true
				bm, err := ix.reader.cache.deletionVector(ix.reader.fs, d)
				if err != nil {
					return nil, fmt.Errorf("read deletion vector %s: %w", d.FilePath(), err)
				}
				ex.positions.Or(bm)
				ex.superseded = append(ex.superseded, d)
			}
		}
		for _, d := range t.DeleteFiles {
			if seen[d.FilePath()] {
				continue
			}
			seen[d.FilePath()] = true
			pf, err := ix.posFile(ctx, d)
			if err != nil {
				return nil, err
			}
			if ps, ok := pf.byData[path]; ok {
				for _, p := range ps {
					ex.positions.Set(uint64(p))
				}
				ex.posFiles = append(ex.posFiles, d)
				ex.posTargets[d.FilePath()] = slices.Collect(maps.Keys(pf.byData))
			}
		}
		for _, d := range t.EqualityDeleteFiles {
			if seen[d.FilePath()] {
				continue
			}
			seen[d.FilePath()] = true
			ef, err := ix.eqFile(ctx, d)
			if err != nil {
				return nil, err
			}
			ex.eqFiles = append(ex.eqFiles, ef)
		}
	}
	return ex, nil
}

func ptrOr(p *int64) int64 {
	if p == nil {
		return -1
	}
	return *p
}

func (ix *deleteIndex) posFile(ctx context.Context, d iceberg.DataFile) (*posDeleteFile, error) {
	ix.mu.Lock()
	pf, ok := ix.pos[d.FilePath()]
	if !ok {
		pf = &posDeleteFile{}
		ix.pos[d.FilePath()] = pf
	}
	ix.mu.Unlock()
	pf.once.Do(func() { pf.byData, pf.err = ix.readPosFile(ctx, d.FilePath(), d.FileSizeBytes()) })
	return pf, pf.err
}

func (ix *deleteIndex) readPosFile(ctx context.Context, path string, size int64) (map[string][]int64, error) {
	out, err := readPositionDeletes(ctx, ix.reader, path, size)
	if err != nil {
		return nil, fmt.Errorf("read position deletes: %w", err)
	}
	return out, nil
}

func (ix *deleteIndex) eqFile(ctx context.Context, d iceberg.DataFile) (*eqDeleteFile, error) {
	ix.mu.Lock()
	ef, ok := ix.eq[d.FilePath()]
	if !ok {
		ef = &eqDeleteFile{ids: d.EqualityFieldIDs()}
		ix.eq[d.FilePath()] = ef
	}
	ix.mu.Unlock()
	ef.once.Do(func() { ef.err = ix.readEqFile(ctx, d.FilePath(), d.FileSizeBytes(), ef) })
	return ef, ef.err
}

func (ix *deleteIndex) readEqFile(ctx context.Context, path string, size int64, ef *eqDeleteFile) error {
	fields := make([]iceberg.NestedField, 0, len(ef.ids))
	for _, id := range ef.ids {
		f, ok := ix.schema.FindFieldByID(id)
		if !ok {
			return fmt.Errorf("equality delete %s: field id %d not in the current schema", path, id)
		}
		fields = append(fields, f)
	}
	ef.schema = iceberg.NewSchema(ix.schema.ID, fields...)
	ef.keys = map[string]struct{}{}
	_, err := ix.reader.read(ctx, path, size, ef.schema, func(b arrow.RecordBatch, _ int64) error {
		for i := 0; i < int(b.NumRows()); i++ {
			ef.keys[rowKey(b.Columns(), i)] = struct{}{}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("read equality deletes: %w", err)
	}
	return nil
}

// columnNames are the current names of the key columns.
func (ef *eqDeleteFile) columnNames() []string {
	names := make([]string, 0, len(ef.schema.Fields()))
	for _, f := range ef.schema.Fields() {
		names = append(names, f.Name)
	}
	return names
}

// rowKey encodes row i of cols so equal keys (NULL equal to NULL, as the spec
// says for equality deletes) give equal strings.
func rowKey(cols []arrow.Array, i int) string {
	var sb strings.Builder
	for _, c := range cols {
		if c.IsNull(i) {
			sb.WriteString("N|")
			continue
		}
		v := c.ValueStr(i)
		sb.WriteString("V")
		sb.WriteString(strconv.Itoa(len(v)))
		sb.WriteString(":")
		sb.WriteString(v)
	}
	return sb.String()
}

// eqMatcher marks rows of a batch removed by any applicable equality delete
// file. The batch must hold every key column, located via colIndex.
type eqMatcher struct {
	files    []*eqDeleteFile
	colIndex map[int]int // field id → column of the batch
}

func (m eqMatcher) deleted(b arrow.RecordBatch, i int) bool {
	for _, ef := range m.files {
		cols := make([]arrow.Array, len(ef.ids))
		for k, id := range ef.ids {
			cols[k] = b.Column(m.colIndex[id])
		}
		if _, ok := ef.keys[rowKey(cols, i)]; ok {
			return true
		}
	}
	return false
}
