package bench

import (
	"time"
)

// soakModel is what the successful statements of a soak say happened to
// each id. Increments commute and no id is written twice, so these counts
// decide the final table whatever the commit order was.
type soakModel struct {
	created     map[int64]int         // the generated rows, INSERTs, MERGE inserts, committed blocks
	deleteEnds  map[int64][]time.Time // when each DELETE that returned the id had answered
	updateCount map[int64]int
}

// checkSoak builds the model from the events, checks what no order of
// commits can explain, then compares every reading with the model.
func checkSoak(rows int, events []soakEvent, reads []*tableRead) ModelCheck {
	var c ModelCheck
	m := soakModel{created: map[int64]int{}, deleteEnds: map[int64][]time.Time{}, updateCount: map[int64]int{}}
	for id := int64(1); id <= int64(rows); id++ {
		m.created[id] = 1
	}
	for _, ev := range events {
		if ev.o.code == codeUnknown {
			c.Uncertain++
			c.problem("%s with unknown outcome: %v", ev.kind, ev.o.err)
		}
		if ev.o.ok() {
			c.addEvent(&m, ev)
		}
	}
	c.checkStale(m, events)
	want := expectation{rows: map[int64][]int64{}, deleted: map[int64]bool{}}
	for id, n := range m.created {
		if n > 1 {
			c.WrongReturns++
			c.problem("id %d inserted %d times", id, n)
		}
		switch d := len(m.deleteEnds[id]); {
		case d > 1:
			c.DoubleDeleted++
			c.problem("id %d returned by %d DELETEs", id, d)
			want.deleted[id] = true
		case d == 1:
			want.deleted[id] = true
		default:
			want.rows[id] = []int64{int64(m.updateCount[id])}
		}
	}
	for id := range m.deleteEnds {
		if m.created[id] == 0 {
			c.WrongReturns++
			c.problem("DELETE returned id %d, which was never written", id)
		}
	}
	for id := range m.updateCount {
		if m.created[id] == 0 {
			c.WrongReturns++
			c.problem("UPDATE returned id %d, which was never written", id)
		}
	}
	c.compareReads(want, reads)
	return c
}

// addEvent applies one successful statement's answer to the model,
// counting returned ids it could not have touched.
func (c *ModelCheck) addEvent(m *soakModel, ev soakEvent) {
	check := func(what string, ids []int64, may func(int64) bool) {
		seen := map[int64]bool{}
		for _, id := range ids {
			if (may != nil && !may(id)) || seen[id] {
				c.WrongReturns++
				c.problem("%s: %s returned id %d [%s]", ev.kind, what, id, clip(ev.o.sql, 160))
			}
			seen[id] = true
		}
	}
	check("insert", ev.inserted, ev.mayInsert)
	check("delete", ev.deleted, ev.mayDelete)
	check("update", ev.updated, ev.mayUpdate)
	for _, id := range ev.inserted {
		m.created[id]++
	}
	for _, id := range ev.deleted {
		m.deleteEnds[id] = append(m.deleteEnds[id], ev.o.end)
	}
	for _, id := range ev.updated {
		m.updateCount[id]++
	}
}

// checkStale counts ids an UPDATE or MERGE returned although it started
// after a DELETE of that id had answered: that DELETE had committed, so
// any later statement must see the row gone.
func (c *ModelCheck) checkStale(m soakModel, events []soakEvent) {
	for _, ev := range events {
		if !ev.o.ok() {
			continue
		}
		for _, id := range ev.updated {
			ends := m.deleteEnds[id]
			if len(ends) > 0 && ev.o.start.After(earliest(ends)) {
				c.StaleReturns++
				c.problem("%s started %v after the DELETE of id %d answered, and returned it [%s]",
					ev.kind, ev.o.start.Sub(earliest(ends)), id, clip(ev.o.sql, 160))
			}
		}
	}
}

func earliest(ts []time.Time) time.Time {
	e := ts[0]
	for _, t := range ts[1:] {
		if t.Before(e) {
			e = t
		}
	}
	return e
}
