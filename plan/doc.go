// Package plan is the logical plan: what a query computes, bound to the
// relations the catalog resolves its names to, before any choice of how
// it runs.
//
// The Builder binds a statement's queries (the binder is package sql's)
// into a tree of query levels (Query) over relations (Node: scans, joins,
// derived tables, set operations, set-returning functions ...); the
// subqueries of expressions are planned the same way (Subquery). As each
// level is bound, the rewrite rules reshape it: WHERE's conjuncts are
// pushed into joins, onto their sides and into derived tables (PushDown),
// an OR of ANDs gives up what its branches share (or_factor.go), inner
// joins are put in the order of least estimated work (joinorder.go), only
// the columns the level reads are kept down to the scans (Node.Project),
// correlated EXISTS become semi and anti joins (decorrelate.go), a
// window's row_number() limit becomes a per-partition top-N
// (window_top.go), and a subquery correlated by equalities takes its keyed
// form (Keyed). The engine compiles the finished tree into operators.
package plan
