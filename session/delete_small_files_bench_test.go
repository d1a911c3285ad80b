package session

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// BenchmarkDeleteManySmallFiles plans a merge-on-read DELETE over a v3
// table of one larger file and 240 small ones (the shape a stream of
// small INSERTs leaves between compactions), a third of them with a
// deletion vector, every file's columns already in the file cache. The
// predicate matches no row, so the table stays as it is and the figure is
// the planning of each file: what a contended DELETE pays per file.
func BenchmarkDeleteManySmallFiles(b *testing.B) {
	ctx := context.Background()
	s := benchSession(b)
	run := func(q string) {
		b.Helper()
		p, err := s.Prepare(ctx, q, nil)
		if err != nil {
			b.Fatal(err)
		}
		drainBench(b, ctx, s, p)
	}
	run(`CREATE TABLE t (id bigint, v bigint) WITH ('format-version' = '3', 'write.delete.mode' = 'merge-on-read')`)
	var rows []string
	for id := 1; id <= 4000; id++ {
		rows = append(rows, fmt.Sprintf("(%d, 0)", id))
	}
	run("INSERT INTO t VALUES " + strings.Join(rows, ", "))
	for f := range 240 {
		id := 10000 + 3*f
		run(fmt.Sprintf("INSERT INTO t VALUES (%d, 0), (%d, 0), (%d, 0)", id, id+1, id+2))
		if f%3 == 0 {
			run(fmt.Sprintf("DELETE FROM t WHERE id = %d", id+1))
		}
	}
	const q = "DELETE FROM t WHERE id % 10 = 10 AND id < 1000000 RETURNING id"
	run(q) // fills the file cache
	b.ReportAllocs()
	for b.Loop() {
		run(q)
	}
}
