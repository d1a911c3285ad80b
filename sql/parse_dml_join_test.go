package sql

import (
	"testing"

	"github.com/magmalake/magmalake/sql/parse"
)

// TestJoinDMLRewrites checks the single-table forms DELETE ... USING and
// UPDATE ... FROM become: a key equality with a source column makes an
// uncorrelated IN, anything else a correlated EXISTS, and each assigned
// value a one-row subquery.
func TestJoinDMLRewrites(t *testing.T) {
	isIn := func(e parse.Expr) bool { in, ok := e.(*parse.In); return ok && in.Sel != nil }
	isExists := func(e parse.Expr) bool { _, ok := e.(*parse.Exists); return ok }
	for q, want := range map[string]func(parse.Expr) bool{
		"DELETE FROM t USING s WHERE t.id = s.id AND s.x > 1":                     isIn,
		"DELETE FROM t AS a USING s WHERE s.k = a.k":                              isIn,
		"DELETE FROM t USING s WHERE t.id = s.id OR s.x > 1":                      isExists,
		"DELETE FROM t USING s WHERE t.v BETWEEN s.lo AND s.hi":                   isExists,
		"DELETE FROM t USING s":                                                   isExists,
		"UPDATE t SET a = s.b FROM s WHERE t.id = s.id":                           isIn,
		"UPDATE t AS x SET a = x.a + s.b FROM s, u WHERE s.k = u.k AND x.k < s.k": isExists,
	} {
		st, err := Parse(q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		var where parse.Expr
		switch x := st[0].(type) {
		case *Delete:
			where = nodeOf(x.Where)
		case *Update:
			where = nodeOf(x.Where)
			for _, a := range x.Set {
				if _, ok := nodeOf(a.Value).(*parse.Subquery); !ok {
					t.Errorf("%s: SET %s is %T, want a subquery", q, a.Column, nodeOf(a.Value))
				}
			}
		}
		if !want(where) {
			t.Errorf("%s: WHERE is %T", q, where)
		}
	}
}
