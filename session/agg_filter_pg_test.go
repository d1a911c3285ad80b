package session

import (
	"fmt"
	"strings"
	"testing"

	"github.com/magmalake/magmalake/pgerr"
)

// Aggregates with FILTER (issue 48, item 8) against PostgreSQL 15: every
// aggregate magmalake has, plain and DISTINCT, with and without ORDER BY
// inside the call, grouped and ungrouped, under a FILTER that keeps some
// rows, none, only NULL arguments, or every row, over a table with rows and
// over an empty one. array_agg keeps NULL inputs, so a FILTER that turned
// rejected rows into NULL arguments showed as {1,2,NULL} and {NULL}.

// filterAggs are the aggregate calls, %s standing where DISTINCT goes and
// %o where ORDER BY goes (DISTINCT needs its ORDER BY on the argument).
var filterAggs = []string{
	"count(%s k%o)", "count(%s s%o)", "sum(%s k%o)", "sum(%s x%o)", "sum(%s f%o)",
	"avg(%s k%o)", "avg(%s x%o)", "min(%s k%o)", "max(%s s%o)", "min(%s d%o)",
	"bool_and(%s b%o)", "bool_or(%s b%o)", "every(%s b%o)",
	"stddev(%s k%o)", "stddev_pop(%s x%o)", "stddev_samp(%s k%o)",
	"variance(%s x%o)", "var_pop(%s k%o)", "var_samp(%s k%o)",
	"string_agg(%s s, ','%o)", "array_agg(%s k%o)", "array_agg(%s s%o)", "array_agg(%s x%o)",
}

// filterConds keep some rows, none, the rows whose argument is NULL, every
// row, and rows by a condition that is NULL on some.
var filterConds = []string{"k > 2", "k > 100", "k IS NULL", "true", "s < 'c'"}

func filterAggCall(agg string, distinct, ordered bool) string {
	arg := agg[strings.Index(agg, "%s")+3:]
	arg = arg[:strings.IndexAny(arg, ",%")]
	d, o := "", ""
	if distinct {
		d = "DISTINCT "
	}
	if ordered {
		o = " ORDER BY " + arg + " DESC"
	}
	return strings.NewReplacer("%s ", d, "%o", o).Replace(agg)
}

func TestAggregateFilterMatchesPostgres(t *testing.T) {
	conn := connectTestPostgres(t)
	s := testSession(t)
	runScriptLikePostgres(t, s, conn, []string{
		"CREATE TABLE fa (g int, k int, s text, x numeric(10,2), f float8, d date, b bool)%s",
		"CREATE TABLE fa_empty (g int, k int, s text, x numeric(10,2), f float8, d date, b bool)%s",
		"INSERT INTO fa VALUES (1, 1, 'a', 1.50, 0.5, '2024-01-01', true), (1, 2, 'b', 2.25, 1.5, '2024-02-01', false), " +
			"(1, 5, 'c', NULL, 2.5, NULL, true), (2, NULL, NULL, 3.00, NULL, '2023-05-05', NULL), " +
			"(2, 3, 'a', 3.00, 4, '2022-01-01', true), (3, 1, 'z', -1, -2, '2020-01-01', false), (4, NULL, 'q', NULL, NULL, NULL, NULL)",
	}, "")
	n := 0
	for _, agg := range filterAggs {
		for _, distinct := range []bool{false, true} {
			for _, ordered := range []bool{false, true} {
				call := filterAggCall(agg, distinct, ordered)
				var items []string
				for _, c := range filterConds {
					items = append(items, call+" FILTER (WHERE "+c+")")
				}
				list := call + ", " + strings.Join(items, ", ")
				for _, from := range []string{"fa", "fa_empty"} {
					compareStatement(t, s, conn, "SELECT "+list+" FROM "+from)
					compareStatement(t, s, conn, "SELECT g, "+list+" FROM "+from+" GROUP BY g ORDER BY g")
					n += 2
				}
			}
		}
	}
	t.Logf("%d queries of %d aggregates alike", n, len(filterAggs))
}

// FILTER's neighbours: the condition is evaluated before the argument (no
// division by zero on the rows it rejects), HAVING and ORDER BY may use a
// filtered aggregate, the same call with and without FILTER are two calls,
// an aggregate used as a window function filters too, count(*) FILTER is no
// row count read from metadata, and FILTER on what is no aggregate fails.
func TestAggregateFilterNeighboursMatchPostgres(t *testing.T) {
	conn := connectTestPostgres(t)
	s := testSession(t)
	runScriptLikePostgres(t, s, conn, []string{
		"CREATE TABLE fb (g int, k int)%s",
		"INSERT INTO fb VALUES (1, 0), (1, 2), (2, 4), (2, 0), (3, 5)",
		"SELECT sum(10 / k) FILTER (WHERE k <> 0), array_agg(10 / k ORDER BY k) FILTER (WHERE k > 0) FROM fb",
		"SELECT g, count(*), count(*) FILTER (WHERE k > 0), array_agg(k), array_agg(k) FILTER (WHERE k > 0) FROM fb GROUP BY g ORDER BY g",
		"SELECT g FROM fb GROUP BY g HAVING count(*) FILTER (WHERE k = 0) > 0 ORDER BY g",
		"SELECT g, sum(k) FILTER (WHERE k < 5) AS s FROM fb GROUP BY g ORDER BY sum(k) FILTER (WHERE k < 5) DESC NULLS LAST, g",
		"SELECT count(*) FILTER (WHERE k > 0), count(*) FROM fb",
		"SELECT count(*) FILTER (WHERE k > 100) FROM fb",
		"SELECT g, k, sum(k) FILTER (WHERE k > 0) OVER (PARTITION BY g), count(*) FILTER (WHERE k = 0) OVER () FROM fb ORDER BY g, k",
		"SELECT g, array_agg(DISTINCT k ORDER BY k) FILTER (WHERE k < 5), string_agg(DISTINCT k::text, '+' ORDER BY k::text) FILTER (WHERE k > 0) FROM fb GROUP BY ROLLUP (g) ORDER BY g",
		"SELECT abs(k) FILTER (WHERE k > 0) FROM fb",
		"SELECT abs(k ORDER BY k) FROM fb",
		"SELECT count(*) FILTER (WHERE k) FROM fb",
		"SELECT count(*) FILTER (WHERE count(*) > 0) FROM fb",
		"SELECT sum(k ORDER BY k), count(DISTINCT k ORDER BY k), max(k ORDER BY g DESC) FROM fb",
		"SELECT " + fmt.Sprintf("%q", "sum") + "(k), " + fmt.Sprintf("%q", "count") + "(DISTINCT k) FROM fb",
	}, "")
}

// Valid PostgreSQL around FILTER that magmalake does not evaluate is 0A000
// naming the construct, never a syntax error: an aggregate tidb parses as a
// plain call used as a window function, ORDER BY inside a windowed
// aggregate, and ordered-set aggregates.
func TestAggregateWindowFormsUnsupported(t *testing.T) {
	conn := connectTestPostgres(t)
	s := testSession(t)
	for _, q := range []string{
		"SELECT array_agg(k) FILTER (WHERE k > 0) OVER () FROM (VALUES (1)) t(k)",
		"SELECT string_agg(k::text, ',') OVER () FROM (VALUES (1)) t(k)",
		"SELECT bool_and(k > 0) OVER (), stddev(k) OVER () FROM (VALUES (1)) t(k)",
		"SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY k) FROM (VALUES (1)) t(k)",
	} {
		mustPG(t, conn, q)
		mustFail(t, s, pgerr.FeatureNotSupported, q)
	}
	for _, q := range []string{
		"SELECT sum(k ORDER BY k) OVER () FROM (VALUES (1)) t(k)",
		"SELECT string_agg(DISTINCT k::text, ',') OVER () FROM (VALUES (1)) t(k)",
		// An aggregate's ORDER BY among a window function's arguments is
		// the aggregate's.
		"SELECT g, lag(string_agg(k::text, ',' ORDER BY k DESC), 1, 'x') OVER (ORDER BY g) FROM (VALUES (1, 1), (1, 2), (2, 3)) t(g, k) GROUP BY g ORDER BY g",
	} {
		compareStatement(t, s, conn, q)
	}
}
