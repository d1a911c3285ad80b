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
