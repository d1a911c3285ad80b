package session

import (
	"fmt"
	"strings"
	"testing"
)

func dmlDeleteContents(t *testing.T, s *Session) string {
	t.Helper()
	return mustQuery(t, s, `SELECT content FROM "t$delete_files" ORDER BY content`).text()
}

func TestEqualityDeleteStatement(t *testing.T) {
	s := testSession(t)
	mustQuery(t, s, "CREATE TABLE t (id int NOT NULL, cat text, v int) WITH ('format-version' = '2', 'write.delete.mode' = 'merge-on-read', 'write.update.mode' = 'merge-on-read')")
	m := dmlModel{}
	var vals []string
	for i := 0; i < 20; i++ {
		cat := []string{"a", "b", "c"}[i%3]
		v := any(i % 4 * 10)
		lit := fmt.Sprint(v)
		if i%5 == 0 {
			v, lit = "NULL", "NULL"
		}
		vals = append(vals, fmt.Sprintf("(%d, '%s', %s)", i, cat, lit))
		m.put(i, cat, v)
	}
	mustQuery(t, s, "INSERT INTO t VALUES "+strings.Join(vals, ", "))
	mustQuery(t, s, "SET magmalake.equality_deletes = on")

	remove := func(match func(id int, row string) bool) int {
		n := 0
		for id, r := range m {
			if match(id, r) {
				delete(m, id)
				n++
			}
		}
		return n
	}
	n := remove(func(_ int, r string) bool { return strings.HasSuffix(r, "|a|10") })
	if r := mustQuery(t, s, "DELETE FROM t WHERE cat = 'a' AND v = 10"); r.tag != fmt.Sprintf("DELETE %d", n) || n == 0 {
		t.Fatalf("tag %q, model %d", r.tag, n)
	}
	if got := dmlDeleteContents(t, s); got != "2\n" {
		t.Fatalf("delete file contents %q, want one equality delete", got)
	}
	dmlCheck(t, s, "t", m)
	// IN list; NULL in the list matches nothing; a row already gone is not
	// counted again.
	n = remove(func(id int, _ string) bool { return id == 1 || id == 2 })
	if r := mustQuery(t, s, "DELETE FROM t WHERE id IN (1, 2, NULL, 4 - 3, 100)"); r.tag != fmt.Sprintf("DELETE %d", n) {
		t.Fatalf("tag %q, model %d", r.tag, n)
	}
	if got := dmlDeleteContents(t, s); got != "2\n2\n" {
		t.Fatalf("delete file contents %q", got)
	}
	dmlCheck(t, s, "t", m)
	// Tuple IN: one equality delete on (id, cat). (9, 'b') names no row
	// (9's cat is 'a') and a key with a NULL matches nothing.
	n = remove(func(id int, r string) bool {
		return (id == 7 && strings.Contains(r, "|b|")) || (id == 8 && strings.Contains(r, "|c|")) || (id == 9 && strings.Contains(r, "|b|"))
	})
	if r := mustQuery(t, s, "DELETE FROM t WHERE (id, cat) IN ((7, 'b'), (8, 'c'), (9, 'b'), (NULL, 'a'))"); r.tag != fmt.Sprintf("DELETE %d", n) || n == 0 {
		t.Fatalf("tuple IN: tag %q, model %d", r.tag, n)
	}
	if got := dmlDeleteContents(t, s); got != "2\n2\n2\n" {
		t.Fatalf("tuple IN did not write one equality delete: %q", got)
	}
	dmlCheck(t, s, "t", m)
	// A new row with a deleted key survives.
	mustQuery(t, s, "INSERT INTO t VALUES (1, 'a', 10)")
	m.put(1, "a", 10)
	dmlCheck(t, s, "t", m)
	// Other shapes take the positional path and honour the equality deletes.
	n = remove(func(id int, _ string) bool { return id > 15 })
	if r := mustQuery(t, s, "DELETE FROM t WHERE id > 15"); r.tag != fmt.Sprintf("DELETE %d", n) {
		t.Fatalf("tag %q, model %d", r.tag, n)
	}
	dmlCheck(t, s, "t", m)
	if r := mustQuery(t, s, "UPDATE t SET v = -1 WHERE cat = 'a'"); !strings.HasPrefix(r.tag, "UPDATE ") {
		t.Fatal(r.tag)
	}
	for id, r := range m {
		if strings.Contains(r, "|a|") {
			m.put(id, "a", -1)
		}
	}
	dmlCheck(t, s, "t", m)
	res := dmlExec(t, s, "INSERT INTO t REPLACE WHERE v = 30 VALUES (99, 'z', 30)")
	if dmlRemoved(t, res) != remove(func(_ int, r string) bool { return strings.HasSuffix(r, "|30") }) {
		t.Fatalf("REPLACE WHERE removed %d", dmlRemoved(t, res))
	}
	m.put(99, "z", 30)
	dmlCheck(t, s, "t", m)

	// With the setting off, the same shape writes positions instead.
	mustQuery(t, s, "SET magmalake.equality_deletes = off")
	before := strings.Count(dmlDeleteContents(t, s), "2")
	remove(func(id int, _ string) bool { return id == 3 })
	mustQuery(t, s, "DELETE FROM t WHERE id = 3")
	if strings.Count(dmlDeleteContents(t, s), "2") != before {
		t.Fatal("equality delete written with the setting off")
	}
	dmlCheck(t, s, "t", m)
}

// TestEqualityDeleteFallback: a v3 table takes the positional path even
// with the setting on.
func TestEqualityDeleteFallback(t *testing.T) {
	s := testSession(t)
	mustQuery(t, s, "CREATE TABLE t (id int, cat text, v int) WITH ('format-version' = '3', 'write.delete.mode' = 'merge-on-read')")
	mustQuery(t, s, "INSERT INTO t VALUES (1, 'a', 1), (2, 'b', 2), (3, 'a', 3)")
	mustQuery(t, s, "SET magmalake.equality_deletes = on")
	if r := mustQuery(t, s, "DELETE FROM t WHERE id = 1"); r.tag != "DELETE 1" {
		t.Fatal(r.tag)
	}
	if strings.Contains(dmlDeleteContents(t, s), "2") {
		t.Fatal("v3: equality delete written")
	}
	m := dmlModel{}
	m.put(2, "b", 2)
	m.put(3, "a", 3)
	dmlCheck(t, s, "t", m)
}
