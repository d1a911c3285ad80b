package sql

import (
	"fmt"
	"math/rand"
)

// genExpr is one random expression as PostgreSQL text and in the front
// end's normalised form.
type genExpr struct{ pg, my string }

func same(s string) genExpr { return genExpr{s, s} }

func (g genExpr) wrap(pre, post string) genExpr {
	return genExpr{pre + g.pg + post, pre + g.my + post}
}

func join(a genExpr, op string, b genExpr) genExpr {
	return genExpr{"(" + a.pg + " " + op + " " + b.pg + ")", "(" + a.my + " " + op + " " + b.my + ")"}
}

func cast(x genExpr, typ string) genExpr {
	return genExpr{"(" + x.pg + ")::" + typ, "__cast(" + x.my + ", '" + typ + "')"}
}

type exprGen struct{ rng *rand.Rand }

func (g *exprGen) pick(options ...string) string { return options[g.rng.Intn(len(options))] }

var cmpOps = []string{"=", "<>", "<", "<=", ">", ">="}

// numLiteral covers int4, int8, numeric, out-of-range and float constants.
func (g *exprGen) numLiteral() genExpr {
	switch g.rng.Intn(8) {
	case 0:
		return cast(same(g.pick("'NaN'", "'Infinity'", "'-Infinity'", "2.5", "0", "1e300")), "float8")
	case 1:
		return same(g.pick("3000000000", "-9000000000000000000", "9000000000000000000", "2147483648", "-2147483649"))
	case 2, 3:
		return same(g.pick("2.5", "-2.25", "1.50", "1.005", "99999999.99", "1e3", "0.1", "3.00"))
	}
	return same(g.pick("0", "1", "-1", "2", "3", "5", "7", "42", "100", "2147483647", "-2147483648"))
}

// numOperand is a numeric expression that cannot raise an error on the data.
func (g *exprGen) numOperand() genExpr {
	switch g.rng.Intn(10) {
	case 0, 1, 2, 3:
		return same(g.pick("b", "i", "f", "n"))
	case 4, 5:
		return g.numLiteral()
	case 6:
		return same("(" + g.pick("b + 1", "i % 7", "i / 3", "f * 2", "n * 2", "b / -2", "n - i", "i - 0.5", "f + i") + ")")
	case 7:
		return cast(same(g.pick("n", "i", "b")), g.pick("float8", "numeric", "bigint"))
	case 8:
		b := g.boolExpr(1)
		return genExpr{"CASE WHEN " + b.pg + " THEN i ELSE 5 END", "CASE WHEN " + b.my + " THEN i ELSE 5 END"}
	}
	return same(g.pick("coalesce(i, b, 0)", "coalesce(n, 1)", "nullif(i, 0)", "abs(n)", "round(n, 1)"))
}

func (g *exprGen) textLiteral() string {
	return g.pick("'ab'", "'a'", "''", "'O''Reilly'", "'ü'", "'abc'", "'Zeta'", "'5'", "'a%b'", "'AB'")
}

func (g *exprGen) compare() genExpr {
	op := g.pick(cmpOps...)
	switch g.rng.Intn(6) {
	case 0:
		l := same("s")
		r := same(g.textLiteral())
		if g.rng.Intn(4) == 0 {
			r = same(g.pick("lower(s)", "upper(s)", "s || 'b'"))
		}
		if g.rng.Intn(2) == 0 {
			l, r = r, l
		}
		return join(l, op, r)
	case 1:
		lits := []genExpr{same("'2024-01-01'"), cast(same("'2023-12-31'"), "date"), cast(same("'2024-01-01 10:00:00'"), "timestamp")}
		return join(same("d"), op, lits[g.rng.Intn(len(lits))])
	case 2:
		lits := []genExpr{same("'2024-01-01 10:00:00'"), same("'2024-01-01'"), cast(same("'2024-01-01 12:00:00+02'"), "timestamptz"), cast(same("'2024-01-01'"), "date")}
		return join(lits[g.rng.Intn(len(lits))], op, same("ts"))
	case 3:
		return join(same("bo"), g.pick("=", "<>", "<", ">="), genExpr{g.pick("true", "false"), ""}.fixBool())
	}
	l, r := g.numOperand(), g.numOperand()
	if g.rng.Intn(2) == 0 {
		l = same(g.pick("b", "i", "f", "n"))
	}
	return join(l, op, r)
}

// fixBool spells a boolean literal in both dialects.
func (g genExpr) fixBool() genExpr {
	if g.pg == "true" {
		return genExpr{"true", "__true()"}
	}
	return genExpr{"false", "__false()"}
}

func (g *exprGen) likeExpr() genExpr {
	pat := g.pick("'a%'", "'ab%'", `'a\%%'`, "'a_b'", "'%b'", "'%'", "'ab'", "'%\\_%'", "'AB%'", "'_'")
	not := g.pick("", "NOT ")
	switch g.rng.Intn(3) {
	case 0:
		return genExpr{"s " + not + "ILIKE " + pat, not + "__ilike(s, " + pat + ")"}
	case 1:
		return same("s " + not + "LIKE " + g.pick("'a!%%'", "'!_%'", "'%!!%'") + " ESCAPE '!'")
	}
	return same("s " + not + "LIKE " + pat)
}

func (g *exprGen) boolExpr(depth int) genExpr {
	k := g.rng.Intn(12)
	if depth <= 0 {
		k = g.rng.Intn(8)
	}
	switch k {
	case 0, 1, 2:
		return g.compare()
	case 3:
		return same(g.pick("b", "i", "f", "n", "s", "d", "ts", "bo") + g.pick(" IS NULL", " IS NOT NULL"))
	case 4:
		col, lit := g.pick("b", "i", "f", "n"), g.numLiteral()
		if g.rng.Intn(3) == 0 {
			lit = same("NULL")
		}
		if g.rng.Intn(2) == 0 {
			return genExpr{col + " IS DISTINCT FROM " + lit.pg, "NOT (" + col + " <=> " + lit.my + ")"}
		}
		return genExpr{col + " IS NOT DISTINCT FROM " + lit.pg, "(" + col + " <=> " + lit.my + ")"}
	case 5:
		col := g.pick("b", "i", "f", "n")
		lo, hi := g.numLiteral(), g.numLiteral()
		not := g.pick("", "NOT ")
		return genExpr{col + " " + not + "BETWEEN " + lo.pg + " AND " + hi.pg, col + " " + not + "BETWEEN " + lo.my + " AND " + hi.my}
	case 6:
		col := g.pick("b", "i", "f", "n", "s")
		var items []genExpr
		for n := 1 + g.rng.Intn(3); n > 0; n-- {
			switch {
			case g.rng.Intn(6) == 0:
				items = append(items, same("NULL"))
			case col == "s":
				items = append(items, same(g.textLiteral()))
			default:
				items = append(items, g.numLiteral())
			}
		}
		pg, my := "", ""
		for k, it := range items {
			if k > 0 {
				pg, my = pg+", ", my+", "
			}
			pg, my = pg+it.pg, my+it.my
		}
		not := g.pick("", "NOT ")
		return genExpr{col + " " + not + "IN (" + pg + ")", col + " " + not + "IN (" + my + ")"}
	case 7:
		if g.rng.Intn(2) == 0 {
			return same(g.pick("bo", "bo IS TRUE", "bo IS NOT FALSE", "NOT bo", "bo IS NOT TRUE"))
		}
		return g.likeExpr()
	case 8, 9:
		return join(g.boolExpr(depth-1), g.pick("AND", "OR"), g.boolExpr(depth-1))
	case 10:
		return g.boolExpr(depth-1).wrap("NOT (", ")")
	}
	return join(g.numOperand(), g.pick(cmpOps...), g.numOperand())
}

// scalarExpr may raise errors (overflow, division by zero, bad input).
func (g *exprGen) scalarExpr(depth int) genExpr {
	switch g.rng.Intn(9) {
	case 0:
		return same(g.pick("b * b", "i * 100000", "b / i", "i % i", "f / i", "n % i", "f + b", "i + i", "-i", "b - i", "i * 2.5", "abs(i)", "f * f", "b * 2"))
	case 1:
		return same(g.pick("lower(s)", "upper(s)", "length(s)", "substring(s, 2, 2)", "substring(s, 0)", "s || 'x'", "s || i", "trim(s)", "substring(s from 2)"))
	case 2:
		x := same(g.pick("s", "n", "f", "b", "i"))
		to := g.pick("int", "bigint", "text", "float8", "numeric(6,1)", "smallint", "numeric")
		if x.pg == "f" && to[0] == 'n' {
			to = "real" // a NaN numeric has no Arrow decimal form
		}
		return cast(x, to)
	case 3:
		return cast(same(g.pick("d", "ts")), g.pick("timestamp", "date", "text", "timestamptz"))
	case 4:
		b := g.boolExpr(1)
		return genExpr{"CASE WHEN " + b.pg + " THEN i ELSE b END", "CASE WHEN " + b.my + " THEN i ELSE b END"}
	case 5:
		return same(g.pick("coalesce(i, b)", "nullif(i, 0)", "coalesce(s, 'none')", "round(n, 1)", "round(f)", "abs(f)", "round(n, -1)", "d + i", "d - 1"))
	case 6:
		if depth > 0 {
			return join(g.scalarNum(depth-1), g.pick("+", "-", "*"), g.scalarNum(depth-1))
		}
	case 7:
		return g.boolExpr(1)
	}
	return g.numOperand()
}

func (g *exprGen) scalarNum(depth int) genExpr {
	if g.rng.Intn(2) == 0 {
		return g.numOperand()
	}
	return same("(" + g.pick("b * b", "i * 100000", "b / i", "i % i", "f / i", "-i", "abs(i)", "i + 1") + ")")
}

var _ = fmt.Sprint
