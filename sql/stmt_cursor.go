package sql

// DeclareCursor is DECLARE name [options] CURSOR [WITH[OUT] HOLD] FOR query.
type DeclareCursor struct {
	stmtText
	Name  string
	Hold  bool
	Query *Select
}

// Fetch is FETCH or (Move set) MOVE in the forward direction; Count is the
// number of rows, -1 for ALL.
type Fetch struct {
	stmtText
	Name  string
	Count int64
	Move  bool
}

// CloseCursor is CLOSE name or CLOSE ALL.
type CloseCursor struct {
	stmtText
	Name string
	All  bool
}
