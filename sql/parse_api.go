package sql

import "github.com/magmalake/magmalake/sql/parse"

// The parser's limits and forms other packages name through sql.

// AliasColumnSep joins a FROM item's alias and its column names, s(a, b),
// into one alias, as the front end folds them.
const AliasColumnSep = parse.AliasColumnSep

// DefaultMaxStackDepthKB is PostgreSQL's max_stack_depth default (2MB).
const DefaultMaxStackDepthKB = parse.DefaultMaxStackDepthKB

// MaxStackDepthKBLimit is the largest max_stack_depth accepted; goroutine
// stacks grow on demand, so this bounds the memory one statement may use.
const MaxStackDepthKBLimit = parse.MaxStackDepthKBLimit

// DepthForStackKB is the expression nesting allowed by a max_stack_depth in
// kB: about 2 levels per kB, which like PostgreSQL accepts a 1,000-term sum
// and refuses a 5,000-term one at the default.
func DepthForStackKB(kb int) int { return parse.DepthForStackKB(kb) }

// Split cuts a simple-query string into its statements by PostgreSQL's
// lexical rules. Empty statements (only whitespace, comments or semicolons)
// are dropped. Each statement runs from its first to its last token.
func Split(query string) ([]string, error) { return parse.Split(query) }

// TruncatedIdentifiers lists PostgreSQL's notices for the identifiers of
// query longer than 63 bytes, which the parser truncates.
func TruncatedIdentifiers(query string) []string { return parse.TruncatedIdentifiers(query) }
