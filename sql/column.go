package sql

// Column is one named, typed column of a relation or a result: what a
// query gives, a metadata table or a catalog relation holds.
type Column struct {
	Name string
	Type Type
}
