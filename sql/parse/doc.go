// Package parse is the only package that knows TiDB's parser. It lexes
// PostgreSQL text (Lex, Split), rewrites it into the dialect TiDB parses
// (the normaliser), has TiDB parse it (Parser), and converts TiDB's tree
// into magmalake's own: expressions (Expr) and queries (Query), plain
// syntax with no types and no binding. Package sql builds its statements
// from the tokens and trees this package gives, and binds them.
package parse
