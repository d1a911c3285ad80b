package bench

import (
	_ "embed"
	"fmt"
	"strconv"
	"strings"
)

// tpchQueryText holds the 22 queries, one entry per query.
//
//go:embed tpch_queries.sql
var tpchQueryText string

// tpchQuery is one of the 22: its name (Q1..Q22), its SQL at the run's
// scale, and the result columns (from 0) its ORDER BY sorts on.
type tpchQuery struct {
	name  string
	sql   string
	order []int
}

// tpchQueries parses the embedded file for scale factor sf.
func tpchQueries(sf float64) ([]tpchQuery, error) {
	var out []tpchQuery
	var cur *tpchQuery
	var body []string
	flush := func() {
		if cur != nil {
			cur.sql = strings.TrimSpace(strings.Join(body, "\n"))
			cur.sql = strings.ReplaceAll(cur.sql, "{fraction}", strconv.FormatFloat(0.0001/sf, 'g', 6, 64))
			out = append(out, *cur)
		}
	}
	for _, line := range strings.Split(tpchQueryText, "\n") {
		head, ok := strings.CutPrefix(line, "-- Q")
		if !ok {
			if cur != nil && !strings.HasPrefix(line, "--") {
				body = append(body, line)
			}
			continue
		}
		flush()
		num, order, ok := strings.Cut(head, " order:")
		if !ok {
			return nil, fmt.Errorf("tpch_queries.sql: %q has no order:", line)
		}
		cur, body = &tpchQuery{name: "Q" + num}, nil
		for _, f := range strings.Split(strings.TrimSpace(order), ",") {
			if f == "" {
				continue
			}
			n, err := strconv.Atoi(f)
			if err != nil || n < 1 {
				return nil, fmt.Errorf("tpch_queries.sql: %q: bad column %q", line, f)
			}
			cur.order = append(cur.order, n-1)
		}
	}
	flush()
	return out, nil
}

// tpchDDL is the eight tables with the specification's column types
// (clause 1.4), the same in magmalake and PostgreSQL.
var tpchDDL = map[string]string{
	"region":   "CREATE TABLE region (r_regionkey integer NOT NULL, r_name char(25) NOT NULL, r_comment varchar(152))",
	"nation":   "CREATE TABLE nation (n_nationkey integer NOT NULL, n_name char(25) NOT NULL, n_regionkey integer NOT NULL, n_comment varchar(152))",
	"supplier": "CREATE TABLE supplier (s_suppkey integer NOT NULL, s_name char(25) NOT NULL, s_address varchar(40) NOT NULL, s_nationkey integer NOT NULL, s_phone char(15) NOT NULL, s_acctbal decimal(15,2) NOT NULL, s_comment varchar(101) NOT NULL)",
	"part":     "CREATE TABLE part (p_partkey integer NOT NULL, p_name varchar(55) NOT NULL, p_mfgr char(25) NOT NULL, p_brand char(10) NOT NULL, p_type varchar(25) NOT NULL, p_size integer NOT NULL, p_container char(10) NOT NULL, p_retailprice decimal(15,2) NOT NULL, p_comment varchar(23) NOT NULL)",
	"partsupp": "CREATE TABLE partsupp (ps_partkey integer NOT NULL, ps_suppkey integer NOT NULL, ps_availqty integer NOT NULL, ps_supplycost decimal(15,2) NOT NULL, ps_comment varchar(199) NOT NULL)",
	"customer": "CREATE TABLE customer (c_custkey integer NOT NULL, c_name varchar(25) NOT NULL, c_address varchar(40) NOT NULL, c_nationkey integer NOT NULL, c_phone char(15) NOT NULL, c_acctbal decimal(15,2) NOT NULL, c_mktsegment char(10) NOT NULL, c_comment varchar(117) NOT NULL)",
	"orders":   "CREATE TABLE orders (o_orderkey integer NOT NULL, o_custkey integer NOT NULL, o_orderstatus char(1) NOT NULL, o_totalprice decimal(15,2) NOT NULL, o_orderdate date NOT NULL, o_orderpriority char(15) NOT NULL, o_clerk char(15) NOT NULL, o_shippriority integer NOT NULL, o_comment varchar(79) NOT NULL)",
	"lineitem": "CREATE TABLE lineitem (l_orderkey integer NOT NULL, l_partkey integer NOT NULL, l_suppkey integer NOT NULL, l_linenumber integer NOT NULL, l_quantity decimal(15,2) NOT NULL, l_extendedprice decimal(15,2) NOT NULL, l_discount decimal(15,2) NOT NULL, l_tax decimal(15,2) NOT NULL, l_returnflag char(1) NOT NULL, l_linestatus char(1) NOT NULL, l_shipdate date NOT NULL, l_commitdate date NOT NULL, l_receiptdate date NOT NULL, l_shipinstruct char(25) NOT NULL, l_shipmode char(10) NOT NULL, l_comment varchar(44) NOT NULL)",
}

// tpchPGIndexes are PostgreSQL's primary keys and foreign-key indexes,
// built after the load.
var tpchPGIndexes = []string{
	"ALTER TABLE region ADD PRIMARY KEY (r_regionkey)",
	"ALTER TABLE nation ADD PRIMARY KEY (n_nationkey)",
	"ALTER TABLE supplier ADD PRIMARY KEY (s_suppkey)",
	"ALTER TABLE part ADD PRIMARY KEY (p_partkey)",
	"ALTER TABLE partsupp ADD PRIMARY KEY (ps_partkey, ps_suppkey)",
	"ALTER TABLE customer ADD PRIMARY KEY (c_custkey)",
	"ALTER TABLE orders ADD PRIMARY KEY (o_orderkey)",
	"ALTER TABLE lineitem ADD PRIMARY KEY (l_orderkey, l_linenumber)",
	"CREATE INDEX ON nation (n_regionkey)",
	"CREATE INDEX ON supplier (s_nationkey)",
	"CREATE INDEX ON partsupp (ps_suppkey)",
	"CREATE INDEX ON customer (c_nationkey)",
	"CREATE INDEX ON orders (o_custkey)",
	"CREATE INDEX ON lineitem (l_partkey, l_suppkey)",
	"CREATE INDEX ON lineitem (l_suppkey)",
}
