package parse

// extract rewrites EXTRACT(field FROM x) to __extract('field', x): the
// field is any word or string in PostgreSQL (epoch, dow, isoyear, ...),
// where TiDB knows MySQL's time units only. ok is false when the call is
// not of that form (TiDB then reports the syntax error).
func (n *normalizer) extract(t Token) (bool, error) {
	open, field, from := n.peek(1), n.peek(2), n.peek(3)
	if !open.IsPunct("(") || !from.Is("from") {
		return false, nil
	}
	switch field.Kind {
	case TokIdent, TokQIdent, TokString:
	default:
		return false, nil
	}
	n.emit("__extract", TokIdent, t)
	n.emit("(", TokPunct, open)
	n.emit(pgQuoteString(field.Val), TokString, field)
	n.emit(",", TokPunct, from)
	n.frames = append(n.frames, castFrame{})
	n.i += 4
	return true, nil
}
