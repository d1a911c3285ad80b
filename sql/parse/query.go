package parse

// Query is a query: a *Select or a *SetOp.
type Query interface {
	Node
	query()
}

// SelectKind tells SELECT from the TABLE t and VALUES forms.
type SelectKind uint8

// The select kinds.
const (
	SelectPlain SelectKind = iota
	SelectTable
	SelectValues
)

// Select is one SELECT (or TABLE, or VALUES). OrderBy is nil when the
// query has no ORDER BY.
type Select struct {
	Kind     SelectKind
	With     *With
	Distinct bool
	// DistinctOn are DISTINCT ON's keys (Distinct is set too); nil when
	// none is written.
	DistinctOn []Expr
	Fields     []Field
	From       *Join // nil: no FROM
	Where      Expr
	GroupBy    []Expr // nil: no GROUP BY
	// GroupingSets are ROLLUP / CUBE / GROUPING SETS as indexes into
	// GroupBy; nil for a plain GROUP BY.
	GroupingSets [][]int
	Having       Expr
	Windows      []WindowSpec
	OrderBy      []OrderItem
	Limit        *Limit
	// TimeTravel is FOR VERSION|TIMESTAMP AS OF; only a statement's own
	// SELECT has it.
	TimeTravel *TimeTravel
}

// TimeTravel is the snapshot a query reads: by id, by name (a branch or a
// tag), or as of a timestamp.
type TimeTravel struct {
	SnapshotID *int64
	Ref        string
	Timestamp  Expr
}

// Field is one select-list item: an expression with its alias, or * / t.*.
type Field struct {
	Expr   Expr
	Alias  string
	Star   bool
	StarOf string // t of t.*
}

// Limit is LIMIT Count OFFSET Offset; either may be nil.
type Limit struct{ Count, Offset Expr }

// SetOpKind is a set operator; SetOpNone where none is written (the first
// branch).
type SetOpKind uint8

// The set operators.
const (
	SetOpNone SetOpKind = iota
	SetOpUnion
	SetOpUnionAll
	SetOpIntersect
	SetOpIntersectAll
	SetOpExcept
	SetOpExceptAll
)

// SetOp is a set operation over its branches. Nested marks a
// parenthesised set operation that is itself a branch.
type SetOp struct {
	With     *With
	Branches []Branch
	OrderBy  []OrderItem
	Limit    *Limit
	Nested   bool
}

// Branch is one branch of a set operation and the operator before it.
type Branch struct {
	Op    SetOpKind
	Query Query
}

// With is a WITH clause.
type With struct {
	Recursive bool
	CTEs      []CTE
}

// CTE is one WITH query.
type CTE struct {
	Name    string
	Columns []string
	Query   Query
}

// From is an item of a FROM clause: a *Join, a *TableSource or an
// *OtherFrom.
type From interface {
	Node
	from()
}

// JoinKind is which unmatched rows a join keeps.
type JoinKind uint8

// The join kinds.
const (
	JoinInner JoinKind = iota
	JoinLeft
	JoinRight
	JoinFull
)

// Join is Left JOIN Right; a FROM clause is one, its Right nil when the
// clause has one item.
type Join struct {
	Left, Right From
	Kind        JoinKind
	Natural     bool
	On          Expr // nil: none
	Using       []string
}

// TableSource is a relation or a subquery in FROM, with its alias (the
// name, then the column names, joined by AliasColumnSep).
type TableSource struct {
	Source  Source
	Alias   string
	Lateral bool
}

// Source is what a TableSource reads: a *TableName, a Query or an
// *OtherSource.
type Source interface {
	Node
	source()
}

// TableName is a possibly schema-qualified relation name.
type TableName struct{ Schema, Name string }

// OtherSource is a FROM source of a form magmalake does not take.
type OtherSource struct{ What string }

// OtherFrom is a FROM item of a form magmalake does not take.
type OtherFrom struct{ What string }

func (*Select) node()      {}
func (*SetOp) node()       {}
func (*Join) node()        {}
func (*TableSource) node() {}
func (*TableName) node()   {}
func (*OtherSource) node() {}
func (*OtherFrom) node()   {}

func (*Select) query() {}
func (*SetOp) query()  {}

func (*Select) source()      {}
func (*SetOp) source()       {}
func (*TableName) source()   {}
func (*OtherSource) source() {}

func (*Join) from()        {}
func (*TableSource) from() {}
func (*OtherFrom) from()   {}

// OtherQuery is a query of a form magmalake does not take.
type OtherQuery struct{ What string }

func (*OtherQuery) node()   {}
func (*OtherQuery) query()  {}
func (*OtherQuery) source() {}
func (*Join) source()       {}
