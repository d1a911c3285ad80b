// Package engine is the query engine: it compiles a logical plan (package
// plan: Iceberg tables, metadata tables, derived tables, joins, set
// operations) into a tree of operators over Arrow batches and runs it. It is
// the one place relational work happens, for SELECT and for the read side of
// DML; sessions, transactions and settings stay in the caller.
package engine

import (
	"github.com/magmalake/magmalake/lake"
	"github.com/magmalake/magmalake/plan"
)

// Options are a statement's execution limits.
type Options struct {
	// BatchSize caps rows per result batch.
	BatchSize int
	// WorkMem bounds what one materialising operator may hold, in bytes
	// (0: unbounded).
	WorkMem int64
	// TempDir is where ORDER BY and GROUP BY spill past WorkMem
	// ("": os.TempDir(), i.e. $TMPDIR or /tmp).
	TempDir string
	// Manifests keeps decoded manifests across scans (the warehouse's);
	// nil: each scan reads its snapshot's manifests.
	Manifests *lake.ManifestCache
}

// Env is what a statement's planning and execution need from the session.
type Env struct {
	Catalog plan.Catalog
	Options Options
	// Files opens read_csv/read_parquet's files; nil refuses them.
	Files plan.FileReader
	// Binds, when set, counts the statements bound against the Env.
	Binds *BindCount
	// Generation, when set, moves on whenever the session changes what
	// binding may read besides the catalog's names: its settings, its
	// transaction block, its writes. A plan is reused only at the
	// generation it was bound at (Deps).
	Generation func() uint64
}

// PlanEnv is what the plan builder reads of the environment.
func (e *Env) PlanEnv() plan.Env {
	return plan.Env{Catalog: e.Catalog, Files: e.Files, Manifests: e.Options.Manifests}
}

func (e *Env) batchSize() int {
	if e.Options.BatchSize <= 0 {
		return 4096
	}
	return e.Options.BatchSize
}
