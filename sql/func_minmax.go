package sql

import (
	"strings"

	"github.com/magmalake/magmalake/pgerr"
)

// greatest and least: the arguments take their common type as CASE arms
// do; NULLs are ignored and the result is NULL only when every argument is.

// bindMinMax binds greatest and least; ok is false for other names.
func (b *binder) bindMinMax(name string, args []Expr) (Expr, bool, error) {
	if name != "greatest" && name != "least" {
		return nil, false, nil
	}
	if len(args) == 0 {
		return nil, true, pgerr.Errorf(pgerr.SyntaxError, "syntax error at or near \")\"")
	}
	t, err := b.commonType(args, strings.ToUpper(name))
	if err != nil {
		return nil, true, err
	}
	if _, ok := compareDomain(t, t); !ok {
		return nil, true, pgerr.Errorf(pgerr.UndefinedFunction, "could not identify a comparison function for type %s", t.SigName())
	}
	if err := b.coerceAll(args, t); err != nil {
		return nil, true, err
	}
	return &Func{Name: name, Args: args, T: t}, true, nil
}

func isMinMax(name string) bool { return name == "greatest" || name == "least" }

// minMax is one row of greatest/least over the non-NULL arguments.
func minMax(x *Func, a []any) (any, error) {
	var best any
	for _, v := range a {
		if v == nil {
			continue
		}
		if best == nil {
			best = v
			continue
		}
		c := compareDatums(x.T, v, best)
		if x.Name == "greatest" && c > 0 || x.Name == "least" && c < 0 {
			best = v
		}
	}
	return best, nil
}
