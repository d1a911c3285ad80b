package parse

// Op is the operator of a Unary or Binary expression.
type Op uint8

// The operators.
const (
	OpAnd        Op = iota + 1 // AND
	OpOr                       // OR
	OpXor                      // XOR
	OpEQ                       // =
	OpNE                       // <>
	OpLT                       // <
	OpLE                       // <=
	OpGT                       // >
	OpGE                       // >=
	OpNullEQ                   // IS NOT DISTINCT FROM
	OpPlus                     // + (also unary)
	OpMinus                    // - (also unary)
	OpMul                      // *
	OpDiv                      // /
	OpMod                      // %
	OpIntDiv                   // integer division
	OpBitAnd                   // &
	OpBitOr                    // |
	OpBitXor                   // #
	OpLeftShift                // <<
	OpRightShift               // >>
	OpNot                      // NOT (unary)
	OpNot2                     // ! (unary)
	OpBitNeg                   // ~ (unary)
)

// opNames are the operators' names in messages ("operator bitand is not
// supported"), as clients have always seen them.
var opNames = [...]string{
	OpAnd: "and", OpOr: "or", OpXor: "xor", OpEQ: "eq", OpNE: "ne", OpLT: "lt", OpLE: "le",
	OpGT: "gt", OpGE: "ge", OpNullEQ: "nulleq", OpPlus: "plus", OpMinus: "minus", OpMul: "mul",
	OpDiv: "div", OpMod: "mod", OpIntDiv: "intdiv", OpBitAnd: "bitand", OpBitOr: "bitor",
	OpBitXor: "bitxor", OpLeftShift: "leftshift", OpRightShift: "rightshift", OpNot: "not",
	OpNot2: "!", OpBitNeg: "bitneg",
}

// String is the operator's name for messages.
func (o Op) String() string {
	if int(o) < len(opNames) {
		return opNames[o]
	}
	return "?"
}

// IsComparison reports =, <>, <, <=, > and >=.
func (o Op) IsComparison() bool { return o >= OpEQ && o <= OpGE }
