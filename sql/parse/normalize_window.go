package parse

import "strings"

// shiftOffset checks a lag() or lead() call between out[open] and out[end]
// (its parentheses): tidb's grammar takes the offset only as a number
// literal (or a parameter), and calls anything else a syntax error. Other
// offsets (a negative number, an expression, NULL) are refused as 0A000
// instead, naming the construct.
func (n *normalizer) shiftOffset(name string, open, end int, over Token) error {
	depth, comma := 0, -1
	for j := open + 1; j < end && comma < 0; j++ {
		switch t := n.out[j]; {
		case t.Kind == TokPunct && t.text == "(":
			depth++
		case t.Kind == TokPunct && t.text == ")":
			depth--
		case depth == 0 && t.Kind == TokPunct && t.text == ",":
			comma = j
		}
	}
	if comma < 0 {
		return nil
	}
	if next := n.out[comma+1]; next.Kind == TokNumber || next.Kind == TokParam {
		if after := n.out[comma+2]; after.Kind == TokPunct && (after.text == "," || after.text == ")") {
			return nil
		}
	}
	return UnsupportedAt(n.query, over, "%s() with an offset other than a non-negative number is not supported", strings.ToLower(name))
}
