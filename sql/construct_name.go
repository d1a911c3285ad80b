package sql

import "github.com/magmalake/magmalake/sql/parse"

// constructName names an expression construct in SQL words, as a singular
// noun phrase for "... is not supported" errors: clients must never see a Go
// type name.
func constructName(n parse.Node) string { return parse.ConstructName(n) }
