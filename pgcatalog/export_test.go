package pgcatalog

// What pg_proc.tsv's generator (pg_proc_pg_test.go, an external test that
// starts the engine) needs from the package.

var (
	SupportProcNames = supportProcNames
	ProcColumns      = procColumns
	ProcTSV          = procTSV
)
