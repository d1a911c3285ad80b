package sql

// iregex rewrites x ~* p to __iregex(x, p) and x !~* p to NOT __iregex(x,
// p): TiDB has no case-insensitive REGEXP. The operands are found as
// ILIKE's are.
func (n *normalizer) iregex(t token, neg bool) error {
	ls := operandStart(n.out, true)
	if ls == len(n.out) {
		return syntaxErrorAt(n.query, t)
	}
	j := n.i + 1
	k := operandEnd(n.in, j, true)
	if k == j {
		return syntaxErrorAt(n.query, n.at(j))
	}
	right, err := n.sub(j, k)
	if err != nil {
		return err
	}
	args := append(append([]ntok(nil), n.out[ls:]...), ntok{text: ",", kind: tkPunct, src: t})
	args = append(args, right...)
	wrap := neg && needsWrap(n.out[:ls])
	n.out = n.out[:ls]
	if wrap {
		n.emit("(", tkPunct, t)
	}
	if neg {
		n.emit("not", tkIdent, t)
	}
	n.emitCall("__iregex", t, args...)
	if wrap {
		n.emit(")", tkPunct, t)
	}
	n.i = k
	return nil
}

// jsonGet rewrites j -> k and j ->> k into __json_get(j, k) and
// __json_get_text(j, k); the operands are primaries, so a chain
// j -> 'a' ->> 'b' nests left to right as PostgreSQL reads it.
func (n *normalizer) jsonGet(t token) error {
	ls := operandStart(n.out, true)
	if ls == len(n.out) {
		return syntaxErrorAt(n.query, t)
	}
	j := n.i + 1
	k := jsonOperandEnd(n.in, j)
	if k == j {
		return syntaxErrorAt(n.query, n.at(j))
	}
	right, err := n.sub(j, k)
	if err != nil {
		return err
	}
	args := append(append([]ntok(nil), n.out[ls:]...), ntok{text: ",", kind: tkPunct, src: t})
	args = append(args, right...)
	n.out = n.out[:ls]
	name := "__json_get"
	if t.val == "->>" {
		name = "__json_get_text"
	}
	n.emitCall(name, t, args...)
	n.i = k
	return nil
}

// jsonOperandEnd is the end of -> and ->>'s right operand: it stops at the
// next binary operator, since PostgreSQL's other operators (->, ||, ...)
// share one precedence and associate to the left; a leading sign and
// casts (::) stay with it.
func jsonOperandEnd(in []token, j int) int {
	depth := 0
	for k := j; k < len(in); k++ {
		t := in[k]
		switch {
		case t.isPunct("(") || t.isPunct("[") || t.is("case"):
			depth++
		case t.isPunct(")") || t.isPunct("]") || t.is("end"):
			if depth == 0 {
				return k
			}
			depth--
		case depth > 0:
		case t.isPunct(",") || t.isPunct(";"):
			return k
		case t.kind == tkOp && k > j:
			return k
		case t.kind == tkIdent && operandStopWords[t.val] && k > j:
			return k
		}
	}
	return len(in)
}
