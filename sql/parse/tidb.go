package parse

import (
	"errors"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/pingcap/tidb/pkg/parser"
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/mysql"
	_ "github.com/pingcap/tidb/pkg/parser/test_driver" // value-expression driver for the tidb parser

	"github.com/magmalake/magmalake/pgerr"
)

// Names is what the normaliser must know of the names package sql
// defines: type names (a word before a string is a typed literal) and
// aggregates (TiDB parses those its grammar lacks as plain calls).
type Names interface {
	IsTypeName(name string) bool
	IsAggregate(name string) bool
}

// Parser parses the expressions and queries of one query text through
// TiDB: the original text (for error positions), the nesting limit, the
// names the normaliser needs and a TiDB parser configured for normalised
// PostgreSQL.
type Parser struct {
	query    string
	tp       *parser.Parser
	maxDepth int // expression nesting allowed (see checkDepth)
	names    Names
}

// tidbParsers recycles tidb parsers: building one allocates tens of
// kilobytes, which dominated the cost of trivial statements (SELECT 1).
// A parser holds no state between parses that matters to us.
var tidbParsers = sync.Pool{New: func() any {
	tp := parser.New()
	tp.SetSQLMode(mysql.ModeANSIQuotes | mysql.ModeNoBackslashEscapes | mysql.ModePipesAsConcat)
	return tp
}}

// NewParser is a parser of query's parts; Release it when done.
func NewParser(query string, maxDepth int, names Names) *Parser {
	return &Parser{query: query, tp: tidbParsers.Get().(*parser.Parser), maxDepth: maxDepth, names: names}
}

// Release returns the TiDB parser to the pool; p must not parse again.
func (p *Parser) Release() {
	tidbParsers.Put(p.tp)
	p.tp = nil
}

// rendered is normalised text with each token's start offset.
type rendered struct {
	text   string
	starts []int
	toks   []ntok
}

// render joins tokens, gluing names to '.' and function names to '('.
func renderTidb(toks []ntok) rendered {
	var b strings.Builder
	r := rendered{toks: toks, starts: make([]int, len(toks))}
	for k, t := range toks {
		if k > 0 && !tidbGlued(toks[k-1], t) {
			b.WriteByte(' ')
		}
		r.starts[k] = b.Len()
		if t.Kind == TokIdent && strings.HasPrefix(t.text, "_") {
			// Quoted: tidb's lexer looks up every bare word starting with
			// '_' as a MySQL charset introducer (_utf8'...'), building an
			// error with a stack trace for each miss; the internal calls
			// (__param, __cast) are one per literal of an INSERT.
			b.WriteByte('`')
			b.WriteString(t.text)
			b.WriteByte('`')
			continue
		}
		b.WriteString(t.text)
	}
	r.text = b.String()
	return r
}

func tidbGlued(prev, cur ntok) bool {
	if prev.text == "." || cur.text == "." {
		return true
	}
	return cur.text == "(" && (prev.Kind == TokQIdent || prev.Kind == TokIdent && !operandStopWords[prev.text])
}

// tidb parses normalised tokens, mapping a syntax error back to the
// original text; stop is the original token after toks.
func (p *Parser) tidb(toks []ntok, stop Token) ([]ast.StmtNode, error) {
	toks = balanceChains(toks)
	if err := checkDepth(toks, p.maxDepth); err != nil {
		return nil, err
	}
	r := renderTidb(toks)
	stmts, _, err := p.tp.ParseSQL(r.text)
	if err != nil {
		return nil, p.mapTidbError(r, stop, err)
	}
	// The parser reuses its result slice on the next parse.
	return slices.Clone(stmts), nil
}

// mapTidbError turns a tidb error into PostgreSQL's 42601 at the original
// token. tidb reports the unparsed rest of its input after `near "`.
func (p *Parser) mapTidbError(r rendered, stop Token, err error) error {
	msg := err.Error()
	idx := strings.Index(msg, `near "`)
	if idx < 0 {
		return &pgerr.Error{Code: pgerr.SyntaxError, Message: "syntax error: " + msg, Err: err}
	}
	rest := msg[idx+len(`near "`):]
	off := -1
	if m := strings.Index(msg, "(total length "); m >= 0 {
		if n, convErr := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(msg[m+len("(total length "):]), ")")); convErr == nil {
			off = len(r.text) - n
		}
	}
	if off < 0 {
		off = len(r.text)
		for k, s := range r.starts {
			if strings.HasPrefix(rest, r.text[s:]+`"`) {
				off = r.starts[k]
				break
			}
		}
	}
	var e *pgerr.Error
	if off >= len(r.text) || len(r.toks) == 0 {
		e = SyntaxErrorAt(p.query, stop)
	} else {
		k := sort.SearchInts(r.starts, off+1) - 1
		e = SyntaxErrorAt(p.query, r.toks[max(k, 0)].src)
	}
	e.Err = err
	return e
}

// Expr parses in (the tokens of one expression, followed by stop) as a
// standalone expression.
func (p *Parser) Expr(in []Token, stop Token) (Expr, error) {
	e, err := p.exprTiDB(in, stop)
	if err != nil {
		return nil, err
	}
	return convExpr(e), nil
}

func (p *Parser) exprTiDB(in []Token, stop Token) (ast.ExprNode, error) {
	if len(in) == 0 {
		return nil, SyntaxErrorAt(p.query, stop)
	}
	norm, err := p.normalize(in, stop)
	if err != nil {
		return nil, err
	}
	first := in[0]
	toks := append([]ntok{{text: "select", Kind: TokIdent, src: first}, {text: "(", Kind: TokPunct, src: first}}, norm...)
	toks = append(toks, ntok{text: ")", Kind: TokPunct, src: stop})
	stmts, err := p.tidb(toks, stop)
	if err != nil {
		return nil, err
	}
	sel, ok := singleSelect(stmts)
	if !ok || len(sel.Fields.Fields) != 1 {
		return nil, SyntaxErrorAt(p.query, first)
	}
	switch e := sel.Fields.Fields[0].Expr.(type) {
	case *ast.RowExpr:
		return nil, SyntaxErrorAt(p.query, firstTopLevelComma(in, stop))
	case *ast.ParenthesesExpr:
		return e.Expr, nil
	}
	return nil, SyntaxErrorAt(p.query, first)
}

// Items parses a select list (RETURNING ...).
func (p *Parser) Items(in []Token, stop Token) ([]Field, error) {
	if len(in) == 0 {
		return nil, SyntaxErrorAt(p.query, stop)
	}
	norm, err := p.normalize(in, stop)
	if err != nil {
		return nil, err
	}
	toks := append([]ntok{{text: "select", Kind: TokIdent, src: in[0]}}, norm...)
	stmts, err := p.tidb(toks, stop)
	if err != nil {
		return nil, err
	}
	sel, ok := singleSelect(stmts)
	if !ok || sel.From != nil || sel.Where != nil || sel.GroupBy != nil || sel.OrderBy != nil || sel.Limit != nil {
		return nil, SyntaxErrorAt(p.query, in[0])
	}
	return convSelect(sel).Fields, nil
}

// Queries parses in (a query's tokens, followed by stop) into its
// statements: a query is one *Select or *SetOp; an *OtherQuery stands for
// a statement of another kind.
func (p *Parser) Queries(in []Token, stop Token) ([]Query, error) {
	norm, err := p.normalize(in, stop)
	if err != nil {
		return nil, err
	}
	stmts, err := p.tidb(norm, stop)
	if err != nil {
		return nil, err
	}
	out := make([]Query, len(stmts))
	for i, st := range stmts {
		out[i] = convQuery(st)
	}
	return out, nil
}

// Values parses "VALUES (...), (...)" (in, followed by stop) into its
// rows; DEFAULT stays a *Default.
func (p *Parser) Values(in []Token, stop Token) ([][]Expr, error) {
	norm, err := p.normalize(in, stop)
	if err != nil {
		return nil, err
	}
	head := []ntok{{text: "insert", Kind: TokIdent, src: in[0]}, {text: "into", Kind: TokIdent, src: in[0]},
		{text: "t", Kind: TokIdent, src: in[0]}}
	stmts, err := p.tidb(append(head, norm...), stop)
	if err != nil {
		return nil, err
	}
	is, ok := stmts[0].(*ast.InsertStmt)
	if len(stmts) != 1 || !ok || is.Lists == nil {
		return nil, SyntaxErrorAt(p.query, in[0])
	}
	rows := make([][]Expr, len(is.Lists))
	for i, row := range is.Lists {
		rows[i] = convExprs(row)
	}
	return rows, nil
}

func singleSelect(stmts []ast.StmtNode) (*ast.SelectStmt, bool) {
	if len(stmts) != 1 {
		return nil, false
	}
	sel, ok := stmts[0].(*ast.SelectStmt)
	return sel, ok
}

func firstTopLevelComma(in []Token, stop Token) Token {
	depth := 0
	for _, t := range in {
		switch {
		case t.IsPunct("("):
			depth++
		case t.IsPunct(")"):
			depth--
		case depth == 0 && t.IsPunct(","):
			return t
		}
	}
	return stop
}

// ParseExpr parses one standalone PostgreSQL expression.
func ParseExpr(text string, names Names) (Expr, error) {
	e, err := parseExprTiDB(text, names)
	if err != nil {
		return nil, err
	}
	return convExpr(e), nil
}

// parseExprTiDB is ParseExpr as tidb parsed it.
func parseExprTiDB(text string, names Names) (ast.ExprNode, error) {
	toks, err := Lex(text)
	if err != nil {
		return nil, err
	}
	for _, t := range toks {
		if t.IsPunct(";") {
			return nil, SyntaxErrorAt(text, t)
		}
	}
	p := NewParser(text, DepthForStackKB(DefaultMaxStackDepthKB), names)
	defer p.Release()
	e, err := p.exprTiDB(toks, Token{Kind: TokEOF, Pos: len(text), End: len(text)})
	if err != nil {
		return nil, fmtErr("parse expression", err)
	}
	return e, nil
}

// fmtErr keeps *pgerr.Error values as they are (they carry SQLSTATE and position)
// and wraps anything else with context.
func fmtErr(what string, err error) error {
	var e *pgerr.Error
	if errors.As(err, &e) {
		return err
	}
	return &pgerr.Error{Code: pgerr.InternalError, Message: what + ": " + err.Error(), Err: err}
}

// normalize is normalizeStop with p's names.
func (p *Parser) normalize(in []Token, stop Token) ([]ntok, error) {
	return normalizeStop(p.query, in, stop, p.names)
}
