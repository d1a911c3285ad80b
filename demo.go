// Package magmalake holds what the whole module shares at its root: the demo
// data set, embedded so the binary needs no files next to it.
package magmalake

import _ "embed"

// DemoSQL creates xmen.characters and fills it with two INSERT statements.
//
//go:embed testdata/demo.sql
var DemoSQL string
