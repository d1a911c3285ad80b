// Package parse is the only package that knows TiDB's parser. It turns
// PostgreSQL text into magmalake's own syntax tree: expressions (Expr) and
// queries (Query), plain syntax with no types and no binding. Package sql
// binds the tree and builds its statements from it.
package parse
