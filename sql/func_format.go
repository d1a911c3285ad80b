package sql

import (
	"strings"
	"unicode/utf8"

	"github.com/magmalake/magmalake/pgerr"
)

// formatText is PostgreSQL's format(fmt, args...): %s (NULL as the empty string), %I
// (quote_ident; NULL is an error), %L (quote_literal; NULL as NULL) and %%,
// each with an optional argument position (%2$s) and width (%-10s, %*s).
func formatText(f string, types []Expr, vals []any) (any, error) {
	var sb strings.Builder
	next := 0
	for i := 0; i < len(f); i++ {
		c := f[i]
		if c != '%' {
			sb.WriteByte(c)
			continue
		}
		i++
		if i >= len(f) {
			return nil, pgerr.Errorf(pgerr.InvalidParameterValue, "unterminated format() type specifier")
		}
		if f[i] == '%' {
			sb.WriteByte('%')
			continue
		}
		spec, n, err := parseFormatSpec(f[i:], &next, vals, types)
		if err != nil {
			return nil, err
		}
		i += n - 1
		if err := spec.write(&sb); err != nil {
			return nil, err
		}
	}
	return sb.String(), nil
}

// formatSpec is one conversion after its '%'.
type formatSpec struct {
	conv  byte
	left  bool
	width int
	val   any
	typ   Type
}

// parseFormatSpec reads [n$][-][width|*[m$]]type from s; n is how many
// bytes it took. next is the next implicit argument.
func parseFormatSpec(s string, next *int, vals []any, types []Expr) (formatSpec, int, error) {
	var sp formatSpec
	i := 0
	arg := -1
	if d, k := leadingInt(s); k > 0 && k < len(s) && s[k] == '$' {
		if d == 0 {
			return sp, 0, pgerr.Errorf(pgerr.InvalidParameterValue, "format specifies argument 0, but arguments are numbered from 1")
		}
		arg = d - 1
		i = k + 1
	}
	if i < len(s) && s[i] == '-' {
		sp.left = true
		i++
	}
	if i < len(s) && s[i] == '*' {
		i++
		wArg := *next
		if d, k := leadingInt(s[i:]); k > 0 && i+k < len(s) && s[i+k] == '$' {
			wArg = d - 1
			i += k + 1
		}
		if wArg < 0 || wArg >= len(vals) {
			return sp, 0, pgerr.Errorf(pgerr.InvalidParameterValue, "too few arguments for format()")
		}
		*next = wArg + 1
		if vals[wArg] != nil {
			w, ok := vals[wArg].(int64)
			if !ok {
				return sp, 0, pgerr.Errorf(pgerr.InvalidParameterValue, "width argument must be an integer")
			}
			if w < 0 {
				sp.left = true
				w = -w
			}
			sp.width = int(min(w, 1<<20))
		}
	} else if d, k := leadingInt(s[i:]); k > 0 {
		sp.width = d
		i += k
	}
	if i >= len(s) {
		return sp, 0, pgerr.Errorf(pgerr.InvalidParameterValue, "unterminated format() type specifier")
	}
	sp.conv = s[i]
	switch sp.conv {
	case 's', 'I', 'L':
	default:
		return sp, 0, pgerr.Errorf(pgerr.InvalidParameterValue, "unrecognized format() type specifier \"%c\"", sp.conv)
	}
	if arg < 0 {
		arg = *next
	}
	if arg >= len(vals) {
		return sp, 0, pgerr.Errorf(pgerr.InvalidParameterValue, "too few arguments for format()")
	}
	*next = arg + 1
	sp.val, sp.typ = vals[arg], types[arg].Type()
	return sp, i + 1, nil
}

// leadingInt reads the decimal digits at the start of s (capped so a width
// cannot overflow); k is how many there were.
func leadingInt(s string) (d, k int) {
	for k < len(s) && s[k] >= '0' && s[k] <= '9' {
		d = min(d*10+int(s[k]-'0'), 1<<20)
		k++
	}
	return d, k
}

func (sp formatSpec) write(sb *strings.Builder) error {
	var text string
	switch {
	case sp.conv == 'I' && sp.val == nil:
		return pgerr.Errorf(pgerr.NullValueNotAllowed, "null values cannot be formatted as an SQL identifier")
	case sp.conv == 'L' && sp.val == nil:
		text = "NULL"
	case sp.val == nil:
	case sp.conv == 'I':
		text = QuoteIdent(outputText(sp.val, sp.typ))
	case sp.conv == 'L':
		text = quoteLiteral(outputText(sp.val, sp.typ))
	default:
		text = outputText(sp.val, sp.typ)
	}
	padding := strings.Repeat(" ", max(sp.width-utf8.RuneCountInString(text), 0))
	if sp.left {
		sb.WriteString(text + padding)
	} else {
		sb.WriteString(padding + text)
	}
	return nil
}

// isReservedKeyword reports the words PostgreSQL 15's quote_ident quotes:
// every keyword that is not unreserved (pg_get_keywords() catcode <> 'U').
func isReservedKeyword(s string) bool { return quotedKeywords[s] }

var quotedKeywords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range []string{
		"all", "analyse", "analyze", "and", "any", "array", "as", "asc", "asymmetric", "authorization",
		"between", "bigint", "binary", "bit", "boolean", "both", "case", "cast", "char", "character",
		"check", "coalesce", "collate", "collation", "column", "concurrently", "constraint", "create",
		"cross", "current_catalog", "current_date", "current_role", "current_schema", "current_time",
		"current_timestamp", "current_user", "dec", "decimal", "default", "deferrable", "desc", "distinct",
		"do", "else", "end", "except", "exists", "extract", "false", "fetch", "float", "for", "foreign",
		"freeze", "from", "full", "grant", "greatest", "group", "grouping", "having", "ilike", "in",
		"initially", "inner", "inout", "int", "integer", "intersect", "interval", "into", "is", "isnull",
		"join", "lateral", "leading", "least", "left", "like", "limit", "localtime", "localtimestamp",
		"national", "natural", "nchar", "none", "normalize", "not", "notnull", "null", "nullif", "numeric",
		"offset", "on", "only", "or", "order", "out", "outer", "overlaps", "overlay", "placing",
		"position", "precision", "primary", "real", "references", "returning", "right", "row", "select",
		"session_user", "setof", "similar", "smallint", "some", "substring", "symmetric", "table",
		"tablesample", "then", "time", "timestamp", "to", "trailing", "treat", "trim", "true", "union",
		"unique", "user", "using", "values", "varchar", "variadic", "verbose", "when", "where", "window",
		"with", "xmlattributes", "xmlconcat", "xmlelement", "xmlexists", "xmlforest", "xmlnamespaces",
		"xmlparse", "xmlpi", "xmlroot", "xmlserialize", "xmltable",
	} {
		m[w] = true
	}
	return m
}()
