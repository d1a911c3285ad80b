package session

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// csvGenColumn is one generated column: the type read_csv must infer for
// it and a generator of its values ("" with null set is an unquoted empty
// field, NULL to both PostgreSQL and read_csv).
type csvGenColumn struct {
	name, pgType string
	value        func(r *rand.Rand) string
}

func csvGenColumns() []csvGenColumn {
	day := func(r *rand.Rand) time.Time {
		return time.Date(1990, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(r.IntN(20000*24)) * time.Hour)
	}
	words := []string{"plain", "a, comma", `a "quote"`, "two\nlines", " padded ", "", "ünïcode", "semi;colon", "pipe|bar", "tab\there", "0123", "NULL", `\N`, "true"}
	return []csvGenColumn{
		{"big", "bigint", func(r *rand.Rand) string { return fmt.Sprint(r.Int64N(1<<62) - 1<<61) }},
		{"small", "bigint", func(r *rand.Rand) string { return fmt.Sprint(r.IntN(2000) - 1000) }},
		{"ratio", "double precision", func(r *rand.Rand) string {
			switch r.IntN(4) {
			case 0:
				return fmt.Sprint(r.IntN(100))
			case 1:
				return fmt.Sprintf("%.3e", r.NormFloat64()*1e6)
			}
			return fmt.Sprint(r.NormFloat64() * 1000)
		}},
		{"flag", "boolean", func(r *rand.Rand) string { return []string{"true", "false", "TRUE", "False"}[r.IntN(4)] }},
		{"day", "date", func(r *rand.Rand) string { return day(r).Format("2006-01-02") }},
		{"at", "timestamp without time zone", func(r *rand.Rand) string {
			t := day(r).Add(time.Duration(r.Int64N(86400e6)) * time.Microsecond)
			return t.Format([]string{"2006-01-02 15:04:05", "2006-01-02T15:04:05.999999", "2006-01-02 15:04"}[r.IntN(3)])
		}},
		{"at_tz", "timestamp with time zone", func(r *rand.Rand) string {
			t := day(r).Add(time.Duration(r.Int64N(86400e6)) * time.Microsecond)
			return t.Format("2006-01-02 15:04:05.999999") + []string{"Z", "+02", "-05:30", "+0100"}[r.IntN(4)]
		}},
		{"zip", "text", func(r *rand.Rand) string { return fmt.Sprintf("%05d", r.IntN(100000)) }},
		{"note", "text", func(r *rand.Rand) string { return words[r.IntN(len(words))] }},
		{"mixed", "text", func(r *rand.Rand) string { return []string{"12", "3.5", "2024-01-01", "x"}[r.IntN(4)] }},
	}
}

// csvField quotes v when PostgreSQL's CSV reader needs it to: delimiter,
// quote, line breaks, and an empty string (which unquoted would be NULL).
func csvField(v string, delim byte) string {
	if v == "" || strings.ContainsAny(v, "\"\r\n"+string(delim)) || strings.TrimSpace(v) != v {
		return `"` + strings.ReplaceAll(v, `"`, `""`) + `"`
	}
	return v
}

// genCSV writes rows of cols with a header, lines ending in eol (PostgreSQL
// wants one line ending per file); about one value in eight is NULL.
func genCSV(r *rand.Rand, cols []csvGenColumn, rows int, delim byte, eol string) string {
	var b strings.Builder
	names := []string{"rid"}
	for _, c := range cols {
		names = append(names, c.name)
	}
	b.WriteString(strings.Join(names, string(delim)) + eol)
	for i := range rows {
		b.WriteString(fmt.Sprint(i))
		for _, c := range cols {
			b.WriteByte(delim)
			if i > 0 && r.IntN(8) == 0 {
				continue
			}
			b.WriteString(csvField(c.value(r), delim))
		}
		b.WriteString(eol)
	}
	return b.String()
}

// TestReadCSVLikePostgresCopy: generated CSV files (every delimiter read_csv
// detects, CRLF lines, quoted delimiters and line breaks, empty strings and
// NULLs, leading zeros, gzip) read with read_csv give the types the
// generator meant and the rows PostgreSQL 15's COPY ... CSV HEADER loads
// from the same bytes into a table of those types.
func TestReadCSVLikePostgresCopy(t *testing.T) {
	conn := connectTestPostgres(t)
	ctx := context.Background()
	dir := t.TempDir()
	s := fileSession(t, dir)
	cols := csvGenColumns()
	var ddl []string
	for _, c := range cols {
		ddl = append(ddl, c.name+" "+c.pgType)
	}
	for i, delim := range []byte{',', '\t', '|', ';'} {
		r := rand.New(rand.NewPCG(uint64(i), 7))
		data := genCSV(r, cols, 300+r.IntN(300), delim, []string{"\n", "\r\n"}[i%2])
		path := filepath.Join(dir, fmt.Sprintf("gen%d.csv", i))
		if i == 2 {
			path += ".gz"
			var z bytes.Buffer
			w := gzip.NewWriter(&z)
			w.Write([]byte(data))
			w.Close()
			writeFile(t, path, z.String())
		} else {
			writeFile(t, path, data)
		}
		mustPG(t, conn, "DROP TABLE IF EXISTS g")
		mustPG(t, conn, "CREATE TABLE g (rid bigint, "+strings.Join(ddl, ", ")+")")
		copySQL := fmt.Sprintf("COPY g FROM STDIN (FORMAT csv, HEADER, DELIMITER E'%s')", strings.ReplaceAll(string(delim), "\t", `\t`))
		if _, err := conn.PgConn().CopyFrom(ctx, strings.NewReader(data), copySQL); err != nil {
			t.Fatalf("PostgreSQL COPY: %v", err)
		}
		var typeExprs []string
		for _, c := range cols {
			typeExprs = append(typeExprs, "pg_typeof("+c.name+")::text")
		}
		types := mustQuery(t, s, "SELECT "+strings.Join(typeExprs, ", ")+" FROM read_csv('"+path+"') WHERE rid = 0")
		for k, c := range cols {
			if got := types.rows[0][k]; got != c.pgType {
				t.Errorf("delimiter %q: column %s inferred as %s, want %s", delim, c.name, got, c.pgType)
			}
		}
		want := mustPG(t, conn, "SELECT * FROM g ORDER BY rid")
		got := mustQuery(t, s, "SELECT * FROM read_csv('"+path+"') ORDER BY rid")
		if len(got.rows) != len(want.rows) {
			t.Fatalf("delimiter %q: %d rows, PostgreSQL %d", delim, len(got.rows), len(want.rows))
		}
		for k := range want.rows {
			if fmt.Sprint(got.rows[k]) != fmt.Sprint(want.rows[k]) {
				t.Fatalf("delimiter %q, row %d:\n magmalake  %q\n PostgreSQL %q", delim, k, got.rows[k], want.rows[k])
			}
		}
	}
}
