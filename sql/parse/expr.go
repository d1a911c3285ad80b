package parse

// Node is any node of the tree: an Expr, a Query or a part of one.
type Node interface{ node() }

// Expr is an expression as written (after the front end's rewriting of
// PostgreSQL forms into internal calls such as __cast, __param, __array).
type Expr interface {
	Node
	expr()
}

// Const is a literal. Value is nil (NULL), int64, uint64, float64,
// Decimal, string, []byte, or OtherLiteral.
type Const struct{ Value any }

// Decimal is the text of a decimal literal (1.5).
type Decimal string

// OtherLiteral is a literal of a form magmalake does not read.
type OtherLiteral struct{}

// ColumnRef is a column name, possibly qualified, as written.
type ColumnRef struct{ Schema, Table, Name string }

// Paren is a parenthesised expression.
type Paren struct{ X Expr }

// Unary is a prefix operator (NOT, -, +, ~).
type Unary struct {
	Op Op
	X  Expr
}

// Binary is an infix operator.
type Binary struct {
	Op   Op
	L, R Expr
}

// IsNull is X IS [NOT] NULL.
type IsNull struct {
	X   Expr
	Not bool
}

// IsTruth is X IS [NOT] TRUE|FALSE.
type IsTruth struct {
	X    Expr
	Not  bool
	True bool
}

// In is X [NOT] IN (List) or X [NOT] IN Sel, Sel a subquery.
type In struct {
	X    Expr
	List []Expr
	Not  bool
	Sel  Expr
}

// Between is X [NOT] BETWEEN Lo AND Hi.
type Between struct {
	X, Lo, Hi Expr
	Not       bool
}

// Like is X [NOT] LIKE|ILIKE Pattern [ESCAPE Escape]; Escape 0 is none.
type Like struct {
	X, Pattern Expr
	Escape     byte
	Not        bool
	ILike      bool
}

// Regexp is X ~ Pattern, or X !~ Pattern when Not.
type Regexp struct {
	X, Pattern Expr
	Not        bool
}

// Case is CASE [Value] WHEN ... [ELSE Else] END; Else nil is none.
type Case struct {
	Value Expr
	Whens []When
	Else  Expr
}

// When is one WHEN Cond THEN Result.
type When struct{ Cond, Result Expr }

// FuncCall is a function call, the front end's internal forms included.
type FuncCall struct {
	Schema, Name string // lower case
	// WrittenSchema and WrittenName are the names as spelled, for messages.
	WrittenSchema, WrittenName string
	Args                       []Expr
}

// AggregateCall is a call of an aggregate the grammar itself knows
// (count, sum, avg, min, max...); other aggregates are FuncCalls.
type AggregateCall struct {
	Name     string // as written
	Args     []Expr // count(*) has the one argument 1
	Distinct bool
}

// WindowCall is f(args) OVER window.
type WindowCall struct {
	Name     string // as written
	Args     []Expr
	Distinct bool
	Spec     WindowSpec
}

// WindowSpec is a window: OVER (...), OVER name, or an item of the WINDOW
// clause. PartitionBy and OrderBy are nil when the clause is absent.
type WindowSpec struct {
	Name string // the WINDOW clause's name, or OVER name
	Ref  string // OVER (name ...): the window it extends
	// OnlyAlias marks OVER name, as opposed to OVER (name).
	OnlyAlias   bool
	PartitionBy []Expr
	OrderBy     []OrderItem
	Frame       *Frame // nil: the default frame
}

// OrderItem is one ORDER BY key; NullsFirst nil means the default.
type OrderItem struct {
	Expr       Expr
	Desc       bool
	NullsFirst *bool
}

// FrameMode is ROWS, RANGE or GROUPS.
type FrameMode uint8

// The frame modes.
const (
	FrameRows FrameMode = iota
	FrameRange
	FrameGroups
)

// Frame is a window's frame clause.
type Frame struct {
	Mode       FrameMode
	Start, End FrameBound
}

// BoundKind is the direction of a frame bound.
type BoundKind uint8

// The bound kinds.
const (
	BoundFollowing BoundKind = iota
	BoundPreceding
	BoundCurrentRow
)

// FrameBound is UNBOUNDED PRECEDING|FOLLOWING, CURRENT ROW or
// Offset PRECEDING|FOLLOWING.
type FrameBound struct {
	Kind      BoundKind
	Unbounded bool
	Offset    Expr
}

// Subquery is a query used as an expression.
type Subquery struct{ Query Query }

// Exists is [NOT] EXISTS Sel, Sel a subquery.
type Exists struct {
	Sel Expr
	Not bool
}

// CompareSubquery is L op ANY|ALL R, R a subquery.
type CompareSubquery struct {
	L   Expr
	Op  Op
	R   Expr
	All bool
}

// Row is a row constructor (a, b).
type Row struct{ Values []Expr }

// Default is DEFAULT (Column nil), or DEFAULT(col).
type Default struct{ Column *ColumnRef }

// Position is ORDER BY / GROUP BY n, an output column by ordinal.
type Position struct {
	N int
	P Expr // a parameter giving the position; nil for a number
}

// TrimDirection is the LEADING / TRAILING / BOTH argument of trim().
type TrimDirection struct{ Dir TrimDir }

// TrimDir is which end trim() cuts.
type TrimDir uint8

// The trim directions.
const (
	TrimBoth TrimDir = iota
	TrimLeading
	TrimTrailing
)

// Other is an expression of a form magmalake does not take; What names it
// for messages ("a variable"), Args are the expressions inside it.
type Other struct {
	What string
	Args []Expr
}

func (*Const) node()           {}
func (*ColumnRef) node()       {}
func (*Paren) node()           {}
func (*Unary) node()           {}
func (*Binary) node()          {}
func (*IsNull) node()          {}
func (*IsTruth) node()         {}
func (*In) node()              {}
func (*Between) node()         {}
func (*Like) node()            {}
func (*Regexp) node()          {}
func (*Case) node()            {}
func (*FuncCall) node()        {}
func (*AggregateCall) node()   {}
func (*WindowCall) node()      {}
func (*Subquery) node()        {}
func (*Exists) node()          {}
func (*CompareSubquery) node() {}
func (*Row) node()             {}
func (*Default) node()         {}
func (*Position) node()        {}
func (*TrimDirection) node()   {}
func (*Other) node()           {}

func (*Const) expr()           {}
func (*ColumnRef) expr()       {}
func (*Paren) expr()           {}
func (*Unary) expr()           {}
func (*Binary) expr()          {}
func (*IsNull) expr()          {}
func (*IsTruth) expr()         {}
func (*In) expr()              {}
func (*Between) expr()         {}
func (*Like) expr()            {}
func (*Regexp) expr()          {}
func (*Case) expr()            {}
func (*FuncCall) expr()        {}
func (*AggregateCall) expr()   {}
func (*WindowCall) expr()      {}
func (*Subquery) expr()        {}
func (*Exists) expr()          {}
func (*CompareSubquery) expr() {}
func (*Row) expr()             {}
func (*Default) expr()         {}
func (*Position) expr()        {}
func (*TrimDirection) expr()   {}
func (*Other) expr()           {}

// Call is a plain call of name (lower case) with args.
func Call(name string, args ...Expr) *FuncCall {
	return &FuncCall{Name: name, WrittenName: name, Args: args}
}
