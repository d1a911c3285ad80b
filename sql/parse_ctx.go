package sql

import "github.com/magmalake/magmalake/sql/parse"

// parseCtx holds what parsing one query needs: the original text (for error
// positions) and the parser of its expressions and queries. It dispatches
// each statement to the parser of its family (selectParser, dmlParser,
// ddlParser, sessionParser), which embed it.
type parseCtx struct {
	query string
	tp    *parse.Parser
}

func newParseCtx(query string, maxDepth int) *parseCtx {
	return &parseCtx{query: query, tp: parse.NewParser(query, maxDepth, registryNames{})}
}

// release returns the parser's resources; p must not parse again.
func (p *parseCtx) release() { p.tp.Release() }

// expr parses in (tokens of one expression, followed by stop).
func (p *parseCtx) expr(in []parse.Token, stop parse.Token) (parse.Expr, error) {
	return p.tp.Expr(in, stop)
}

// exprSyntax is expr as Syntax.
func (p *parseCtx) exprSyntax(in []parse.Token, stop parse.Token) (Syntax, error) {
	e, err := p.expr(in, stop)
	return syntaxOf(e), err
}

// items parses a select list (RETURNING ...).
func (p *parseCtx) items(in []parse.Token, stop parse.Token) ([]SelectItem, error) {
	fields, err := p.tp.Items(in, stop)
	if err != nil {
		return nil, err
	}
	return selectItems(fields), nil
}

func selectItems(fields []parse.Field) []SelectItem {
	if fields == nil {
		return nil
	}
	items := make([]SelectItem, 0, len(fields))
	for _, f := range fields {
		if f.Star {
			items = append(items, SelectItem{Star: true, StarQualifier: f.StarOf})
			continue
		}
		items = append(items, SelectItem{Expr: syntaxOf(f.Expr), Alias: f.Alias})
	}
	return items
}

// registryNames tells the normaliser the type names and aggregates this
// package defines.
type registryNames struct{}

func (registryNames) IsTypeName(name string) bool {
	_, err := ParseTypeName(name)
	return err == nil
}

func (registryNames) IsAggregate(name string) bool {
	f := functions[name]
	return f != nil && f.Kind == AggregateFunc
}

// parseExpr parses one standalone PostgreSQL expression.
func parseExpr(text string) (parse.Expr, error) { return parse.ParseExpr(text, registryNames{}) }
