package sql

import (
	"strings"
	"testing"

	"github.com/magmalake/magmalake/sql/parse"
)

func itemShapes(items []SelectItem) []string {
	var out []string
	for _, it := range items {
		switch {
		case it.Star && it.StarQualifier != "":
			out = append(out, it.StarQualifier+".*")
		case it.Star:
			out = append(out, "*")
		case it.Alias != "":
			out = append(out, syntaxShape(it.Expr)+" AS "+it.Alias)
		default:
			out = append(out, syntaxShape(it.Expr))
		}
	}
	return out
}

func parseEqStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestParseSelect(t *testing.T) {
	s := parseOne(t, `SELECT DISTINCT a, "B" AS x, t.*, count(*) FROM "S".T AS t WHERE a > $1
		GROUP BY 1, b HAVING count(*) > 2 ORDER BY a DESC NULLS LAST, 2 NULLS FIRST, c LIMIT 10 OFFSET $2`).(*Select)
	if !s.Distinct || s.Complex || s.raw == nil {
		t.Errorf("flags: %+v", s)
	}
	if got, want := itemShapes(s.Items), []string{"col:a", "col:B AS x", "t.*", "agg:count(1)"}; !parseEqStrings(got, want) {
		t.Errorf("items %q, want %q", got, want)
	}
	if s.From == nil || s.From.Name != (TableName{"S", "t"}) || s.From.Alias != "t" || s.From.SnapshotID != nil {
		t.Errorf("from %+v", s.From)
	}
	if syntaxShape(s.Where) != "(gt col:a __param(1))" || syntaxShape(s.Having) != "(gt agg:count(1) 2)" {
		t.Errorf("where %s having %s", syntaxShape(s.Where), syntaxShape(s.Having))
	}
	if len(s.GroupBy) != 2 || syntaxShape(s.GroupBy[0]) != "pos:1" || syntaxShape(s.GroupBy[1]) != "col:b" {
		t.Errorf("group by %v", s.GroupBy)
	}
	if len(s.OrderBy) != 3 || !s.OrderBy[0].Desc || *s.OrderBy[0].NullsFirst != false ||
		s.OrderBy[1].Desc || *s.OrderBy[1].NullsFirst != true || s.OrderBy[2].NullsFirst != nil || syntaxShape(s.OrderBy[1].Expr) != "pos:2" {
		t.Errorf("order by %+v", s.OrderBy)
	}
	if syntaxShape(s.Limit) != "10" || syntaxShape(s.Offset) != "__param(2)" {
		t.Errorf("limit %s offset %s", syntaxShape(s.Limit), syntaxShape(s.Offset))
	}
}

func TestParseSelectForms(t *testing.T) {
	noFrom := parseOne(t, "select 1, version(), current_schema()").(*Select)
	if noFrom.From != nil || noFrom.Complex || len(noFrom.Items) != 3 {
		t.Errorf("no FROM: %+v", noFrom)
	}
	v := parseOne(t, "SELECT * FROM t FOR VERSION AS OF 1234567890123 WHERE a = 1").(*Select)
	if v.From == nil || v.From.SnapshotID == nil || *v.From.SnapshotID != 1234567890123 || syntaxShape(v.Where) != "(eq col:a 1)" {
		t.Errorf("version as of: %+v", v.From)
	}
	ts := parseOne(t, "SELECT * FROM s.t x FOR TIMESTAMP AS OF '2024-01-01 00:00:00+00' ORDER BY a").(*Select)
	if ts.From == nil || ts.From.Alias != "x" || syntaxShape(ts.From.AsOfTimestamp) != `"2024-01-01 00:00:00+00"` || len(ts.OrderBy) != 1 {
		t.Errorf("timestamp as of: %+v", ts.From)
	}
	off := parseOne(t, "SELECT a FROM t OFFSET 5").(*Select)
	if off.Limit != nil || syntaxShape(off.Offset) != "5" {
		t.Errorf("offset alone: limit %v offset %v", off.Limit, off.Offset)
	}
	rev := parseOne(t, "SELECT a FROM t OFFSET 2 ROWS FETCH FIRST 3 ROWS ONLY").(*Select)
	if syntaxShape(rev.Limit) != "3" || syntaxShape(rev.Offset) != "2" {
		t.Errorf("fetch first: limit %v offset %v", rev.Limit, rev.Offset)
	}
	all := parseOne(t, "SELECT a FROM t LIMIT ALL").(*Select)
	if all.Limit != nil {
		t.Errorf("LIMIT ALL: %v", all.Limit)
	}
	meta := parseOne(t, `SELECT * FROM "t$snapshots"`).(*Select)
	if meta.From == nil || meta.From.Name.Table != "t$snapshots" {
		t.Errorf("metadata table: %+v", meta.From)
	}
	for _, q := range []string{
		"SELECT * FROM a JOIN b ON a.x = b.x",
		"SELECT * FROM a, b",
		"SELECT * FROM (SELECT 1) s",
		"SELECT 1 UNION ALL SELECT 2",
		"WITH c AS (SELECT 1) SELECT * FROM c",
	} {
		s := parseOne(t, q).(*Select)
		if !s.Complex || s.From != nil || (s.raw == nil && s.rawSetOpr == nil) {
			t.Errorf("%q: want Complex with Raw, got %+v", q, s)
		}
	}
	sub := parseOne(t, "SELECT a FROM t WHERE a IN (SELECT b FROM u)").(*Select)
	if sub.Complex || sub.From == nil {
		t.Errorf("subquery in WHERE is not Complex: %+v", sub)
	}
}

func TestParseInsert(t *testing.T) {
	ins := parseOne(t, "INSERT INTO s.t (a, \"B\") VALUES (1, 'x'), ($1, DATE '2024-01-01') RETURNING a, b AS bee").(*Insert)
	if ins.Table != (TableName{"s", "t"}) || !parseEqStrings(ins.Columns, []string{"a", "B"}) || ins.Overwrite || ins.Query != nil {
		t.Errorf("insert head: %+v", ins)
	}
	if len(ins.Rows) != 2 || syntaxShapes(ins.Rows[0]) != `1, "x"` || syntaxShapes(ins.Rows[1]) != `__param(1), __cast("2024-01-01", "date")` {
		t.Errorf("rows: %v", ins.Rows)
	}
	if got := itemShapes(ins.Returning); !parseEqStrings(got, []string{"col:a", "col:b AS bee"}) {
		t.Errorf("returning %q", got)
	}
	sel := parseOne(t, "INSERT INTO t SELECT a, b FROM u WHERE c ORDER BY a NULLS FIRST").(*Insert)
	if sel.Rows != nil || sel.Query == nil || sel.Query.From.Name.Table != "u" || *sel.Query.OrderBy[0].NullsFirst != true {
		t.Errorf("insert select: %+v", sel)
	}
	ow := parseOne(t, "INSERT OVERWRITE TABLE t PARTITION (region = 'eu', day = DATE '2024-01-02') SELECT a FROM u").(*Insert)
	if !ow.Overwrite || len(ow.Partition) != 2 || ow.Partition[0].Column != "region" || syntaxShape(ow.Partition[0].Value) != `"eu"` ||
		syntaxShape(ow.Partition[1].Value) != `__cast("2024-01-02", "date")` || ow.Query == nil {
		t.Errorf("insert overwrite: %+v", ow)
	}
	ow2 := parseOne(t, "insert overwrite t values (1)").(*Insert)
	if !ow2.Overwrite || ow2.Partition != nil || len(ow2.Rows) != 1 {
		t.Errorf("insert overwrite without partition: %+v", ow2)
	}
	rw := parseOne(t, "INSERT INTO t REPLACE WHERE d >= '2024-01-01' AND d < '2024-02-01' SELECT * FROM staging").(*Insert)
	if rw.ReplaceWhere == nil || syntaxShape(rw.ReplaceWhere) != `(and (ge col:d "2024-01-01") (lt col:d "2024-02-01"))` || rw.Query == nil {
		t.Errorf("replace where: %+v", rw)
	}
	rwv := parseOne(t, "INSERT INTO t REPLACE WHERE a = 1 VALUES (1, 2)").(*Insert)
	if syntaxShape(rwv.ReplaceWhere) != "(eq col:a 1)" || len(rwv.Rows) != 1 {
		t.Errorf("replace where values: %+v", rwv)
	}
}

func TestParseDeleteUpdate(t *testing.T) {
	d := parseOne(t, "DELETE FROM s.t WHERE a IS DISTINCT FROM 5 AND b ILIKE 'x%' RETURNING *").(*Delete)
	if d.Table != (TableName{"s", "t"}) || syntaxShape(d.Where) != `(and (not [(nulleq col:a 5)]) __ilike(col:b, "x%"))` ||
		!parseEqStrings(itemShapes(d.Returning), []string{"*"}) {
		t.Errorf("delete: %+v where %s", d, syntaxShape(d.Where))
	}
	all := parseOne(t, "delete from t").(*Delete)
	if all.Where != nil || all.Returning != nil {
		t.Errorf("delete all: %+v", all)
	}
	u := parseOne(t, "UPDATE t AS x SET a = a + 1, \"B\" = NULL, c = b IS NOT DISTINCT FROM $1 WHERE x.k = 'z' RETURNING a").(*Update)
	if u.Table.Table != "t" || u.Alias != "x" || len(u.Set) != 3 {
		t.Fatalf("update: %+v", u)
	}
	if u.Set[0].Column != "a" || syntaxShape(u.Set[0].Value) != "(plus col:a 1)" || u.Set[1].Column != "B" ||
		syntaxShape(u.Set[1].Value) != "<nil>" || syntaxShape(u.Set[2].Value) != "[(nulleq col:b __param(1))]" {
		t.Errorf("assignments: %s | %s | %s", syntaxShape(u.Set[0].Value), syntaxShape(u.Set[1].Value), syntaxShape(u.Set[2].Value))
	}
	if syntaxShape(u.Where) != `(eq col:x.k "z")` || !parseEqStrings(itemShapes(u.Returning), []string{"col:a"}) {
		t.Errorf("update where %s returning %v", syntaxShape(u.Where), u.Returning)
	}
}

func TestParseExplain(t *testing.T) {
	e := parseOne(t, "EXPLAIN ANALYZE DELETE FROM t WHERE a = 1").(*Explain)
	if !e.Analyze {
		t.Error("ANALYZE not recorded")
	}
	if d, ok := e.Stmt.(*Delete); !ok || syntaxShape(d.Where) != "(eq col:a 1)" || d.Text() != "DELETE FROM t WHERE a = 1" {
		t.Errorf("explained statement: %#v", e.Stmt)
	}
	e2 := parseOne(t, "EXPLAIN (ANALYZE false, FORMAT text) SELECT 1").(*Explain)
	if e2.Analyze {
		t.Error("ANALYZE false recorded as true")
	}
	if _, ok := e2.Stmt.(*Select); !ok {
		t.Errorf("explained: %T", e2.Stmt)
	}
	if e3 := parseOne(t, "explain insert overwrite t select * from u").(*Explain); e3.Analyze {
		t.Error("plain EXPLAIN has Analyze")
	}
}

func TestParseMultiple(t *testing.T) {
	stmts, err := Parse("BEGIN; DELETE FROM t WHERE a = 1; COMMIT;")
	if err != nil {
		t.Fatal(err)
	}
	if len(stmts) != 3 {
		t.Fatalf("got %d statements", len(stmts))
	}
	if _, ok := stmts[0].(*Begin); !ok {
		t.Errorf("first %T", stmts[0])
	}
	if d, ok := stmts[1].(*Delete); !ok || d.Text() != "DELETE FROM t WHERE a = 1" {
		t.Errorf("second %#v", stmts[1])
	}
	if _, ok := stmts[2].(*Commit); !ok {
		t.Errorf("third %T", stmts[2])
	}
}

func syntaxShape(s Syntax) string { return parse.Shape(nodeOf(s)) }

func syntaxShapes(ss []Syntax) string {
	s := make([]string, len(ss))
	for i, x := range ss {
		s[i] = syntaxShape(x)
	}
	return strings.Join(s, ", ")
}
