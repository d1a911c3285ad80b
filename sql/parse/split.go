package parse

import "strings"

// Split cuts a simple-query string into its statements by PostgreSQL's
// lexical rules. Empty statements (only whitespace, comments or semicolons)
// are dropped. Each statement runs from its first to its last token.
func Split(query string) ([]string, error) {
	if st, ok := plainStatement(query); ok {
		return []string{st}, nil
	}
	spans, err := SplitTokens(query, 0)
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(spans))
	for _, s := range spans {
		out = append(out, s.text(query))
	}
	return out, nil
}

// stmtSpan is one statement's tokens within the full query, plus the token
// that ends it (the ';', or a TokEOF at the end of the query), which is where
// "end of statement" syntax errors point.
type Span struct {
	Toks []Token
	Stop Token
}

func (s Span) text(query string) string {
	return strings.TrimSpace(query[s.Toks[0].Pos:s.Toks[len(s.Toks)-1].End])
}

// SplitTokens lexes query (refusing expressions nested past maxDepth, 0: no
// limit) and cuts its tokens into statements.
func SplitTokens(query string, maxDepth int) ([]Span, error) {
	toks, err := lexLimited(query, maxDepth)
	if err != nil {
		return nil, err
	}
	var spans []Span
	begin := 0
	for i, t := range toks {
		if !t.IsPunct(";") {
			continue
		}
		if i > begin {
			spans = append(spans, Span{Toks: toks[begin:i], Stop: t})
		}
		begin = i + 1
	}
	if begin < len(toks) {
		spans = append(spans, Span{Toks: toks[begin:], Stop: Token{Kind: TokEOF, Pos: len(query), End: len(query)}})
	}
	return spans, nil
}

// plainStatement is the one statement of a query that needs no lexing to
// split: printable ASCII without quotes, comments, dollar signs or inner
// semicolons (what clients repeat most, e.g. "SELECT 1;"). ok is false
// when the full lexer must decide.
func plainStatement(query string) (string, bool) {
	end := len(query)
	for end > 0 && (query[end-1] == ';' || isPlainSpace(query[end-1])) {
		end--
	}
	start := 0
	for start < end && isPlainSpace(query[start]) {
		start++
	}
	if start == end {
		return "", false
	}
	for i := start; i < end; i++ {
		if !isPlainByte(query[i]) {
			return "", false
		}
	}
	return query[start:end], true
}

func isPlainSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// isPlainByte reports a byte that lexes the same wherever it appears and
// cannot start a quote, comment or statement break.
func isPlainByte(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return isPlainSpace(c) || strings.IndexByte("_(),.:*+=<>", c) >= 0
}
