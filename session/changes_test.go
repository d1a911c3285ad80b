package session

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
)

// changeSteps change table w; each commits one snapshot. The model applies
// the same change to id → v.
var changeSteps = []struct {
	q     string
	apply func(rowModel)
}{
	{"INSERT INTO w SELECT g, g * 10 FROM generate_series(1, 20) g", func(m rowModel) {
		for id := 1; id <= 20; id++ {
			m[id] = id * 10
		}
	}},
	{"DELETE FROM w WHERE id <= 3", func(m rowModel) {
		for id := 1; id <= 3; id++ {
			delete(m, id)
		}
	}},
	{"UPDATE w SET v = -1 WHERE id IN (10, 11)", func(m rowModel) { m[10], m[11] = -1, -1 }},
	{"INSERT INTO w VALUES (21, 210), (22, 220)", func(m rowModel) { m[21], m[22] = 210, 220 }},
	{"ALTER TABLE w EXECUTE optimize", func(rowModel) {}},
	{"DELETE FROM w WHERE id = 15", func(m rowModel) { delete(m, 15) }},
	{"MERGE INTO w t USING (SELECT g AS id FROM generate_series(18, 25) g) s ON t.id = s.id WHEN MATCHED AND s.id % 2 = 0 THEN DELETE WHEN MATCHED THEN UPDATE SET v = -2 WHEN NOT MATCHED THEN INSERT VALUES (s.id, 0)",
		func(m rowModel) {
			for id := 18; id <= 25; id++ {
				_, ok := m[id]
				switch {
				case ok && id%2 == 0:
					delete(m, id)
				case ok:
					m[id] = -2
				default:
					m[id] = 0
				}
			}
		}},
}

// modelChanges is the feed the model expects of one step: rows gone are
// DELETEs, rows new INSERTs, rows whose value moved an UPDATE pair on v3
// (rows have ids) and a DELETE and an INSERT on v2.
func modelChanges(ordinal int, before, after rowModel, v3 bool) []string {
	var out []string
	row := func(kind string, id, v int) { out = append(out, fmt.Sprintf("%d|%s|%d|%d", ordinal, kind, id, v)) }
	for _, id := range slices.Sorted(maps.Keys(before)) {
		now, ok := after[id]
		switch {
		case !ok:
			row("DELETE", id, before[id])
		case now != before[id] && v3:
			row("UPDATE_BEFORE", id, before[id])
			row("UPDATE_AFTER", id, now)
		case now != before[id]:
			row("DELETE", id, before[id])
			row("INSERT", id, now)
		}
	}
	for _, id := range slices.Sorted(maps.Keys(after)) {
		if _, ok := before[id]; !ok {
			row("INSERT", id, after[id])
		}
	}
	return out
}

// TestChangeFeed: "w$changes" lists, per snapshot of main's history, the
// rows the model says each statement inserted, deleted or updated, in
// every table mode; OPTIMIZE, which moves rows without changing them,
// adds none; _commit_snapshot_id is the snapshot that made the change.
func TestChangeFeed(t *testing.T) {
	for _, mode := range append(auditModes, struct {
		name, with string
		settings   []string
	}{"v3-cow", "WITH ('format-version' = '3')", nil}) {
		t.Run(mode.name, func(t *testing.T) {
			s := testSession(t)
			for _, q := range mode.settings {
				mustQuery(t, s, q)
			}
			mustQuery(t, s, "CREATE TABLE w (id int, v int) "+mode.with)
			v3 := strings.Contains(mode.with, "'3'")
			model := rowModel{}
			var want []string
			var snaps []string
			for i, step := range changeSteps {
				before := model.clone()
				mustQuery(t, s, step.q)
				step.apply(model)
				want = append(want, modelChanges(i, before, model, v3)...)
				snaps = append(snaps, refID(t, s, "main"))
			}
			slices.Sort(want)
			got := mustQuery(t, s, `SELECT _change_ordinal, _change_type, id, v FROM "w$changes"`).rows
			var lines []string
			for _, r := range got {
				lines = append(lines, strings.Join(r, "|"))
			}
			slices.Sort(lines)
			if strings.Join(lines, "\n") != strings.Join(want, "\n") {
				t.Fatalf("change feed:\n%s\nmodel:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
			}
			ids := mustQuery(t, s, `SELECT DISTINCT _change_ordinal, _commit_snapshot_id FROM "w$changes" ORDER BY 1`).rows
			for _, r := range ids {
				var ord int
				fmt.Sscan(r[0], &ord)
				if r[1] != snaps[ord] {
					t.Fatalf("ordinal %d: snapshot %s, want %s", ord, r[1], snaps[ord])
				}
			}
		})
	}
}
