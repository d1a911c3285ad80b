package repl

import (
	"context"
	"fmt"
	"strings"
)

// namePattern is a psql object-name pattern ([[DB.]SCHEMA.]NAME) turned
// into regular expressions as psql's patternToSQLRegex does: unquoted
// letters fold to lower case, * is .*, ? is ., . separates the parts,
// "double quotes" keep case and make regexp characters literal, $ is
// always literal, and every part is anchored as ^(...)$.
type namePattern struct {
	db     string // the database part, as written (folded, * and ? kept), "" if absent
	schema string // "" when the pattern names no schema
	name   string
	dots   int // unquoted dots: more than the parts allow is an error
}

// parseNamePattern splits pattern into at most three parts.
func parseNamePattern(pattern string) namePattern {
	parts := []*strings.Builder{{}}
	var db strings.Builder
	left := true // still in the first part: db keeps its literal spelling
	cur := parts[0]
	cur.WriteString("^(")
	inQuotes := false
	var p namePattern
	for i := 0; i < len(pattern); i++ {
		c := pattern[i]
		switch {
		case c == '"':
			if inQuotes && i+1 < len(pattern) && pattern[i+1] == '"' {
				cur.WriteByte('"')
				if left {
					db.WriteByte('"')
				}
				i++
			} else {
				inQuotes = !inQuotes
			}
		case !inQuotes && c >= 'A' && c <= 'Z':
			cur.WriteByte(c + 'a' - 'A')
			if left {
				db.WriteByte(c + 'a' - 'A')
			}
		case !inQuotes && (c == '*' || c == '?'):
			cur.WriteString(map[byte]string{'*': ".*", '?': "."}[c])
			if left {
				db.WriteByte(c)
			}
		case !inQuotes && c == '.':
			left = false
			p.dots++
			if len(parts) < 3 {
				cur.WriteString(")$")
				cur = &strings.Builder{}
				parts = append(parts, cur)
				cur.WriteString("^(")
			} else {
				cur.WriteByte(c)
			}
		case c == '$':
			cur.WriteString(`\$`)
			if left {
				db.WriteByte(c)
			}
		default:
			// Outside quotes regexp characters pass through, for users who
			// write regexps; psql quotes [] anyway (an array type name).
			if inQuotes && strings.IndexByte(`|*+?()[]{}.^$\`, c) >= 0 || c == '[' && i+1 < len(pattern) && pattern[i+1] == ']' {
				cur.WriteByte('\\')
			}
			cur.WriteByte(c)
			if left {
				db.WriteByte(c)
			}
		}
	}
	cur.WriteString(")$")
	p.name = parts[len(parts)-1].String()
	if len(parts) >= 2 {
		p.schema = parts[len(parts)-2].String()
	}
	if len(parts) == 3 {
		p.db = db.String()
	}
	return p
}

// patternClauses are the WHERE conditions psql's processSQLNamePattern and
// validateSQLNamePattern add for pattern: the name, the schema, else the
// visibility rule; an empty pattern adds only the visibility rule. A
// pattern with too many dotted names or naming another database is
// psql's error, printed; ErrFailed then.
func (cat *catalog) patternClauses(ctx context.Context, pattern string, hasPattern bool, schemaVar, nameVar, visible string) ([]string, error) {
	if !hasPattern {
		return []string{visible}, nil
	}
	p := parseNamePattern(pattern)
	if p.dots >= 3 {
		fmt.Fprintf(cat.pr.errOut, "improper qualified name (too many dotted names): %s\n", pattern)
		return nil, ErrFailed
	}
	if p.dots == 2 {
		db, err := cat.queryText(ctx, "SELECT pg_catalog.current_database()")
		if err != nil {
			return nil, err
		}
		if len(db) != 1 || db[0][0] != p.db {
			fmt.Fprintf(cat.pr.errOut, "cross-database references are not implemented: %s\n", pattern)
			return nil, ErrFailed
		}
	}
	var where []string
	if p.name != "^(.*)$" {
		where = append(where, nameVar+" OPERATOR(pg_catalog.~) "+sqlString(p.name)+" COLLATE pg_catalog.default")
	}
	switch {
	case p.schema == "":
		where = append(where, visible)
	case p.schema != "^(.*)$":
		where = append(where, schemaVar+" OPERATOR(pg_catalog.~) "+sqlString(p.schema)+" COLLATE pg_catalog.default")
	}
	return where, nil
}

// sqlString is a standard-conforming string literal.
func sqlString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
