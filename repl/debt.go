package repl

import (
	"context"
	"fmt"
	"path"
	"strconv"
	"strings"
)

// debtBarWidth is the bar of one data file: its rows, live then dead.
const debtBarWidth = 40

// debtQuery reads the per-file delete debt of a table (the session's
// "t$delete_debt"), the file names shortened to their base.
func debtQuery(table string) string {
	name := table
	if i := strings.LastIndexByte(table, '.'); i >= 0 {
		name = table[:i] + `."` + table[i+1:] + `$delete_debt"`
	} else {
		name = `"` + table + `$delete_debt"`
	}
	return "SELECT file_path, record_count, deleted_rows, dead_bytes, delete_files FROM " + name + " ORDER BY deleted_rows DESC, file_path"
}

// debt answers \debt TABLE: one bar per data file, live rows as '█' and
// dead rows as '░' out of debtBarWidth, then the dead rows, the bytes a
// scan reads for nothing and the delete files that apply, and the totals
// (../shared/reference/004's picture of delete debt, in the terminal).
func (cat *catalog) debt(ctx context.Context, args []string) error {
	if len(args) != 1 {
		fmt.Fprintln(cat.pr.errOut, `\debt: a table name is required`)
		return ErrFailed
	}
	q := debtQuery(args[0])
	rows, err := cat.queryText(ctx, q)
	if err != nil {
		cat.pr.printError(err, q)
		return ErrFailed
	}
	fmt.Fprintf(cat.pr.out, "Delete debt of %q (█ live rows, ░ deleted rows)\n", args[0])
	var files, records, dead, deadBytes, deletes int64
	for _, r := range rows {
		n, d, b, k := atoi(r[1]), atoi(r[2]), atoi(r[3]), atoi(r[4])
		files, records, dead, deadBytes, deletes = files+1, records+n, dead+d, deadBytes+b, deletes+k
		fmt.Fprintf(cat.pr.out, " %s %s  %d of %d rows dead, %s read for nothing, %d delete files\n",
			debtBar(n, d), fileName(r[0]), d, n, bytesText(b), k)
	}
	fmt.Fprintf(cat.pr.out, "%d data files, %d rows, %d dead (%s), %s read for nothing by every full scan, %d delete-file references\n\n",
		files, records, dead, percent(dead, records), bytesText(deadBytes), deletes)
	return nil
}

// fileName is a data file's path under the table's data directory (its
// partition directories and name), else its base name.
func fileName(p string) string {
	if i := strings.LastIndex(p, "/data/"); i >= 0 {
		return p[i+len("/data/"):]
	}
	return path.Base(p)
}

// debtBar draws n rows of which d are dead; a file with any dead row shows
// at least one dead cell.
func debtBar(n, d int64) string {
	deadCells := 0
	if n > 0 {
		deadCells = int((d*debtBarWidth + n - 1) / n)
	}
	return strings.Repeat("█", debtBarWidth-deadCells) + strings.Repeat("░", deadCells)
}

func atoi(s string) int64 {
	n, _ := strconv.ParseInt(s, 10, 64)
	return n
}

func percent(a, b int64) string {
	if b == 0 {
		return "0%"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(a)/float64(b))
}

// bytesText is psql's pg_size_pretty for the sizes debt shows.
func bytesText(b int64) string {
	switch {
	case b < 10*1024:
		return fmt.Sprintf("%d bytes", b)
	case b < 10*1024*1024:
		return fmt.Sprintf("%d kB", (b+512)/1024)
	case b < 10*1024*1024*1024:
		return fmt.Sprintf("%d MB", (b+512*1024)/(1024*1024))
	}
	return fmt.Sprintf("%d GB", (b+512*1024*1024)/(1024*1024*1024))
}

// queryText runs a query and returns its rows as text.
func (cat *catalog) queryText(ctx context.Context, q string) ([][]string, error) {
	p, err := cat.sess.Prepare(ctx, q, nil)
	if err != nil {
		return nil, err
	}
	res, err := cat.sess.Execute(ctx, p, nil)
	if err != nil {
		return nil, err
	}
	if res.Rows == nil {
		return nil, nil
	}
	defer res.Rows.Close()
	t, err := collectTable(ctx, res.Columns, res.Rows)
	if err != nil {
		return nil, err
	}
	return t.rows, nil
}
