package parse

import "strings"

// testNames stands for package sql's names in this package's tests: the
// type names and aggregates sql defines.
type testNames struct{}

var (
	testTypeNames = Words(`boolean bool smallint int2 integer int int4 bigint int8 real float4 double
		float8 float numeric decimal text name varchar character char bpchar bytea date time
		timestamp timestamptz uuid json jsonb oid regrole regclass regtype regnamespace regproc
		regprocedure int2vector oidvector record interval`)
	testAggregates = Words(`count sum avg min max stddev_samp stddev_pop var_samp var_pop stddev
		variance bool_and bool_or every string_agg array_agg`)
)

func (testNames) IsTypeName(name string) bool {
	name = strings.TrimPrefix(strings.ToLower(name), "pg_catalog.")
	base, _, _ := strings.Cut(name, "(")
	return testTypeNames[strings.TrimSuffix(base, "[]")]
}

func (testNames) IsAggregate(name string) bool { return testAggregates[name] }

func parseExpr(text string) (Expr, error) { return ParseExpr(text, testNames{}) }
