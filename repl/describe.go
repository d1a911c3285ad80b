package repl

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/magmalake/magmalake/pgerr"
)

// describeTable is \d NAME and \d+ NAME: the columns, then, where psql
// shows a table's partition key and storage, the Iceberg table's partition
// spec, format version, delete mode and location; \d+ adds its
// properties, files and rows, and its current snapshot. A metadata table
// ("t$files") shows its columns only.
func (cat *catalog) describeTable(ctx context.Context, name string, plus bool) error {
	var create [][]string
	if !strings.Contains(name, "$") {
		var err error
		if create, err = cat.queryText(ctx, "SHOW CREATE TABLE "+name); err != nil && !isNoSuchRelation(err) {
			return err
		}
	}
	kind, view := "Table", len(create) == 1 && strings.HasPrefix(create[0][0], "CREATE VIEW")
	if view {
		kind = "View"
	}
	title := strings.ReplaceAll(name, `"`, "")
	if len(create) == 1 {
		title = createdName(create[0][0]) // psql names schema.table
	}
	var buf bytes.Buffer
	out := cat.pr.out
	cat.pr.out = &buf
	err := cat.execute(ctx, "DESCRIBE "+name, resultStyle{title: kind + " \"" + title + "\"", noFooter: true})
	cat.pr.out = out
	if err != nil {
		return err
	}
	var details []string
	switch {
	case view && plus:
		_, definition, _ := strings.Cut(create[0][0], " AS\n")
		details = []string{"View definition:", " " + strings.ReplaceAll(definition, "\n", "\n ") + ";"}
	case len(create) == 1 && !view:
		if details, err = cat.tableDetails(ctx, name, create[0][0], plus); err != nil {
			return err
		}
	}
	table := buf.String()
	if len(details) > 0 && strings.HasSuffix(table, "\n\n") {
		table = table[:len(table)-1] + strings.Join(details, "\n") + "\n\n" // psql's footers go above the blank line
	}
	_, err = io.WriteString(cat.pr.out, table)
	return err
}

// createdName is the schema.name SHOW CREATE TABLE's text starts with,
// identifiers unquoted, as psql's titles print them.
func createdName(create string) string {
	line, _, _ := strings.Cut(create, "\n")
	line = strings.TrimPrefix(strings.TrimPrefix(line, "CREATE TABLE "), "CREATE VIEW ")
	var parts []string
	var cur strings.Builder
	quoted := false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == '"' && quoted && i+1 < len(line) && line[i+1] == '"':
			cur.WriteByte('"')
			i++
		case c == '"':
			quoted = !quoted
		case !quoted && c == '.':
			parts = append(parts, cur.String())
			cur.Reset()
		case !quoted && c == ' ':
			return strings.Join(append(parts, cur.String()), ".")
		default:
			cur.WriteByte(c)
		}
	}
	return strings.Join(append(parts, cur.String()), ".")
}

// isNoSuchRelation reports 42P01: DESCRIBE then says it as psql would.
func isNoSuchRelation(err error) bool {
	var se *pgerr.Error
	return errors.As(err, &se) && se.Code == pgerr.UndefinedTable
}

// tableDetails are describeTable's lines under the columns.
func (cat *catalog) tableDetails(ctx context.Context, name, create string, plus bool) ([]string, error) {
	props, err := cat.queryText(ctx, "SELECT key, value FROM "+metaName(name, "properties")+" ORDER BY key")
	if err != nil {
		return nil, err
	}
	prop := map[string]string{}
	for _, r := range props {
		prop[r[0]] = r[1]
	}
	var spec, loc string
	for _, l := range strings.Split(create, "\n") {
		if v, ok := strings.CutPrefix(l, "PARTITIONED BY ("); ok {
			spec = strings.TrimSuffix(v, ")")
		}
		if v, ok := strings.CutPrefix(l, "-- location: "); ok {
			loc = v
		}
	}
	var lines []string
	if spec != "" {
		lines = append(lines, "Partition spec: "+spec)
	}
	mode := prop["write.delete.mode"]
	if mode == "" {
		mode = "copy-on-write"
	}
	lines = append(lines, "Format version: "+prop["format-version"], "Delete mode: "+mode, "Location: "+loc)
	if !plus {
		return lines, nil
	}
	return cat.tableStorage(ctx, name, props, lines)
}

// tableStorage adds \d+'s properties, files, rows and current snapshot.
func (cat *catalog) tableStorage(ctx context.Context, name string, props [][]string, lines []string) ([]string, error) {
	if len(props) > 0 {
		lines = append(lines, "Properties:")
		for _, r := range props {
			lines = append(lines, fmt.Sprintf("    %s = '%s'", r[0], r[1]))
		}
	}
	sum, err := cat.queryText(ctx, "SELECT data_files, pg_size_pretty((SELECT coalesce(sum(file_size_in_bytes), 0)::bigint FROM "+metaName(name, "data_files")+")), "+
		"delete_files, live_rows, deleted_rows, snapshots FROM "+metaName(name, "delete_debt_summary"))
	if err != nil {
		return nil, err
	}
	if len(sum) != 1 {
		return lines, nil
	}
	r := sum[0]
	lines = append(lines, fmt.Sprintf("Data: %s data files (%s), %s delete files; %s live rows, %s deleted", r[0], r[1], r[2], r[3], r[4]))
	snap, err := cat.queryText(ctx, "SELECT snapshot_id, committed_at FROM "+metaName(name, "snapshots")+" ORDER BY committed_at DESC LIMIT 1")
	if err != nil {
		return nil, err
	}
	if len(snap) == 1 {
		lines = append(lines, fmt.Sprintf("Current snapshot: %s, committed %s (%s snapshots kept)", snap[0][0], snap[0][1], r[5]))
	}
	return lines, nil
}

// metaName is the metadata table kind of the table name: s.t -> s."t$kind".
func metaName(name, kind string) string {
	schema, tbl := "", name
	if i := strings.LastIndex(name, "."); i >= 0 {
		schema, tbl = name[:i+1], name[i+1:]
	}
	tbl = strings.Trim(tbl, `"`)
	return schema + `"` + strings.ReplaceAll(tbl+"$"+kind, `"`, `""`) + `"`
}
