package sql

// Merge is MERGE INTO t USING source ON cond WHEN ... [RETURNING ...].
type Merge struct {
	stmtText
	With  *With // WITH queries the source and subqueries read
	Table TableName
	Alias string
	// Source is SELECT * FROM <the USING item>: its FROM clause is the
	// source relation, planned with its own qualifiers.
	Source    *Select
	On        Syntax // nil: TRUE
	Clauses   []MergeClause
	Returning []SelectItem
	// AnyMatch changes a target row joined by several source rows once,
	// with the first of them, instead of failing (21000): DELETE ... USING
	// and UPDATE ... FROM run as such a MERGE.
	AnyMatch bool
}

// MergeWhen is which rows a WHEN clause applies to.
type MergeWhen uint8

// The three kinds of WHEN clause.
const (
	MergeMatched            MergeWhen = iota // WHEN MATCHED: a target row joined by a source row
	MergeNotMatched                          // WHEN NOT MATCHED [BY TARGET]: a source row joining no target row
	MergeNotMatchedBySource                  // WHEN NOT MATCHED BY SOURCE: a target row no source row joins
)

// MergeAction is what a WHEN clause does.
type MergeAction uint8

// The actions of a WHEN clause.
const (
	MergeDoNothing MergeAction = iota
	MergeUpdate
	MergeDelete
	MergeInsert
)

// String is the action as merge_action() names it.
func (a MergeAction) String() string {
	switch a {
	case MergeUpdate:
		return "UPDATE"
	case MergeDelete:
		return "DELETE"
	case MergeInsert:
		return "INSERT"
	}
	return "DO NOTHING"
}

// MergeClause is one WHEN clause.
type MergeClause struct {
	When   MergeWhen
	Cond   Syntax // AND condition; nil: always
	Action MergeAction
	Set    []Assignment // UPDATE SET
	// INSERT [(Columns)] VALUES (Values); Values nil is DEFAULT VALUES.
	Columns []string
	Values  []Syntax
}
