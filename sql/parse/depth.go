package parse

import (
	"strconv"
	"strings"

	"github.com/magmalake/magmalake/pgerr"
)

// Deep expressions. tidb builds a binary tree for every operator chain
// (a+b+c is ((a+b)+c)), and the binder, the column namer and the evaluator
// recurse over it: a 1,000,000-term sum would overflow the goroutine stack,
// which Go cannot recover from, taking every session down. So the token
// stream handed to tidb is measured first, without recursion, and refused
// with PostgreSQL's 54001 past a limit derived from max_stack_depth.
//
// PostgreSQL flattens AND/OR chains in its grammar, so a 40,000-term
// "id = 1 OR id = 2 OR ..." is fine there. To stay within the limit for
// those, long AND/OR chains are regrouped into balanced parentheses first:
// both are associative (in three-valued logic too), and OR binds loosest of
// all operators, so splitting a boolean region at its top-level ORs yields
// complete operands.

// DefaultMaxStackDepthKB is PostgreSQL's max_stack_depth default (2MB).
const DefaultMaxStackDepthKB = 2048

// MaxStackDepthKBLimit is the largest max_stack_depth accepted; goroutine
// stacks grow on demand, so this bounds the memory one statement may use.
const MaxStackDepthKBLimit = 16384

// DepthForStackKB is the expression nesting allowed by a max_stack_depth in
// kB: about 2 levels per kB, which like PostgreSQL accepts a 1,000-term sum
// and refuses a 5,000-term one at the default.
func DepthForStackKB(kb int) int { return 2 * kb }

// MaxTreeDepth backs the token count up where trees are walked: the binder
// and the evaluator refuse deeper trees however they were built (the largest
// max_stack_depth's nesting, so it never refuses what the parser let through).
const MaxTreeDepth = 2 * MaxStackDepthKBLimit // DepthForStackKB(MaxStackDepthKBLimit)

// chainGroup is how many operands one balanced group holds.
const chainGroup = 16

// depthBoundary ends an expression region: clause keywords and CASE parts.
var depthBoundary = map[string]bool{
	"select": true, "from": true, "where": true, "group": true, "by": true, "having": true,
	"order": true, "limit": true, "offset": true, "fetch": true, "returning": true, "set": true,
	"values": true, "when": true, "then": true, "else": true, "end": true, "on": true,
	"using": true, "join": true, "as": true, "union": true, "intersect": true, "except": true,
	"window": true, "asc": true, "desc": true, "nulls": true, "into": true, "case": true,
}

// depthOperator words count as one level of nesting, like operator symbols.
var depthOperator = map[string]bool{
	"not": true, "and": true, "or": true, "is": true, "in": true, "like": true,
	"between": true, "similar": true, "escape": true, "collate": true,
}

func isBoundary(t ntok) bool { return boundaryToken(t.Kind, t.text) }

func boundaryToken(kind TokKind, text string) bool {
	switch kind {
	case TokPunct:
		return text == "," || text == ";"
	case TokIdent:
		return depthBoundary[strings.ToLower(text)]
	}
	return false
}

func isOpen(t ntok) bool  { return openToken(t.Kind, t.text) }
func isClose(t ntok) bool { return closeToken(t.Kind, t.text) }

func openToken(kind TokKind, text string) bool {
	return kind == TokPunct && (text == "(" || text == "[")
}

func closeToken(kind TokKind, text string) bool {
	return kind == TokPunct && (text == ")" || text == "]")
}

func isWord(t ntok, w string) bool { return t.Kind == TokIdent && strings.EqualFold(t.text, w) }

// depthCounter measures expression nesting token by token: each open
// parenthesis and each operator since the last boundary at its level count
// one. It over-estimates (a+b*c counts 2 at one level) and never
// under-estimates tidb's tree depth.
type depthCounter struct {
	limit  int
	chains bool         // AND/OR count as operators (after balancing) or separate operands (before)
	levels []depthLevel // one per open parenthesis, bracket or CASE
	depth  int          // sum of operators on open levels plus open levels
}

type depthLevel struct {
	ops     int // operators since the level's last boundary
	between int // BETWEENs still waiting for their AND
}

func newDepthCounter(limit int, chains bool) *depthCounter {
	return &depthCounter{limit: limit, chains: chains, levels: []depthLevel{{}}}
}

// add counts one token; false once the limit is passed.
func (c *depthCounter) add(kind TokKind, text string) bool {
	lv := &c.levels[len(c.levels)-1]
	word := ""
	if kind == TokIdent {
		word = strings.ToLower(text)
	}
	switch {
	case openToken(kind, text) || word == "case":
		if text == "[" {
			c.op(lv) // a subscript or array nests in what it follows
		}
		c.levels = append(c.levels, depthLevel{})
		c.depth++
	case closeToken(kind, text) || word == "end":
		if len(c.levels) > 1 {
			c.depth -= lv.ops + 1
			c.levels = c.levels[:len(c.levels)-1]
		}
	case word == "and" && lv.between > 0:
		lv.between--
		c.op(lv)
	case boundaryToken(kind, text) || !c.chains && (word == "and" || word == "or"):
		// Before balancing, AND/OR separate operands like a boundary:
		// their chains become balanced trees of these operands.
		c.depth -= lv.ops
		lv.ops = 0
	case kind == TokOp || kind == TokPunct && text == "::" || depthOperator[word]:
		if word == "between" {
			lv.between++
		}
		c.op(lv)
	}
	return c.depth <= c.limit
}

func (c *depthCounter) op(lv *depthLevel) {
	lv.ops++
	c.depth++
}

// TooDeep is PostgreSQL's answer to an expression past max_stack_depth.
func TooDeep(limit int) *pgerr.Error {
	return &pgerr.Error{Code: pgerr.StatementTooComplex, Message: "stack depth limit exceeded",
		Hint: "Increase the configuration parameter \"max_stack_depth\" (currently " +
			strconv.Itoa(limit/2) + "kB), after ensuring the platform's stack depth limit is adequate."}
}

// checkDepth refuses normalised tokens nested deeper than limit.
func checkDepth(toks []ntok, limit int) error {
	c := newDepthCounter(limit, true)
	for _, t := range toks {
		if !c.add(t.Kind, t.text) {
			return TooDeep(limit)
		}
	}
	return nil
}

// chainRegion is where the current region of one nesting level began.
type chainRegion struct {
	start int  // output index of the region's first token
	inSet bool // the region is an UPDATE SET list item
}

// balanceChains regroups long top-level OR chains, and long AND chains of
// regions without OR, into balanced parentheses, level by level. Items of an
// UPDATE SET list (col = expr, ...) are left alone: regrouping would swallow
// the column into the first operand.
func balanceChains(toks []ntok) []ntok {
	out := make([]ntok, 0, len(toks))
	var outer []chainRegion
	cur := chainRegion{}
	for _, t := range toks {
		switch {
		case isOpen(t):
			out = append(out, t)
			outer = append(outer, cur)
			cur = chainRegion{start: len(out)}
		case isClose(t):
			out = balanceRegion(out, cur)
			if len(outer) > 0 {
				cur, outer = outer[len(outer)-1], outer[:len(outer)-1]
			}
			out = append(out, t)
		case isBoundary(t):
			out = balanceRegion(out, cur)
			out = append(out, t)
			cur = chainRegion{start: len(out), inSet: isWord(t, "set") || cur.inSet && t.text == ","}
		default:
			out = append(out, t)
		}
	}
	return balanceRegion(out, cur)
}

// balanceRegion rewrites out[lv.start:], one region at one level, when it
// holds a long chain; shorter regions are left exactly as written.
func balanceRegion(out []ntok, lv chainRegion) []ntok {
	if lv.inSet {
		return out
	}
	region := out[lv.start:]
	ors, ands := chainOperators(region)
	var cuts []int
	switch {
	case len(ors) >= 2*chainGroup:
		cuts = ors
	case len(ors) == 0 && len(ands) >= 2*chainGroup:
		cuts = ands
	default:
		return out
	}
	grouped := groupOperands(splitAt(region, cuts), region[cuts[0]])
	return append(out[:lv.start], grouped...)
}

// chainOperators finds the OR and AND tokens at the region's own level
// (not inside parentheses, and not BETWEEN's AND).
func chainOperators(region []ntok) (ors, ands []int) {
	nest, between := 0, 0
	for k, t := range region {
		switch {
		case isOpen(t):
			nest++
		case isClose(t):
			nest--
		case nest != 0:
		case isWord(t, "between"):
			between++
		case isWord(t, "and") && between > 0:
			between--
		case isWord(t, "and"):
			ands = append(ands, k)
		case isWord(t, "or"):
			ors = append(ors, k)
		}
	}
	return ors, ands
}

func splitAt(region []ntok, cuts []int) [][]ntok {
	parts := make([][]ntok, 0, len(cuts)+1)
	prev := 0
	for _, c := range cuts {
		parts = append(parts, region[prev:c])
		prev = c + 1
	}
	return append(parts, region[prev:])
}

// groupOperands joins operands with op in parenthesised groups of
// chainGroup, regrouping the groups until few enough remain.
func groupOperands(operands [][]ntok, op ntok) []ntok {
	open := ntok{text: "(", Kind: TokPunct, src: op.src}
	closer := ntok{text: ")", Kind: TokPunct, src: op.src}
	for len(operands) > chainGroup {
		var next [][]ntok
		for k := 0; k < len(operands); k += chainGroup {
			members := operands[k:min(k+chainGroup, len(operands))]
			size := 2
			for _, o := range members {
				size += len(o) + 3
			}
			g := append(make([]ntok, 0, size), open)
			for j, o := range members {
				if j > 0 {
					g = append(g, op)
				}
				g = append(g, open)
				g = append(g, o...)
				g = append(g, closer)
			}
			next = append(next, append(g, closer))
		}
		operands = next
	}
	size := 0
	for _, o := range operands {
		size += len(o) + 1
	}
	out := make([]ntok, 0, size)
	for j, o := range operands {
		if j > 0 {
			out = append(out, op)
		}
		out = append(out, o...)
	}
	return out
}
