package sql

import (
	"strings"

	"github.com/magmalake/magmalake/pgerr"
)

// greatest and least: the arguments take their common type as CASE arms
// do; NULLs are ignored and the result is NULL only when every argument is.

// greatest and least are SQL syntax in PostgreSQL, no functions.
func minMaxFunctions() []Function {
	return []Function{
		{Name: "greatest", bind: bindMinMax, row: perRow(minMax)},
		{Name: "least", bind: bindMinMax, row: perRow(minMax)},
	}
}

func bindMinMax(b callBinder, name string, args []Expr) (Expr, error) {
	if len(args) == 0 {
		return nil, pgerr.Errorf(pgerr.SyntaxError, "syntax error at or near \")\"")
	}
	t, err := b.commonType(args, strings.ToUpper(name))
	if err != nil {
		return nil, err
	}
	if _, ok := compareDomain(t, t); !ok {
		return nil, pgerr.Errorf(pgerr.UndefinedFunction, "could not identify a comparison function for type %s", t.SigName())
	}
	if err := b.coerceAll(args, t); err != nil {
		return nil, err
	}
	return &Func{Name: name, Args: args, T: t}, nil
}

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
