package session

import (
	"fmt"
	"math/rand"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/magmalake/magmalake/lake"
	"github.com/magmalake/magmalake/pgerr"
)

// mRow is one row of the model table m; nil pointers are NULL.
type mRow struct {
	id   int64
	g    *int64
	x    *float64
	s    *string
	d    *int64 // days since epoch
	flag *bool
}

var mStrings = []string{"apple", "Apple", "", "banana", "ab", "zeta", "Ωmega", "a b"}

func mGenerate(r *rand.Rand, n int) []mRow {
	rows := make([]mRow, n)
	for i := range rows {
		row := mRow{id: int64(i)}
		if r.Intn(6) > 0 {
			g := int64(r.Intn(5))
			row.g = &g
		}
		if r.Intn(6) > 0 {
			x := float64(r.Intn(81)-40) / 4
			row.x = &x
		}
		if r.Intn(6) > 0 {
			s := mStrings[r.Intn(len(mStrings))]
			row.s = &s
		}
		if r.Intn(6) > 0 {
			d := int64(19000 + r.Intn(60))
			row.d = &d
		}
		if r.Intn(6) > 0 {
			f := r.Intn(2) == 0
			row.flag = &f
		}
		rows[i] = row
	}
	return rows
}

func mLiteral[T any](p *T, f func(T) string) string {
	if p == nil {
		return "NULL"
	}
	return f(*p)
}

func mInsert(rows []mRow) string {
	vals := make([]string, len(rows))
	for i, r := range rows {
		vals[i] = fmt.Sprintf("(%d, %s, %s, %s, %s, %s)", r.id,
			mLiteral(r.g, func(v int64) string { return strconv.FormatInt(v, 10) }),
			mLiteral(r.x, func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }),
			mLiteral(r.s, func(v string) string { return "'" + v + "'" }),
			mLiteral(r.d, func(v int64) string { return "'" + mDate(v) + "'" }),
			mLiteral(r.flag, strconv.FormatBool))
	}
	return "INSERT INTO m VALUES " + strings.Join(vals, ", ")
}

func mDate(days int64) string { return time.Unix(days*86400, 0).UTC().Format("2006-01-02") }

// Model values are canonical strings (see fndCell) or fndNull.
type mExpr struct {
	sql  string
	eval func(r mRow) string
}

func canonInt(p *int64) string {
	if p == nil {
		return fndNull
	}
	return fmt.Sprintf("i:%d", *p)
}

func canonText(p *string) string {
	if p == nil {
		return fndNull
	}
	return "s:" + *p
}

func mapText(p *string, f func(string) string) string {
	if p == nil {
		return fndNull
	}
	return f(*p)
}

var mColumns = map[string]mExpr{
	"id": {"id", func(r mRow) string { return fmt.Sprintf("i:%d", r.id) }},
	"g":  {"g", func(r mRow) string { return canonInt(r.g) }},
	"x": {"x", func(r mRow) string {
		if r.x == nil {
			return fndNull
		}
		return fndFloat(*r.x)
	}},
	"s": {"s", func(r mRow) string { return canonText(r.s) }},
	"d": {"d", func(r mRow) string {
		if r.d == nil {
			return fndNull
		}
		return fmt.Sprintf("d:%d", *r.d)
	}},
	"flag": {"flag", func(r mRow) string {
		if r.flag == nil {
			return fndNull
		}
		return fmt.Sprintf("b:%t", *r.flag)
	}},
}

var mExprs = []mExpr{
	mColumns["id"], mColumns["g"], mColumns["x"], mColumns["s"], mColumns["d"], mColumns["flag"],
	{"g + 1", func(r mRow) string {
		if r.g == nil {
			return fndNull
		}
		return fmt.Sprintf("i:%d", *r.g+1)
	}},
	{"id * 2", func(r mRow) string { return fmt.Sprintf("i:%d", r.id*2) }},
	{"abs(x)", func(r mRow) string {
		if r.x == nil {
			return fndNull
		}
		return fndFloat(max(*r.x, -*r.x))
	}},
	{"lower(s)", func(r mRow) string {
		return mapText(r.s, func(v string) string { return "s:" + mASCIICase(v, unicode.ToLower) })
	}},
	{"upper(s)", func(r mRow) string {
		return mapText(r.s, func(v string) string { return "s:" + mASCIICase(v, unicode.ToUpper) })
	}},
	{"length(s)", func(r mRow) string {
		return mapText(r.s, func(v string) string { return fmt.Sprintf("i:%d", utf8.RuneCountInString(v)) })
	}},
	{"substring(s, 2, 3)", func(r mRow) string {
		return mapText(r.s, func(v string) string {
			rs := []rune(v)
			return "s:" + string(rs[min(1, len(rs)):min(4, len(rs))])
		})
	}},
	{"coalesce(g, -1)", func(r mRow) string {
		if r.g == nil {
			return "i:-1"
		}
		return canonInt(r.g)
	}},
	{"CASE WHEN g > 2 THEN 'hi' WHEN g IS NULL THEN 'none' ELSE 'lo' END", func(r mRow) string {
		switch {
		case r.g == nil:
			return "s:none"
		case *r.g > 2:
			return "s:hi"
		}
		return "s:lo"
	}},
	{"CAST(g AS bigint)", func(r mRow) string { return canonInt(r.g) }},
	{"g::text", func(r mRow) string {
		if r.g == nil {
			return fndNull
		}
		return fmt.Sprintf("s:%d", *r.g)
	}},
	{"CAST(id AS double precision) / 4", func(r mRow) string { return fndFloat(float64(r.id) / 4) }},
}

// mASCIICase maps only ASCII letters, as PostgreSQL's lower/upper do under
// the C locale magmalake follows.
func mASCIICase(s string, f func(rune) rune) string {
	return strings.Map(func(r rune) rune {
		if r < utf8.RuneSelf {
			return f(r)
		}
		return r
	}, s)
}

// tv is a three-valued truth value.
type tv int8

const (
	tvFalse tv = iota
	tvTrue
	tvNull
)

func tvOf(b bool) tv {
	if b {
		return tvTrue
	}
	return tvFalse
}

func tvAnd(a, b tv) tv {
	switch {
	case a == tvFalse || b == tvFalse:
		return tvFalse
	case a == tvNull || b == tvNull:
		return tvNull
	}
	return tvTrue
}

func tvOr(a, b tv) tv {
	switch {
	case a == tvTrue || b == tvTrue:
		return tvTrue
	case a == tvNull || b == tvNull:
		return tvNull
	}
	return tvFalse
}

func tvNot(a tv) tv {
	if a == tvNull {
		return tvNull
	}
	return 1 - a
}

type mPred struct {
	sql  string
	eval func(r mRow) tv
}

func cmpInt(p *int64, f func(int64) bool) tv {
	if p == nil {
		return tvNull
	}
	return tvOf(f(*p))
}

// mAtom draws one comparison with constants from the data's domains.
func mAtom(r *rand.Rand) mPred {
	k := int64(r.Intn(6) - 1)
	v := float64(r.Intn(41)-20) / 4
	lit := mStrings[r.Intn(len(mStrings))]
	day := int64(19000 + r.Intn(60))
	atoms := []mPred{
		{fmt.Sprintf("g = %d", k), func(m mRow) tv { return cmpInt(m.g, func(g int64) bool { return g == k }) }},
		{fmt.Sprintf("g <> %d", k), func(m mRow) tv { return cmpInt(m.g, func(g int64) bool { return g != k }) }},
		{fmt.Sprintf("g > %d", k), func(m mRow) tv { return cmpInt(m.g, func(g int64) bool { return g > k }) }},
		{fmt.Sprintf("g <= %d", k), func(m mRow) tv { return cmpInt(m.g, func(g int64) bool { return g <= k }) }},
		{"g IS NULL", func(m mRow) tv { return tvOf(m.g == nil) }},
		{"g IS NOT NULL", func(m mRow) tv { return tvOf(m.g != nil) }},
		{"g IN (1, 3)", func(m mRow) tv { return cmpInt(m.g, func(g int64) bool { return g == 1 || g == 3 }) }},
		{"g NOT IN (1, NULL)", func(m mRow) tv {
			return tvAnd(cmpInt(m.g, func(g int64) bool { return g != 1 }), tvNull)
		}},
		{"g BETWEEN 1 AND 3", func(m mRow) tv { return cmpInt(m.g, func(g int64) bool { return g >= 1 && g <= 3 }) }},
		{"coalesce(g, 0) = 0", func(m mRow) tv { return tvOf(m.g == nil || *m.g == 0) }},
		{fmt.Sprintf("x < %g", v), func(m mRow) tv {
			if m.x == nil {
				return tvNull
			}
			return tvOf(*m.x < v)
		}},
		{fmt.Sprintf("x >= %g", v), func(m mRow) tv {
			if m.x == nil {
				return tvNull
			}
			return tvOf(*m.x >= v)
		}},
		{fmt.Sprintf("s = '%s'", lit), func(m mRow) tv {
			if m.s == nil {
				return tvNull
			}
			return tvOf(*m.s == lit)
		}},
		{fmt.Sprintf("s <> '%s'", lit), func(m mRow) tv {
			if m.s == nil {
				return tvNull
			}
			return tvOf(*m.s != lit)
		}},
		{fmt.Sprintf("s > '%s'", lit), func(m mRow) tv {
			if m.s == nil {
				return tvNull
			}
			return tvOf(*m.s > lit)
		}},
		{"length(s) > 2", func(m mRow) tv {
			if m.s == nil {
				return tvNull
			}
			return tvOf(utf8.RuneCountInString(*m.s) > 2)
		}},
		{"flag", func(m mRow) tv {
			if m.flag == nil {
				return tvNull
			}
			return tvOf(*m.flag)
		}},
		{"flag IS NULL", func(m mRow) tv { return tvOf(m.flag == nil) }},
		{fmt.Sprintf("d > '%s'", mDate(day)), func(m mRow) tv { return cmpInt(m.d, func(d int64) bool { return d > day }) }},
		{fmt.Sprintf("d = '%s'", mDate(day)), func(m mRow) tv { return cmpInt(m.d, func(d int64) bool { return d == day }) }},
	}
	return atoms[r.Intn(len(atoms))]
}

// mWhere builds a random predicate of up to three atoms.
func mWhere(r *rand.Rand, depth int) mPred {
	if depth == 0 || r.Intn(3) == 0 {
		return mAtom(r)
	}
	a, b := mWhere(r, depth-1), mWhere(r, depth-1)
	switch r.Intn(3) {
	case 0:
		return mPred{"(" + a.sql + " AND " + b.sql + ")", func(m mRow) tv { return tvAnd(a.eval(m), b.eval(m)) }}
	case 1:
		return mPred{"(" + a.sql + " OR " + b.sql + ")", func(m mRow) tv { return tvOr(a.eval(m), b.eval(m)) }}
	}
	return mPred{"NOT (" + a.sql + ")", func(m mRow) tv { return tvNot(a.eval(m)) }}
}

func mFilter(rows []mRow, p *mPred) []mRow {
	var out []mRow
	for _, r := range rows {
		if p == nil || p.eval(r) == tvTrue {
			out = append(out, r)
		}
	}
	return out
}

// mCompareCanon orders two non-null canonical values of one column.
func mCompareCanon(a, b string) int {
	switch {
	case strings.HasPrefix(a, "s:"):
		return strings.Compare(a, b)
	case strings.HasPrefix(a, "b:"):
		return strings.Compare(a, b) // b:false < b:true
	}
	x, _ := strconv.ParseFloat(a[strings.IndexByte(a, ':')+1:], 64)
	y, _ := strconv.ParseFloat(b[strings.IndexByte(b, ':')+1:], 64)
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

type mOrderKey struct {
	col              string
	desc, nullsFirst bool
	clause           string
}

func mOrderKeys(r *rand.Rand) []mOrderKey {
	cols := []string{"g", "x", "s", "d", "flag"}
	var keys []mOrderKey
	for range 1 + r.Intn(2) {
		k := mOrderKey{col: cols[r.Intn(len(cols))], desc: r.Intn(2) == 0}
		k.nullsFirst = k.desc
		// Qualified: a bare name could match two differently computed
		// outputs ("g::text" and "CAST(g AS bigint)" are both named g),
		// which PostgreSQL rejects as ambiguous.
		k.clause = "m." + k.col
		if k.desc {
			k.clause += " DESC"
		}
		switch r.Intn(3) {
		case 0:
			k.nullsFirst, k.clause = true, k.clause+" NULLS FIRST"
		case 1:
			k.nullsFirst, k.clause = false, k.clause+" NULLS LAST"
		}
		keys = append(keys, k)
	}
	return append(keys, mOrderKey{col: "id", clause: "id"})
}

func mSort(rows []mRow, keys []mOrderKey) {
	slices.SortStableFunc(rows, func(a, b mRow) int {
		for _, k := range keys {
			x, y := mColumns[k.col].eval(a), mColumns[k.col].eval(b)
			var c int
			switch {
			case x == fndNull && y == fndNull:
			case x == fndNull:
				c = 1
				if k.nullsFirst {
					c = -1
				}
			case y == fndNull:
				c = -1
				if k.nullsFirst {
					c = 1
				}
			default:
				c = mCompareCanon(x, y)
				if k.desc {
					c = -c
				}
			}
			if c != 0 {
				return c
			}
		}
		return 0
	})
}

type mFixture struct {
	s         *Session
	rows      []mRow
	batches   [][]mRow
	snapshots []int64
	commitMs  []int64
}

func mSetup(t *testing.T) *mFixture {
	s := testSession(t)
	mustQuery(t, s, "CREATE TABLE m (id bigint NOT NULL, g int, x double precision, s text, d date, flag boolean) PARTITIONED BY (bucket(3, id))")
	f := &mFixture{s: s, rows: mGenerate(rand.New(rand.NewSource(7)), 150)}
	f.batches = [][]mRow{f.rows[:40], f.rows[40:90], f.rows[90:]}
	for _, b := range f.batches {
		mustQuery(t, s, mInsert(b))
		tbl, err := s.engine.wh.LoadTable(t.Context(), lake.Ident("public", "m"))
		if err != nil {
			t.Fatal(err)
		}
		snap := tbl.CurrentSnapshot()
		f.snapshots = append(f.snapshots, snap.SnapshotID)
		f.commitMs = append(f.commitMs, snap.TimestampMs)
	}
	return f
}

// TestSelectModel runs random queries and compares them with the model.
func TestSelectModel(t *testing.T) {
	f := mSetup(t)
	r := rand.New(rand.NewSource(42))
	for range 160 {
		var q string
		var want [][]string
		var approx map[int]bool
		ordered := false
		switch r.Intn(4) {
		case 0, 1:
			q, want, ordered = mProjection(r, f.rows)
		case 2:
			q, want, approx = mGrouped(r, f.rows)
		default:
			q, want = mDistinct(r, f.rows)
		}
		_, got := fndRows(t, f.s, q)
		if !ordered {
			got, want = fndSorted(got), fndSorted(want)
		}
		if d := fndSameRows(got, want, approx); d != "" {
			t.Fatalf("%s\n%s", q, d)
		}
	}
}

func mProjection(r *rand.Rand, all []mRow) (string, [][]string, bool) {
	var items []mExpr
	for range 1 + r.Intn(4) {
		items = append(items, mExprs[r.Intn(len(mExprs))])
	}
	sqls := make([]string, len(items))
	for i, it := range items {
		sqls[i] = it.sql
	}
	q := "SELECT " + strings.Join(sqls, ", ") + " FROM m"
	rows := all
	if r.Intn(4) > 0 {
		p := mWhere(r, 2)
		q += " WHERE " + p.sql
		rows = mFilter(all, &p)
	}
	rows = slices.Clone(rows)
	ordered := r.Intn(3) > 0
	if ordered {
		keys := mOrderKeys(r)
		clauses := make([]string, len(keys))
		for i, k := range keys {
			clauses[i] = k.clause
		}
		q += " ORDER BY " + strings.Join(clauses, ", ")
		mSort(rows, keys)
		if r.Intn(2) == 0 {
			limit, offset := r.Intn(30), r.Intn(20)
			q += fmt.Sprintf(" LIMIT %d OFFSET %d", limit, offset)
			rows = rows[min(offset, len(rows)):min(offset+limit, len(rows))]
		}
	}
	want := make([][]string, len(rows))
	for i, row := range rows {
		for _, it := range items {
			want[i] = append(want[i], it.eval(row))
		}
	}
	return q, want, ordered
}

// mAgg is an aggregate with its model over a group's rows.
type mAgg struct {
	sql    string
	approx bool
	eval   func(rows []mRow) string
}

func mNumbers(rows []mRow, col string) []string {
	var out []string
	for _, r := range rows {
		if v := mColumns[col].eval(r); v != fndNull {
			out = append(out, v)
		}
	}
	return out
}

func mSum(vals []string) (float64, bool) {
	sum := 0.0
	for _, v := range vals {
		x, _ := fndNumber(v)
		sum += x
	}
	return sum, len(vals) > 0
}

var mAggs = []mAgg{
	{"count(*)", false, func(rows []mRow) string { return fmt.Sprintf("i:%d", len(rows)) }},
	{"count(x)", false, func(rows []mRow) string { return fmt.Sprintf("i:%d", len(mNumbers(rows, "x"))) }},
	{"count(s)", false, func(rows []mRow) string { return fmt.Sprintf("i:%d", len(mNumbers(rows, "s"))) }},
	{"sum(g)", true, func(rows []mRow) string {
		if s, ok := mSum(mNumbers(rows, "g")); ok {
			return fndFloat(s)
		}
		return fndNull
	}},
	{"sum(x)", true, func(rows []mRow) string {
		if s, ok := mSum(mNumbers(rows, "x")); ok {
			return fndFloat(s)
		}
		return fndNull
	}},
	{"avg(g)", true, func(rows []mRow) string {
		vals := mNumbers(rows, "g")
		if s, ok := mSum(vals); ok {
			return fndFloat(s / float64(len(vals)))
		}
		return fndNull
	}},
	{"avg(x)", true, func(rows []mRow) string {
		vals := mNumbers(rows, "x")
		if s, ok := mSum(vals); ok {
			return fndFloat(s / float64(len(vals)))
		}
		return fndNull
	}},
	{"min(s)", false, func(rows []mRow) string { return mExtreme(mNumbers(rows, "s"), -1) }},
	{"max(s)", false, func(rows []mRow) string { return mExtreme(mNumbers(rows, "s"), 1) }},
	{"min(x)", false, func(rows []mRow) string { return mExtreme(mNumbers(rows, "x"), -1) }},
	{"max(d)", false, func(rows []mRow) string { return mExtreme(mNumbers(rows, "d"), 1) }},
}

func mExtreme(vals []string, sign int) string {
	if len(vals) == 0 {
		return fndNull
	}
	best := vals[0]
	for _, v := range vals[1:] {
		if mCompareCanon(v, best)*sign > 0 {
			best = v
		}
	}
	return best
}

func mGrouped(r *rand.Rand, all []mRow) (string, [][]string, map[int]bool) {
	keySets := [][]string{nil, {"g"}, {"flag"}, {"g", "flag"}, {"s"}}
	keys := keySets[r.Intn(len(keySets))]
	var aggs []mAgg
	for range 1 + r.Intn(3) {
		aggs = append(aggs, mAggs[r.Intn(len(mAggs))])
	}
	items := slices.Clone(keys)
	approx := map[int]bool{}
	for i, a := range aggs {
		items = append(items, a.sql)
		approx[len(keys)+i] = a.approx
	}
	q := "SELECT " + strings.Join(items, ", ") + " FROM m"
	rows := all
	if r.Intn(2) == 0 {
		p := mWhere(r, 1)
		q += " WHERE " + p.sql
		rows = mFilter(all, &p)
	}
	groups := map[string][]mRow{}
	var order []string
	for _, row := range rows {
		var k []string
		for _, c := range keys {
			k = append(k, mColumns[c].eval(row))
		}
		key := strings.Join(k, "\x00")
		if _, seen := groups[key]; !seen {
			order = append(order, key)
		}
		groups[key] = append(groups[key], row)
	}
	if len(keys) == 0 && len(order) == 0 {
		order, groups[""] = []string{""}, nil // an aggregate without GROUP BY has one row
	}
	if len(keys) > 0 {
		q += " GROUP BY " + strings.Join(keys, ", ")
	}
	minCount := 0
	if len(keys) > 0 && r.Intn(2) == 0 {
		minCount = r.Intn(12)
		q += fmt.Sprintf(" HAVING count(*) > %d", minCount)
	}
	var want [][]string
	for _, key := range order {
		g := groups[key]
		if len(keys) > 0 && len(g) <= minCount {
			continue
		}
		var out []string
		if len(keys) > 0 {
			out = strings.Split(key, "\x00")
		}
		for _, a := range aggs {
			out = append(out, a.eval(g))
		}
		want = append(want, out)
	}
	return q, want, approx
}

func mDistinct(r *rand.Rand, all []mRow) (string, [][]string) {
	sets := [][]string{{"g"}, {"flag"}, {"g", "flag"}, {"s"}, {"lower(s)"}}
	cols := sets[r.Intn(len(sets))]
	q := "SELECT DISTINCT " + strings.Join(cols, ", ") + " FROM m"
	rows := all
	if r.Intn(2) == 0 {
		p := mWhere(r, 1)
		q += " WHERE " + p.sql
		rows = mFilter(all, &p)
	}
	seen := map[string]bool{}
	var want [][]string
	for _, row := range rows {
		var out []string
		for _, c := range cols {
			e, ok := mColumns[c]
			if !ok {
				e = mExprs[slices.IndexFunc(mExprs, func(x mExpr) bool { return x.sql == c })]
			}
			out = append(out, e.eval(row))
		}
		if k := strings.Join(out, "\x00"); !seen[k] {
			seen[k] = true
			want = append(want, out)
		}
	}
	return q, want
}

// TestSelectTimeTravel reads each snapshot by id and by commit time.
func TestSelectTimeTravel(t *testing.T) {
	f := mSetup(t)
	for i, snap := range f.snapshots {
		var want [][]string
		for _, b := range f.batches[:i+1] {
			for _, row := range b {
				want = append(want, []string{fmt.Sprintf("i:%d", row.id), canonInt(row.g)})
			}
		}
		ts := time.UnixMilli(f.commitMs[i]).UTC().Format("2006-01-02 15:04:05.000+00")
		for _, q := range []string{
			fmt.Sprintf("SELECT id, g FROM m FOR VERSION AS OF %d", snap),
			fmt.Sprintf("SELECT id, g FROM m FOR TIMESTAMP AS OF '%s'", ts),
		} {
			_, got := fndRows(t, f.s, q)
			if d := fndSameRows(fndSorted(got), fndSorted(want), nil); d != "" {
				t.Errorf("%s: %s", q, d)
			}
		}
	}
	before := time.UnixMilli(f.commitMs[0] - 1000).UTC().Format("2006-01-02 15:04:05.000+00")
	mustFail(t, f.s, pgerr.InvalidParameterValue, fmt.Sprintf("SELECT id FROM m FOR TIMESTAMP AS OF '%s'", before))
	mustFail(t, f.s, pgerr.InvalidParameterValue, "SELECT id FROM m FOR VERSION AS OF 12345")
}

// TestSelectWithoutFrom evaluates constant expressions and the clock
// functions.
func TestSelectWithoutFrom(t *testing.T) {
	s := testSession(t)
	_, rows := fndRows(t, s, "SELECT 1 + 2, lower('AbC'), upper('ähm'), length('héllo'), coalesce(NULL, 7), abs(-2.5), substring('hello', 2, 3), "+
		"CASE WHEN 1 < 2 THEN 'y' END, CAST('42' AS int), '7'::bigint + 1, NULL::int IS NULL")
	want := [][]string{{"i:3", "s:abc", "s:äHM", "i:5", "i:7", "n:5/2", "s:ell", "s:y", "i:42", "i:8", "b:true"}}
	if d := fndSameRows(rows, want, nil); d != "" {
		t.Fatal(d)
	}
	before := time.Now().UTC()
	_, rows = fndRows(t, s, "SELECT now(), current_timestamp, current_date, now() = current_timestamp")
	after := time.Now().UTC()
	us, err := strconv.ParseInt(strings.TrimPrefix(rows[0][0], "ts:"), 10, 64)
	if err != nil {
		t.Fatalf("now(): %v", rows[0])
	}
	now := time.UnixMicro(us)
	if now.Before(before.Add(-time.Second)) || now.After(after.Add(time.Second)) {
		t.Errorf("now() = %v, outside [%v, %v]", now, before, after)
	}
	if rows[0][1] != rows[0][0] || rows[0][3] != "b:true" {
		t.Errorf("current_timestamp differs from now() within one statement: %v", rows[0])
	}
	days, _ := strconv.ParseInt(strings.TrimPrefix(rows[0][2], "d:"), 10, 64)
	if d := days - now.Unix()/86400; d < -1 || d > 1 {
		t.Errorf("current_date %s is not today (%v)", rows[0][2], now)
	}
}

// TestOrderByOutputName resolves ORDER BY names against outputs as
// PostgreSQL does: one expression listed twice is not ambiguous, two
// different expressions with one name are.
func TestOrderByOutputName(t *testing.T) {
	s := testSession(t)
	mustQuery(t, s, "CREATE TABLE o (id int)")
	mustQuery(t, s, "INSERT INTO o VALUES (3), (1), (2)")
	_, rows := fndRows(t, s, "SELECT id, id FROM o ORDER BY id DESC")
	if d := fndSameRows(rows, [][]string{{"i:3", "i:3"}, {"i:2", "i:2"}, {"i:1", "i:1"}}, nil); d != "" {
		t.Fatal(d)
	}
	mustFail(t, s, pgerr.AmbiguousColumn, "SELECT id AS a, -id AS a FROM o ORDER BY a")
}
