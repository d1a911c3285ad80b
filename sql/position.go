package sql

import (
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql/parse"
)

// typmodError reports a value that read as its type but does not fit the
// column's modifier (numeric(p,s), varchar(n)): PostgreSQL applies those
// after the input function, where no position is known.
func typmodError(se *pgerr.Error) bool {
	return se.Code == pgerr.StringDataRightTruncation || se.Code == pgerr.NumericValueOutOfRange && se.Message == "numeric field overflow"
}

// LiteralInput points err, when it is a *pgerr.Error without a position, at the
// string constant lit it arose from.
func LiteralInput(err error, lit string) error {
	var se *pgerr.Error
	if !errors.As(err, &se) || se.Position != 0 || se.Ref != nil || typmodError(se) {
		return err
	}
	out := *se
	out.Ref = &pgerr.NameRef{Parts: []string{lit}, Literal: true}
	return &out
}

// UndefinedTable is PostgreSQL's 42P01 for a relation name.
func UndefinedTable(schema, table string) *pgerr.Error {
	ref := &pgerr.NameRef{Parts: []string{table}}
	name := table
	if schema != "" {
		ref.Parts = []string{schema, table}
		name = schema + "." + table
	}
	return &pgerr.Error{Code: pgerr.UndefinedTable, Message: fmt.Sprintf("relation %q does not exist", name), Ref: ref}
}

// UndefinedColumn is PostgreSQL's 42703 for a column reference, qualified
// when table is not empty.
func UndefinedColumn(table, name string) *pgerr.Error {
	if table != "" {
		return &pgerr.Error{Code: pgerr.UndefinedColumn, Message: fmt.Sprintf("column %s.%s does not exist", table, name),
			Ref: &pgerr.NameRef{Parts: []string{table, name}, Column: true}}
	}
	return &pgerr.Error{Code: pgerr.UndefinedColumn, Message: fmt.Sprintf("column %q does not exist", name),
		Ref: &pgerr.NameRef{Parts: []string{name}, Column: true}}
}

// Located returns err with Position set from the statement text stmt when err
// is a *pgerr.Error naming a Ref and PostgreSQL would report a position for it:
// only statements that go through parse analysis (queries and DML, EXPLAIN,
// CREATE TABLE AS) do; utility statements (DROP, TRUNCATE, ALTER, COPY of a
// table, ...) report names without one. Other errors come back unchanged.
func Located(stmt string, err error) error {
	var se *pgerr.Error
	if !errors.As(err, &se) || se.Position != 0 || se.Ref == nil {
		return err
	}
	toks, lexErr := parse.Lex(stmt)
	if lexErr != nil || !analyzed(toks) {
		return err
	}
	k := findRef(toks, se.Ref)
	if k < 0 {
		return err
	}
	out := *se
	out.Position = parse.CharPos(stmt, toks[k].Pos)
	return &out
}

// analyzed reports statements PostgreSQL runs through parse analysis, which
// positions undefined names.
func analyzed(toks []parse.Token) bool {
	if len(toks) == 0 {
		return false
	}
	switch toks[0].Val {
	case "select", "with", "values", "table", "insert", "update", "delete", "explain", "merge":
		return toks[0].Kind == parse.TokIdent
	case "copy":
		return len(toks) > 1 && toks[1].IsPunct("(")
	case "create":
		for _, t := range toks {
			if t.Is("as") {
				return true
			}
		}
	}
	return false
}

// findRef is the index of the first token where ref is written as a name:
// a relation not used as a qualifier, a column not qualified by something
// else, not called as a function and not an alias.
func findRef(toks []parse.Token, ref *pgerr.NameRef) int {
	if ref.Literal {
		for i, t := range toks {
			if t.Kind == parse.TokString && t.Val == ref.Parts[0] {
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
		if i > 0 && (toks[i-1].IsPunct(".") || toks[i-1].Is("as")) {
			continue
		}
		if after < len(toks) && (toks[after].IsPunct(".") || (ref.Column && toks[after].IsPunct("("))) {
			continue
		}
		return i
	}
	return -1
}

// matchesAt reports parts written as a dotted name from toks[i].
func matchesAt(toks []parse.Token, i int, parts []string) bool {
	for j, part := range parts {
		k := i + 2*j
		if k >= len(toks) || (toks[k].Kind != parse.TokIdent && toks[k].Kind != parse.TokQIdent) || toks[k].Val != part {
			return false
		}
		if j > 0 && !toks[k-1].IsPunct(".") {
			return false
		}
	}
	return true
}

// InQuery moves err's Position, counted within statement k of a
// multi-statement query, to count within the whole query, as PostgreSQL
// reports it.
func InQuery(query string, k int, err error) error {
	var se *pgerr.Error
	if !errors.As(err, &se) || se.Position == 0 {
		return err
	}
	spans, splitErr := parse.SplitTokens(query, 0)
	if splitErr != nil || k >= len(spans) || spans[k].Toks[0].Pos == 0 {
		return err
	}
	out := *se
	out.Position += utf8.RuneCountInString(query[:spans[k].Toks[0].Pos])
	return &out
}
