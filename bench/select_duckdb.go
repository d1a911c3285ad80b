package bench

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// duckdbScript is the node program that runs the DuckDB side.
//
//go:embed select_duckdb.cjs
var duckdbScript []byte

type duckdbQuery struct {
	Name string `json:"name"`
	SQL  string `json:"sql"`
}

type duckdbRequest struct {
	Setup   []string      `json:"setup"`
	Queries []duckdbQuery `json:"queries"`
	Warmup  int           `json:"warmup"`
	Repeat  int           `json:"repeat"`
	// Exact runs each query Repeat times, no more (select's rule repeats
	// fast queries for a second).
	Exact bool `json:"exact,omitempty"`
	// TimeoutMs interrupts a run that takes longer (0: never).
	TimeoutMs int64 `json:"timeout_ms,omitempty"`
}

type duckdbResult struct {
	Name  string      `json:"name"`
	Ms    []float64   `json:"ms"`
	CPUMs []float64   `json:"cpu_ms"`
	Rows  [][]*string `json:"rows"`
	Error string      `json:"error"`
	// Timeout says the error is the request's timeout.
	Timeout bool `json:"timeout"`
}

type duckdbReply struct {
	Version string         `json:"version"`
	Results []duckdbResult `json:"results"`
}

// duckdbViews names each table as a view over read_parquet of the data
// files magmalake wrote, so the queries run unchanged.
func duckdbViews(tables map[string][]string) []string {
	var out []string
	for _, name := range sortedKeys(tables) {
		paths := tables[name]
		quoted := make([]string, len(paths))
		for i, p := range paths {
			quoted[i] = "'" + strings.ReplaceAll(p, "'", "''") + "'"
		}
		out = append(out, fmt.Sprintf("CREATE VIEW %s AS SELECT * FROM read_parquet([%s])", name, strings.Join(quoted, ", ")))
	}
	return out
}

// runDuckDB runs the request in one node process (modules: a directory
// holding node_modules/@duckdb/node-api) and returns its reply.
func runDuckDB(ctx context.Context, modules, scratch string, req duckdbRequest) (duckdbReply, error) {
	var reply duckdbReply
	err := runNodeScript(ctx, modules, scratch, "select_duckdb.cjs", duckdbScript, req, &reply)
	return reply, err
}

// runNodeScript writes script and the JSON request into scratch, runs the
// script in node with modules on NODE_PATH, and decodes its JSON reply.
func runNodeScript(ctx context.Context, modules, scratch, name string, script []byte, req, reply any) error {
	path := filepath.Join(scratch, name)
	reqFile := filepath.Join(scratch, strings.TrimSuffix(name, ".cjs")+"_request.json")
	body, err := json.Marshal(req)
	if err != nil {
		return fmt.Errorf("duckdb: %w", err)
	}
	if err := os.WriteFile(path, script, 0o644); err != nil {
		return fmt.Errorf("duckdb: %w", err)
	}
	if err := os.WriteFile(reqFile, body, 0o644); err != nil {
		return fmt.Errorf("duckdb: %w", err)
	}
	cmd := exec.CommandContext(ctx, "node", path, reqFile)
	cmd.Env = append(os.Environ(), "NODE_PATH="+filepath.Join(modules, "node_modules"))
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("duckdb: node: %w: %s", err, strings.TrimSpace(errOut.String()))
	}
	if err := json.Unmarshal(out.Bytes(), reply); err != nil {
		return fmt.Errorf("duckdb: reply: %w", err)
	}
	return nil
}

// cells turns the reply's rows into cells.
func (r duckdbResult) cells() [][]cell {
	rows := make([][]cell, len(r.Rows))
	for i, row := range r.Rows {
		rows[i] = make([]cell, len(row))
		for j, v := range row {
			if v == nil {
				rows[i][j] = cell{null: true}
			} else {
				rows[i][j] = cell{text: *v}
			}
		}
	}
	return rows
}
