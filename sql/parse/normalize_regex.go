package parse

// iregex rewrites x ~* p to __iregex(x, p) and x !~* p to NOT __iregex(x,
// p): TiDB has no case-insensitive REGEXP. The operands are found as
// ILIKE's are.
func (n *normalizer) iregex(t Token, neg bool) error {
	args, ls, k, err := n.binaryArgs(t, func(j int) int { return operandEnd(n.in, j, true) })
	if err != nil {
		return err
	}
	wrap := neg && needsWrap(n.out[:ls])
	n.out = n.out[:ls]
	if wrap {
		n.emit("(", TokPunct, t)
	}
	if neg {
		n.emit("not", TokIdent, t)
	}
	n.emitCall("__iregex", t, args...)
	if wrap {
		n.emit(")", TokPunct, t)
	}
	n.i = k
	return nil
}

// binaryArgs reads the operands of the binary operator t for a call that
// replaces it: the left one already emitted (from n.out[ls:]), the right one
// up to end(j); args are "left, right" and k is where the input resumes.
func (n *normalizer) binaryArgs(t Token, end func(j int) int) (args []ntok, ls, k int, err error) {
	ls = operandStart(n.out, true)
	if ls == len(n.out) {
		return nil, 0, 0, SyntaxErrorAt(n.query, t)
	}
	j := n.i + 1
	if k = end(j); k == j {
		return nil, 0, 0, SyntaxErrorAt(n.query, n.at(j))
	}
	right, err := n.sub(j, k)
	if err != nil {
		return nil, 0, 0, err
	}
	args = append(append([]ntok(nil), n.out[ls:]...), ntok{text: ",", Kind: TokPunct, src: t})
	return append(args, right...), ls, k, nil
}

// jsonGet rewrites j -> k and j ->> k into __json_get(j, k) and
// __json_get_text(j, k); the right operand ends at the next operator, so a
// chain j -> 'a' ->> 'b' nests left to right as PostgreSQL reads it.
func (n *normalizer) jsonGet(t Token) error {
	args, ls, k, err := n.binaryArgs(t, func(j int) int { return scanOperand(n.in, j, func(t Token) bool { return t.Kind == TokOp }) })
	if err != nil {
		return err
	}
	n.out = n.out[:ls]
	name := "__json_get"
	if t.Val == "->>" {
		name = "__json_get_text"
	}
	n.emitCall(name, t, args...)
	n.i = k
	return nil
}
