package sql

import "github.com/magmalake/magmalake/sql/parse"

// Statement is one parsed SQL statement. Expressions inside are Syntax,
// bound by the binder.
type Statement interface {
	// Text is the statement as the client wrote it.
	Text() string
	stmtNode()
}

// stmtText carries the original text; embedded in every statement.
type stmtText struct{ text string }

func (s *stmtText) Text() string { return s.text }
func (s *stmtText) stmtNode()    {}

func (s *stmtText) setText(t string) { s.text = t }

// TableName is a possibly schema-qualified table name; Schema "" resolves
// through search_path.
type TableName struct {
	Schema string
	Table  string
}

// String renders the name for messages.
func (n TableName) String() string {
	if n.Schema == "" {
		return n.Table
	}
	return n.Schema + "." + n.Table
}

// SelectItem is one output expression (or * / t.*).
type SelectItem struct {
	Expr          Syntax
	Alias         string
	Star          bool
	StarQualifier string
}

// OrderItem is one ORDER BY key; NullsFirst nil means the default.
type OrderItem struct {
	Expr       Syntax
	Desc       bool
	NullsFirst *bool
}

// TableRef is the single table of a simple SELECT's FROM, with time travel.
type TableRef struct {
	Name          TableName
	Alias         string
	SnapshotID    *int64
	AsOfTimestamp Syntax
	Ref           string // FOR VERSION AS OF 'name': a branch or a tag
}

// Select is a query. Complex marks forms the struct cannot represent (joins,
// subqueries in FROM, set operations, CTEs): From is nil then, and the
// methods below give the FROM tree, the WITH clause or the set operation.
type Select struct {
	stmtText
	Distinct   bool
	DistinctOn []Syntax // SELECT DISTINCT ON (...): Distinct is false then
	Items      []SelectItem
	From       *TableRef
	Where      Syntax
	GroupBy    []Syntax
	// GroupingSets are ROLLUP / CUBE / GROUPING SETS as indexes into
	// GroupBy; nil for a plain GROUP BY.
	GroupingSets [][]int
	Having       Syntax
	OrderBy      []OrderItem
	Limit        Syntax
	Offset       Syntax
	Complex      bool
	Windows      []WindowSpec // the WINDOW clause
	// raw is the SELECT as parsed (any form: SELECT, TABLE, VALUES);
	// rawSetOpr the set operation. Neither for a Select the planner made.
	raw       *parse.Select
	rawSetOpr *parse.SetOp
}

// PartitionValue is one "col = value" of INSERT OVERWRITE ... PARTITION (...);
// Value is nil for a bare column (Spark's dynamic form).
type PartitionValue struct {
	Column string
	Value  Syntax
}

// Insert is INSERT INTO / INSERT OVERWRITE / INSERT INTO ... REPLACE WHERE.
// Exactly one of Rows and Query is set.
type Insert struct {
	stmtText
	Table        TableName
	Columns      []string
	Rows         [][]Syntax
	Query        *Select
	Overwrite    bool
	Partition    []PartitionValue
	ReplaceWhere Syntax
	Returning    []SelectItem
}

// Delete is DELETE FROM.
type Delete struct {
	stmtText
	With      *With // WITH queries its subqueries and USING list read
	Table     TableName
	Alias     string
	Where     Syntax
	Returning []SelectItem
	// Join is DELETE ... USING as written; Where then holds it rewritten
	// as a semi-join subquery, for where the join cannot run.
	Join *DMLJoin
}

// DMLJoin is the join of DELETE ... USING and UPDATE ... FROM: the target
// joined with the listed relations by the WHERE, each target row changed
// once, with one of the rows it joins.
type DMLJoin struct {
	Source *Select      // SELECT * FROM <the USING or FROM list>
	Cond   Syntax       // the WHERE; nil: none
	Set    []Assignment // UPDATE: the SET list as written, reading the joined row
}

// Assignment is one "col = value" of UPDATE ... SET.
type Assignment struct {
	Column string
	Value  Syntax
}

// Update is UPDATE ... SET.
type Update struct {
	stmtText
	With      *With // WITH queries its subqueries and FROM list read
	Table     TableName
	Alias     string
	Set       []Assignment
	Where     Syntax
	Returning []SelectItem
	// Join is UPDATE ... FROM as written; Set and Where then hold it
	// rewritten as subqueries, for where the join cannot run.
	Join *DMLJoin
}

// Truncate is TRUNCATE [TABLE] t.
type Truncate struct {
	stmtText
	Table TableName
}

// Explain is EXPLAIN [ANALYZE] stmt.
type Explain struct {
	stmtText
	Analyze bool
	// Format is "text" (the default) or "json"; YAML and XML are refused
	// when parsed.
	Format string
	Stmt   Statement
}
