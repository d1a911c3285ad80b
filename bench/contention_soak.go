package bench

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"
)

// The soak: sessions on all servers issue a random mix of autocommit
// INSERT, DELETE, UPDATE and MERGE on one table, and BEGIN … COMMIT blocks
// on ids no other session touches, until the duration is up. Every
// statement says what it did (RETURNING), and what the statements do
// commutes (UPDATE adds 1, every id is inserted at most once), so the
// table's final state follows exactly from the answers, whatever order the
// commits took.

// Statement kinds of the soak (kindDelete is shared with the deletes scenario).
const (
	kindInsert = "insert"
	kindUpdate = "update"
	kindMerge  = "merge"
	kindBlock  = "block"
)

var soakKinds = []string{kindInsert, kindDelete, kindUpdate, kindMerge, kindBlock}

// soakWeights is the mix, in soakKinds' order.
var soakWeights = []int{20, 20, 25, 15, 20}

// Id ranges: the generated rows are 1..rows; session s inserts fresh ids
// from freshBase(s) on and its blocks use ids from blockBase(s) on.
// Autocommit DELETE and UPDATE stop below blockIDs, so blocks are disjoint
// from every other writer.
const blockIDs int64 = 1 << 40

func freshBase(s int) int64 { return int64(s+1) << 32 }
func blockBase(s int) int64 { return blockIDs + int64(s)<<32 }

// DELETE and UPDATE pick a residue of these (primes, so they cut every
// data file and every session's inserts alike).
const (
	deleteModulus = 1009
	updateModulus = 997
)

// soakEvent is one statement or block and what its answer says it did.
type soakEvent struct {
	kind                       string
	o                          outcome
	inserted, deleted, updated []int64
	// What it may have touched: an id returned outside these is wrong.
	mayDelete, mayUpdate, mayInsert func(id int64) bool
}

// soakSession is one client's state.
type soakSession struct {
	c          *client
	table      string
	rows       int
	rnd        *rand.Rand
	nextFresh  int64
	nextBlock  int64
	liveBlocks []int64 // ids its committed blocks wrote and did not delete
	events     []soakEvent
	t          tallies
}

func runSoak(ctx context.Context, l *sharedLake, m TableMode) (ContentionResult, error) {
	cfg := l.cfg
	name := l.tableName(ScenarioSoak, m)
	if err := l.createTable(ctx, name, "id bigint, v bigint", m, soakFill(name, cfg.Rows, cfg.Files)); err != nil {
		return ContentionResult{}, err
	}
	clients, err := l.connectAll(ctx, cfg.SoakSessions)
	if err != nil {
		return ContentionResult{}, err
	}
	defer closeAll(clients)
	sessions := make([]*soakSession, len(clients))
	for i, c := range clients {
		sessions[i] = &soakSession{c: c, table: name, rows: cfg.Rows, rnd: rand.New(rand.NewPCG(cfg.Seed, uint64(i))),
			nextFresh: freshBase(i), nextBlock: blockBase(i), t: tallies{}}
	}
	alone, err := sessions[0].alone(ctx)
	if err != nil {
		return ContentionResult{}, fmt.Errorf("%w (%v)", err, l.alive())
	}
	start := time.Now()
	if err := soakAll(ctx, sessions, start.Add(cfg.SoakDuration)); err != nil {
		return ContentionResult{}, fmt.Errorf("%w (%v)", err, l.alive())
	}
	res := soakResult(l, m, sessions, time.Since(start))
	res.Alone = alone.stats(soakKinds)
	// The soak's commits, before the rounds alone after it add theirs.
	res.Commits = l.commitStats(ctx, name, start)
	after, err := sessions[0].alone(ctx)
	if err != nil {
		return ContentionResult{}, fmt.Errorf("%w (%v)", err, l.alive())
	}
	res.AloneAfter = after.stats(soakKinds)
	var events []soakEvent
	for _, s := range sessions {
		events = append(events, s.events...)
	}
	res.Check = checkSoak(cfg.Rows, events, l.readEverywhere(ctx, name, []string{"id", "v"}))
	l.finishTable(ctx, name, res)
	return res, nil
}

func soakFill(name string, rows, files int) []string {
	var out []string
	for f := range files {
		out = append(out, fmt.Sprintf("INSERT INTO %s SELECT g, 0 FROM generate_series(%d, %d) g", name, f*rows/files+1, (f+1)*rows/files))
	}
	return out
}

// soakAll runs every session until the deadline; a statement under way
// then finishes.
func soakAll(ctx context.Context, sessions []*soakSession, deadline time.Time) error {
	errs := make([]error, len(sessions))
	var wg sync.WaitGroup
	for i, s := range sessions {
		wg.Go(func() {
			for time.Now().Before(deadline) && ctx.Err() == nil && errs[i] == nil {
				errs[i] = s.step(ctx)
			}
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return fmt.Errorf("session %d: %w", i, err)
		}
	}
	return ctx.Err()
}

func soakResult(l *sharedLake, m TableMode, sessions []*soakSession, elapsed time.Duration) ContentionResult {
	t := tallies{}
	for _, s := range sessions {
		t.merge(s.t)
	}
	res := ContentionResult{Scenario: ScenarioSoak, Mode: m, Servers: len(l.servers), Sessions: len(sessions),
		Seconds: elapsed.Seconds(), Kinds: t.stats(soakKinds), RowsBefore: l.cfg.Rows}
	for _, k := range res.Kinds {
		if k.Kind == kindBlock {
			res.OKStatements += 3 * k.OK
		} else {
			res.OKStatements += k.OK
		}
	}
	res.OKPerSecond = float64(res.OKStatements) / res.Seconds
	return res
}

// aloneRounds is how often each kind runs with the other sessions idle,
// before the soak and after it: the latencies contention is measured
// against.
const aloneRounds = 8

// alone runs every kind aloneRounds times, with no other session at work.
// The statements are part of the model like the soak's.
func (s *soakSession) alone(ctx context.Context) (tallies, error) {
	t := tallies{}
	for range aloneRounds {
		for _, kind := range soakKinds {
			ev := s.run(ctx, kind)
			s.events = append(s.events, ev)
			t.add(ev.kind, ev.o)
			if err := s.c.recover(ctx, ev.o); err != nil {
				return nil, err
			}
		}
	}
	return t, nil
}

// step runs one statement or block of a randomly chosen kind.
func (s *soakSession) step(ctx context.Context) error {
	ev := s.run(ctx, s.pick())
	s.events = append(s.events, ev)
	s.t.add(ev.kind, ev.o)
	return s.c.recover(ctx, ev.o)
}

// run runs one statement or block of kind.
func (s *soakSession) run(ctx context.Context, kind string) soakEvent {
	var ev soakEvent
	switch kind {
	case kindInsert:
		ev = s.insert(ctx)
	case kindDelete:
		ev = s.delete(ctx)
	case kindUpdate:
		ev = s.update(ctx)
	case kindMerge:
		ev = s.merge(ctx)
	default:
		ev = s.block(ctx)
	}
	return ev
}

func (s *soakSession) pick() string {
	n := s.rnd.IntN(100)
	for i, w := range soakWeights {
		if n < w {
			return soakKinds[i]
		}
		n -= w
	}
	return soakKinds[len(soakKinds)-1]
}

func (s *soakSession) fresh() int64 {
	s.nextFresh++
	return s.nextFresh
}
