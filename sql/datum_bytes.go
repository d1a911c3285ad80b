package sql

// DatumBytes estimates the memory a boxed datum holds: the interface, and
// the bytes of text, bytea and numerics; what budgets memory counts for
// values held outside Arrow arrays.
func DatumBytes(v any) int64 {
	switch x := v.(type) {
	case string:
		return 16 + int64(len(x))
	case []byte:
		return 40 + int64(len(x))
	case Decimal:
		if x.Coef != nil {
			return 56 + 8*int64(len(x.Coef.Bits()))
		}
	}
	return 16
}

// RowsBytes estimates the memory rows of datums hold.
func RowsBytes(rows [][]any) int64 {
	var n int64
	for _, r := range rows {
		n += 24
		for _, v := range r {
			n += DatumBytes(v)
		}
	}
	return n
}
