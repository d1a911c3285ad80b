package bench

import (
	"slices"
)

// expectation is what the model says the table holds, and which ids it
// says some DELETE removed (a row read back with such an id is resurrected
// rather than a phantom).
type expectation struct {
	rows    map[int64][]int64
	deleted map[int64]bool
}

// compareReads checks every reading against the model.
func (c *ModelCheck) compareReads(want expectation, reads []*tableRead) {
	c.ModelRows = len(want.rows)
	for _, rd := range reads {
		c.Reads = append(c.Reads, c.compareRead(want, rd))
	}
}

func (c *ModelCheck) compareRead(want expectation, rd *tableRead) ReadCheck {
	rc := ReadCheck{Reader: rd.reader, Rows: len(rd.rows) + len(rd.dups), Duplicate: len(rd.dups)}
	if rd.err != nil {
		rc.Err = rd.err.Error()
		return rc
	}
	for _, id := range rd.dups {
		c.problem("%s: id %d read more than once", rd.reader, id)
	}
	for id, vals := range rd.rows {
		w, ok := want.rows[id]
		switch {
		case !ok && want.deleted[id]:
			rc.Resurrected++
			c.problem("%s: id %d is back although a DELETE returned it", rd.reader, id)
		case !ok:
			rc.Phantom++
			c.problem("%s: id %d was never written", rd.reader, id)
		case !slices.Equal(w, vals):
			rc.WrongValue++
			c.problem("%s: id %d holds %v, the model %v", rd.reader, id, vals, w)
		}
	}
	for id := range want.rows {
		if _, ok := rd.rows[id]; !ok {
			rc.Lost++
			c.problem("%s: id %d is missing", rd.reader, id)
		}
	}
	return rc
}
