package sql

import (
	"errors"
	"fmt"
	"unicode/utf8"
)

// NameRef is a name an error is about, for finding it in the statement text:
// the binder and the catalog lookup know the name but not where it was
// written, the wire layer knows the text but not the name.
type NameRef struct {
	Parts  []string // as resolved: unquoted parts lower-cased, quoted ones as written
	Column bool     // a column reference (else a relation)
	// Literal: Parts[0] is the content of a string constant that failed to
	// read as the type its context gave it (PostgreSQL points at it).
	Literal bool
}

// typmodError reports a value that read as its type but does not fit the
// column's modifier (numeric(p,s), varchar(n)): PostgreSQL applies those
// after the input function, where no position is known.
func typmodError(se *Error) bool {
	return se.Code == CodeStringDataRightTrunc || se.Code == CodeNumericOutOfRange && se.Message == "numeric field overflow"
}

// LiteralInput points err, when it is an *Error without a position, at the
// string constant lit it arose from.
func LiteralInput(err error, lit string) error {
	var se *Error
	if !errors.As(err, &se) || se.Position != 0 || se.Ref != nil || typmodError(se) {
		return err
	}
	out := *se
	out.Ref = &NameRef{Parts: []string{lit}, Literal: true}
	return &out
}

// UndefinedTable is PostgreSQL's 42P01 for a relation name.
func UndefinedTable(schema, table string) *Error {
	ref := &NameRef{Parts: []string{table}}
	name := table
	if schema != "" {
		ref.Parts = []string{schema, table}
		name = schema + "." + table
	}
	return &Error{Code: CodeUndefinedTable, Message: fmt.Sprintf("relation %q does not exist", name), Ref: ref}
}

// UndefinedColumn is PostgreSQL's 42703 for a column reference, qualified
// when table is not empty.
func UndefinedColumn(table, name string) *Error {
	if table != "" {
		return &Error{Code: CodeUndefinedColumn, Message: fmt.Sprintf("column %s.%s does not exist", table, name),
			Ref: &NameRef{Parts: []string{table, name}, Column: true}}
	}
	return &Error{Code: CodeUndefinedColumn, Message: fmt.Sprintf("column %q does not exist", name),
		Ref: &NameRef{Parts: []string{name}, Column: true}}
}

// Located returns err with Position set from the statement text stmt when err
// is an *Error naming a Ref and PostgreSQL would report a position for it:
// only statements that go through parse analysis (queries and DML, EXPLAIN,
// CREATE TABLE AS) do; utility statements (DROP, TRUNCATE, ALTER, COPY of a
// table, ...) report names without one. Other errors come back unchanged.
func Located(stmt string, err error) error {
	var se *Error
	if !errors.As(err, &se) || se.Position != 0 || se.Ref == nil {
		return err
	}
	toks, lexErr := lexAll(stmt)
	if lexErr != nil || !analyzed(toks) {
		return err
	}
	k := findRef(toks, se.Ref)
	if k < 0 {
		return err
	}
	out := *se
	out.Position = pgCharPos(stmt, toks[k].pos)
	return &out
}

// analyzed reports statements PostgreSQL runs through parse analysis, which
// positions undefined names.
func analyzed(toks []token) bool {
	if len(toks) == 0 {
		return false
	}
	switch toks[0].val {
	case "select", "with", "values", "table", "insert", "update", "delete", "explain", "merge":
		return toks[0].kind == tkIdent
	case "copy":
		return len(toks) > 1 && toks[1].isPunct("(")
	case "create":
		for _, t := range toks {
			if t.is("as") {
				return true
			}
		}
	}
	return false
}

// findRef is the index of the first token where ref is written as a name:
// a relation not used as a qualifier, a column not qualified by something
// else, not called as a function and not an alias.
func findRef(toks []token, ref *NameRef) int {
	if ref.Literal {
		for i, t := range toks {
			if t.kind == tkString && t.val == ref.Parts[0] {
				return i
			}
		}
		return -1
	}
	n := len(ref.Parts)
	for i := range toks {
		if !matchesAt(toks, i, ref.Parts) {
			continue
		}
		after := i + 2*n - 1
		if i > 0 && (toks[i-1].isPunct(".") || toks[i-1].is("as")) {
			continue
		}
		if after < len(toks) && (toks[after].isPunct(".") || (ref.Column && toks[after].isPunct("("))) {
			continue
		}
		return i
	}
	return -1
}

// matchesAt reports parts written as a dotted name from toks[i].
func matchesAt(toks []token, i int, parts []string) bool {
	for j, part := range parts {
		k := i + 2*j
		if k >= len(toks) || (toks[k].kind != tkIdent && toks[k].kind != tkQIdent) || toks[k].val != part {
			return false
		}
		if j > 0 && !toks[k-1].isPunct(".") {
			return false
		}
	}
	return true
}

// InQuery moves err's Position, counted within statement k of a
// multi-statement query, to count within the whole query, as PostgreSQL
// reports it.
func InQuery(query string, k int, err error) error {
	var se *Error
	if !errors.As(err, &se) || se.Position == 0 {
		return err
	}
	spans, splitErr := splitTokens(query, 0)
	if splitErr != nil || k >= len(spans) || spans[k].toks[0].pos == 0 {
		return err
	}
	out := *se
	out.Position += utf8.RuneCountInString(query[:spans[k].toks[0].pos])
	return &out
}
