package sql

import "strings"

// translate and position(a IN b), the string functions func_text.go's
// table does not hold.

// bindTextMore binds translate and position; ok is false for other names.
func (b *binder) bindTextMore(name string, args []Expr) (Expr, bool, error) {
	switch name {
	case "translate":
		if len(args) != 3 {
			return nil, true, noFunction(name, args)
		}
		if err := b.textArgs(name, args); err != nil {
			return nil, true, err
		}
		return &Func{Name: name, Args: args, T: Text}, true, nil
	case "position":
		// position(a IN b) is strpos(b, a); tidb hands over (a, b).
		if len(args) != 2 {
			return nil, true, noFunction(name, args)
		}
		if err := b.textArgs(name, args); err != nil {
			return nil, true, err
		}
		return &Func{Name: "strpos", Args: []Expr{args[1], args[0]}, T: Int32}, true, nil
	}
	return nil, false, nil
}

// translateText replaces each character of s found in from by the one at
// the same place in to, deleting it when to is shorter; the first
// occurrence in from counts.
func translateText(s, from, to string) string {
	fr, tr := []rune(from), []rune(to)
	var b strings.Builder
	for _, r := range s {
		k := -1
		for i, f := range fr {
			if f == r {
				k = i
				break
			}
		}
		switch {
		case k < 0:
			b.WriteRune(r)
		case k < len(tr):
			b.WriteRune(tr[k])
		}
	}
	return b.String()
}
