package sql

import (
	"strings"

	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql/parse"
)

// copyStmt parses COPY t [(cols)] FROM STDIN [options] and
// COPY t [(cols)] | (query) TO STDOUT [options], options in the modern
// "WITH (FORMAT csv, ...)" form or the old "WITH CSV HEADER ..." one.
// Unset options get PostgreSQL's defaults for the format.
func (p sessionParser) copyStmt(c *cursor) (Statement, error) {
	c.i++
	cp := &Copy{}
	var err error
	if c.peek().IsPunct("(") {
		k := parse.MatchParen(c.toks, c.i)
		if k < 0 {
			return nil, parse.SyntaxErrorAt(p.query, c.stop)
		}
		if cp.Query, err = p.selects().selectStmt(c.toks[c.i+1:k], c.toks[k]); err != nil {
			return nil, err
		}
		c.i = k + 1
	} else {
		if cp.Table, err = c.tableName(); err != nil {
			return nil, err
		}
		if c.peek().IsPunct("(") {
			if cp.Columns, err = c.identList(); err != nil {
				return nil, err
			}
		}
	}
	if err := p.copyDirection(c, cp); err != nil {
		return nil, err
	}
	given := map[string]bool{}
	if err := p.copyOptions(c, cp, given); err != nil {
		return nil, err
	}
	copyDefaults(cp, given)
	return cp, c.done()
}

func (p sessionParser) copyDirection(c *cursor, cp *Copy) error {
	switch {
	case c.word("from"):
		cp.From = true
		if cp.Query != nil {
			return parse.SyntaxErrorAt(p.query, c.at(c.i-1))
		}
		if !c.word("stdin") {
			return p.copyFileError(c)
		}
	case c.word("to"):
		if !c.word("stdout") {
			return p.copyFileError(c)
		}
	default:
		return c.errHere()
	}
	return nil
}

func (p sessionParser) copyFileError(c *cursor) error {
	t := c.peek()
	if t.Kind == parse.TokString || t.Is("program") {
		return parse.UnsupportedAt(p.query, t, "COPY to or from a file or program is not supported; use STDIN or STDOUT")
	}
	return c.errHere()
}

func (p sessionParser) copyOptions(c *cursor, cp *Copy, given map[string]bool) error {
	c.word("with")
	if c.punct("(") {
		for {
			if err := p.copyOption(c, cp, given); err != nil {
				return err
			}
			if c.punct(")") {
				return nil
			}
			if err := c.expectPunct(","); err != nil {
				return err
			}
		}
	}
	for !c.atEnd() {
		if err := p.legacyCopyOption(c, cp, given); err != nil {
			return err
		}
	}
	return nil
}

// copyOption reads one "name [value]" of the parenthesised option list.
func (p sessionParser) copyOption(c *cursor, cp *Copy, given map[string]bool) error {
	nameTok := c.peek()
	name, err := p.settingName(c)
	if err != nil {
		return err
	}
	val := ""
	if !c.peek().IsPunct(",") && !c.peek().IsPunct(")") {
		if val, err = p.settingValue(c); err != nil {
			return err
		}
	}
	given[name] = true
	switch name {
	case "format":
		cp.Format = strings.ToLower(val)
		if cp.Format != "text" && cp.Format != "csv" && cp.Format != "binary" {
			return &pgerr.Error{Code: pgerr.InvalidParameterValue, Message: "COPY format \"" + val + "\" not recognized", Position: parse.CharPos(p.query, nameTok.Pos)}
		}
	case "header":
		cp.Header = val == "" || isTrueWord(val)
	case "delimiter":
		cp.Delimiter = val
	case "null":
		cp.Null = val
	case "quote":
		cp.Quote = val
	case "escape":
		cp.Escape = val
	case "encoding", "freeze", "force_quote", "force_not_null", "force_null":
	default:
		return &pgerr.Error{Code: pgerr.SyntaxError, Message: "option \"" + name + "\" not recognized", Position: parse.CharPos(p.query, nameTok.Pos)}
	}
	return nil
}

func isTrueWord(v string) bool {
	switch strings.ToLower(v) {
	case "true", "on", "1", "yes", "t", "y":
		return true
	}
	return false
}

// legacyCopyOption reads one option of the pre-9.0 syntax.
func (p sessionParser) legacyCopyOption(c *cursor, cp *Copy, given map[string]bool) error {
	var err error
	given[c.peek().Val] = true
	switch {
	case c.word("binary"):
		cp.Format = "binary"
	case c.word("csv"):
		cp.Format = "csv"
	case c.word("header"):
		cp.Header = true
	case c.word("delimiter"):
		c.word("as")
		cp.Delimiter, err = c.str()
	case c.word("null"):
		c.word("as")
		cp.Null, err = c.str()
	case c.word("quote"):
		c.word("as")
		cp.Quote, err = c.str()
	case c.word("escape"):
		c.word("as")
		cp.Escape, err = c.str()
	case c.words("force", "quote"), c.words("force", "not", "null"):
		if !c.punct("*") {
			_, err = c.identList()
		}
	default:
		return c.errHere()
	}
	return err
}

// copyDefaults fills the options the statement did not give.
func copyDefaults(cp *Copy, given map[string]bool) {
	if cp.Format == "" {
		cp.Format = "text"
	}
	csv := cp.Format == "csv"
	if !given["delimiter"] {
		cp.Delimiter = map[bool]string{true: ",", false: "\t"}[csv]
	}
	if !given["null"] && !csv {
		cp.Null = `\N`
	}
	if csv && !given["quote"] {
		cp.Quote = `"`
	}
	if csv && !given["escape"] {
		cp.Escape = cp.Quote
	}
}
