package bench

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// The deletes scenario (issue 18): one erasure job deleting by id % k and
// retention jobs deleting ranges of ts, all autocommit DELETE ... RETURNING
// at once on one table. Every predicate matches rows in every data file (ts
// is scattered over the ids, and the files hold id ranges), and the
// predicates overlap across sessions, so every commit races every other.

const kindDelete = "delete"

// tsBase is the ts of the earliest row.
var tsBase = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

// deletesTS and deletesV are the generated row's ts (in minutes after
// tsBase) and v: ts scatters the ids over the whole range.
func deletesTS(id int64, rows int) int64 { return id * 7919 % int64(rows) }
func deletesV(id int64) int64            { return id % 10 }

// deletesFill inserts ids 1..rows, one INSERT (so one data file) per file.
func deletesFill(name string, rows, files int) []string {
	var out []string
	for f := range files {
		lo, hi := f*rows/files+1, (f+1)*rows/files
		out = append(out, fmt.Sprintf("INSERT INTO %s SELECT g, timestamp '%s' + ((g * 7919) %% %d) * interval '1 minute', g %% 10 FROM generate_series(%d, %d) g",
			name, tsBase.Format(time.DateTime), rows, lo, hi))
	}
	return out
}

// deletesInitial is the model of the generated table: per id, ts in
// microseconds and v, as the reads return them.
func deletesInitial(rows int) map[int64][]int64 {
	out := make(map[int64][]int64, rows)
	for id := int64(1); id <= int64(rows); id++ {
		ts := tsBase.Add(time.Duration(deletesTS(id, rows)) * time.Minute).UnixMicro()
		out[id] = []int64{ts, deletesV(id)}
	}
	return out
}

// delPred is one DELETE's WHERE clause and the same test in Go.
type delPred struct {
	sql   string
	match func(id int64) bool
}

// deleteJobs are the sessions' statements: session 0 erases id % (4d) = j
// for j < d (a quarter of the rows); session r > 0 is a retention job whose
// ts window (a 40th of the range) moves by a 4d-th per statement, starting
// an eighth of the range after the previous job's, so windows overlap
// within a job and across jobs.
func deleteJobs(sessions, d, rows int) [][]delPred {
	jobs := make([][]delPred, sessions)
	mod := int64(4 * d)
	for j := range d {
		jobs[0] = append(jobs[0], delPred{
			sql:   fmt.Sprintf("id %% %d = %d", mod, j),
			match: func(id int64) bool { return id%mod == int64(j) },
		})
	}
	width, step := max(int64(rows)/40, 1), max(int64(rows)/int64(4*d), 1)
	for r := 1; r < sessions; r++ {
		for i := range d {
			lo := int64(r-1)*int64(rows)/8 + int64(i)*step
			hi := lo + width
			jobs[r] = append(jobs[r], delPred{
				sql: fmt.Sprintf("ts >= timestamp '%s' AND ts < timestamp '%s'",
					tsBase.Add(time.Duration(lo)*time.Minute).Format(time.DateTime), tsBase.Add(time.Duration(hi)*time.Minute).Format(time.DateTime)),
				match: func(id int64) bool { m := deletesTS(id, rows); return m >= lo && m < hi },
			})
		}
	}
	return jobs
}

// deleteStmt is one DELETE as it ran.
type deleteStmt struct {
	pred delPred
	ids  []int64 // what RETURNING said, when it succeeded
	o    outcome
}

func runDeletes(ctx context.Context, l *sharedLake, m TableMode) (ContentionResult, error) {
	cfg := l.cfg
	name := l.tableName(ScenarioDeletes, m)
	if err := l.createTable(ctx, name, "id bigint, ts timestamp, v bigint", m, deletesFill(name, cfg.Rows, cfg.Files)); err != nil {
		return ContentionResult{}, err
	}
	jobs := deleteJobs(cfg.DeleteSessions, cfg.DeletesPerSession, cfg.Rows)
	clients, err := l.connectAll(ctx, len(jobs))
	if err != nil {
		return ContentionResult{}, err
	}
	defer closeAll(clients)
	start := time.Now()
	stmts, t, err := runDeleteJobs(ctx, clients, name, jobs)
	if err != nil {
		return ContentionResult{}, err
	}
	res := ContentionResult{Scenario: ScenarioDeletes, Mode: m, Servers: len(l.servers), Sessions: len(jobs),
		Seconds: time.Since(start).Seconds(), Kinds: t.stats([]string{kindDelete}), RowsBefore: cfg.Rows, AutocommitMustSucceed: true}
	res.OKStatements = res.Kinds[0].OK
	res.OKPerSecond = float64(res.OKStatements) / res.Seconds
	res.Check = checkDeletes(cfg.Rows, stmts, l.readEverywhere(ctx, name, []string{"id", "ts", "v"}))
	res.Commits = l.commitStats(ctx, name, start)
	l.finishTable(ctx, name, res)
	return res, nil
}

// runDeleteJobs runs each job in its own session, all at once.
func runDeleteJobs(ctx context.Context, clients []*client, name string, jobs [][]delPred) ([]deleteStmt, tallies, error) {
	done := make([][]deleteStmt, len(jobs))
	ts := make([]tallies, len(jobs))
	errs := make([]error, len(jobs))
	var wg sync.WaitGroup
	for i, job := range jobs {
		ts[i] = tallies{}
		wg.Go(func() {
			for _, p := range job {
				ids, o := clients[i].ids(ctx, clients[i].conn, fmt.Sprintf("DELETE FROM %s WHERE %s RETURNING id", name, p.sql))
				done[i] = append(done[i], deleteStmt{pred: p, ids: ids, o: o})
				ts[i].add(kindDelete, o)
				if errs[i] = clients[i].recover(ctx, o); errs[i] != nil {
					return
				}
			}
		})
	}
	wg.Wait()
	all, t := []deleteStmt{}, tallies{}
	for i := range jobs {
		if errs[i] != nil {
			return nil, nil, fmt.Errorf("session %d: %w", i, errs[i])
		}
		all = append(all, done[i]...)
		t.merge(ts[i])
	}
	return all, t, nil
}

// checkDeletes holds the statements to their answers: each id returned by
// one DELETE at most and only by one whose predicate matches it; every row
// a successful DELETE matched gone and returned; every other row still
// there with its values, through every reader.
func checkDeletes(rows int, stmts []deleteStmt, reads []*tableRead) ModelCheck {
	var c ModelCheck
	initial := deletesInitial(rows)
	returnedBy := map[int64]int{}
	matchedOK, matchedAll := map[int64]bool{}, map[int64]bool{}
	for _, s := range stmts {
		for id := range initial {
			if s.pred.match(id) {
				matchedAll[id] = true
				matchedOK[id] = matchedOK[id] || s.o.ok()
			}
		}
		if s.o.code == codeUnknown {
			c.Uncertain++
		}
		c.checkReturned(s, initial, returnedBy)
	}
	for id, n := range returnedBy {
		if n > 1 {
			c.DoubleDeleted++
			c.problem("id %d returned by %d DELETEs", id, n)
		}
	}
	want := expectation{rows: map[int64][]int64{}, deleted: matchedOK}
	for id, vals := range initial {
		switch {
		case matchedOK[id] && returnedBy[id] == 0:
			c.NotReturned++
			c.problem("id %d: a successful DELETE matched it, none returned it", id)
		case matchedAll[id] && !matchedOK[id]:
			c.KeptByFailures++
		}
		if !matchedOK[id] {
			want.rows[id] = vals
		}
	}
	c.compareReads(want, reads)
	return c
}

// checkReturned counts what one successful DELETE returned.
func (c *ModelCheck) checkReturned(s deleteStmt, initial map[int64][]int64, returnedBy map[int64]int) {
	if !s.o.ok() {
		return
	}
	seen := map[int64]bool{}
	for _, id := range s.ids {
		if _, ok := initial[id]; !ok || !s.pred.match(id) || seen[id] {
			c.WrongReturns++
			c.problem("DELETE WHERE %s returned id %d", s.pred.sql, id)
		}
		seen[id] = true
		returnedBy[id]++
	}
}
