package parse

import (
	"fmt"

	"github.com/pingcap/tidb/pkg/parser"
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/mysql"
)

// InternalExpr parses one expression written directly in the front end's
// internal form (__param(n), __cast(x, 'T'), ...), as tests write them.
func InternalExpr(text string) (Expr, error) {
	p := parser.New()
	p.SetSQLMode(mysql.ModeANSIQuotes | mysql.ModeNoBackslashEscapes | mysql.ModePipesAsConcat)
	st, err := p.ParseOneStmt("SELECT "+text, "", "")
	if err != nil {
		return nil, fmt.Errorf("parse %q: %w", text, err)
	}
	sel, ok := st.(*ast.SelectStmt)
	if !ok || sel.Fields == nil || len(sel.Fields.Fields) != 1 {
		return nil, fmt.Errorf("parse %q: not one expression", text)
	}
	return convExpr(sel.Fields.Fields[0].Expr), nil
}
