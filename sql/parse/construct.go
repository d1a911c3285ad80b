package parse

// ConstructName names a construct in SQL words, as a singular noun phrase
// for "... is not supported" errors: clients must never see a Go type name.
func ConstructName(n Node) string {
	switch x := n.(type) {
	case *WindowCall:
		return "the window function " + x.Name + "() OVER (...)"
	case *Subquery:
		return "a scalar subquery"
	case *Exists:
		return "EXISTS (subquery)"
	case *CompareSubquery:
		return "a comparison with a subquery (ANY, ALL)"
	case *In:
		if x.Sel != nil {
			return "IN (subquery)"
		}
		return "this IN form"
	case *Row:
		return "a row constructor here"
	case *Default:
		return "DEFAULT here"
	case *Position:
		return "a positional reference here"
	case *Other:
		return x.What
	case *OtherSource:
		return x.What
	case *OtherFrom:
		return x.What
	case *OtherQuery:
		return x.What
	}
	return "this expression"
}
