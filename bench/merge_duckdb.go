package bench

import (
	"context"
	_ "embed"
	"fmt"
	"path/filepath"
	"strings"
)

// mergeDuckDBScript is the node program that runs the DuckDB side.
//
//go:embed merge_duckdb.cjs
var mergeDuckDBScript []byte

type mergeDuckRequest struct {
	Setup      []string `json:"setup"`
	Statements []string `json:"statements"` // timed together
	Warmup     int      `json:"warmup"`
	Repeat     int      `json:"repeat"`
}

type mergeDuckReply struct {
	Version string    `json:"version"`
	Ms      []float64 `json:"ms"`
	CPUMs   []float64 `json:"cpu_ms"`
	Values  []*string `json:"values"` // each statement's first value, last run
	Error   string    `json:"error"`
}

// mergeDuckDBRequest is the MERGE's work in DuckDB over the same Parquet
// files, with no table format: join the source to the target's key columns
// (read_parquet's filename and file_row_number name each target row's
// position), then write the matched positions sorted by file and position
// (what a position delete file holds) and the rows to write, the source's
// values, partitioned by grp like the table's (both zstd Parquet). The
// statements' values are the join's rows, the positions and the rows written.
func mergeDuckDBRequest(ms mergeSpec, l Layout, target, src []string, out string, repeat int) mergeDuckRequest {
	on := "t.id = s.id"
	if ms.onePart >= 0 {
		on += " AND t.grp = s.grp"
	}
	rowsTo := fmt.Sprintf("'%s' (FORMAT parquet, COMPRESSION zstd)", filepath.Join(out, "new.parquet"))
	if l == Partitioned {
		rowsTo = fmt.Sprintf("'%s' (FORMAT parquet, COMPRESSION zstd, PARTITION_BY (grp), WRITE_PARTITION_COLUMNS true, OVERWRITE_OR_IGNORE true)",
			filepath.Join(out, "new"))
	}
	return mergeDuckRequest{
		Setup: []string{
			fmt.Sprintf("CREATE VIEW target AS SELECT * FROM read_parquet([%s], filename = true, file_row_number = true)", sqlList(target)),
			fmt.Sprintf("CREATE VIEW src AS SELECT * FROM read_parquet([%s])", sqlList(src)),
		},
		Statements: []string{
			"CREATE OR REPLACE TEMP TABLE merge_join AS SELECT s.*, t.filename AS t_file, t.file_row_number AS t_pos " +
				"FROM src s LEFT JOIN target t ON " + on,
			fmt.Sprintf("COPY (SELECT t_file AS file_path, t_pos AS pos FROM merge_join WHERE t_file IS NOT NULL ORDER BY file_path, pos) "+
				"TO '%s' (FORMAT parquet, COMPRESSION zstd)", filepath.Join(out, "deletes.parquet")),
			"COPY (SELECT id, k, grp, amount, price, name, ts, flag FROM merge_join) TO " + rowsTo,
		},
		Warmup: 1,
		Repeat: repeat,
	}
}

func sqlList(paths []string) string {
	quoted := make([]string, len(paths))
	for i, p := range paths {
		quoted[i] = "'" + strings.ReplaceAll(p, "'", "''") + "'"
	}
	return strings.Join(quoted, ", ")
}

// runMergeDuckDB runs the request in one node process (modules: a directory
// holding node_modules/@duckdb/node-api).
func runMergeDuckDB(ctx context.Context, modules, scratch string, req mergeDuckRequest) (mergeDuckReply, error) {
	var reply mergeDuckReply
	if err := runNodeScript(ctx, modules, scratch, "merge_duckdb.cjs", mergeDuckDBScript, req, &reply); err != nil {
		return reply, err
	}
	if reply.Error != "" {
		return reply, fmt.Errorf("duckdb: %s", reply.Error)
	}
	return reply, nil
}

// checkMergeDuckDB requires DuckDB to have found the case's matches and
// written every source row.
func checkMergeDuckDB(ms mergeSpec, reply mergeDuckReply) error {
	want := []string{fmt.Sprint(ms.rows()), fmt.Sprint(ms.updates), fmt.Sprint(ms.rows())}
	var got []string
	for _, v := range reply.Values {
		if v == nil {
			got = append(got, "NULL")
		} else {
			got = append(got, *v)
		}
	}
	if len(got) != len(want) || got[1] != want[1] || got[2] != want[2] {
		return fmt.Errorf("duckdb: join rows, positions, rows written = %v, want %v", got, want)
	}
	return nil
}
