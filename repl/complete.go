package repl

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/magmalake/magmalake/stmt"
)

// completeKeywords are the words offered where no name is expected.
var completeKeywords = []string{
	"ALTER", "AND", "AS", "ASC", "BEGIN", "BETWEEN", "BY", "CASE", "COMMIT", "COPY", "CREATE", "CROSS",
	"DELETE", "DESC", "DESCRIBE", "DISTINCT", "DROP", "ELSE", "END", "EXECUTE", "EXISTS", "EXPLAIN",
	"FALSE", "FROM", "FULL", "GROUP", "HAVING", "IN", "INNER", "INSERT", "INTERSECT", "INTO", "IS",
	"JOIN", "LEFT", "LIKE", "LIMIT", "MERGE", "NOT", "NULL", "OFFSET", "ON", "OR", "ORDER", "OUTER",
	"OVERWRITE", "PARTITIONED", "RESET", "RETURNING", "RIGHT", "ROLLBACK", "SCHEMA", "SELECT", "SET",
	"SHOW", "TABLE", "THEN", "TRUE", "TRUNCATE", "UNION", "UPDATE", "USING", "VACUUM", "VALUES",
	"WHEN", "WHERE", "WITH",
}

// completeTimeout bounds the catalog queries a Tab press makes.
const completeTimeout = 2 * time.Second

var (
	tableAfter   = regexp.MustCompile(`(?i)\b(from|join|into|update|table|describe|truncate)\s+$|^\\d\+?\s+$`)
	settingAfter = regexp.MustCompile(`(?i)\b(set|reset|show)\s+$`)
	fileCommand  = regexp.MustCompile(`(?i)^\\(copy\b.*\b(from|to)|i|ir|include|include_relative|o|out|g)\s+'?$`)
	tablesNamed  = regexp.MustCompile(`(?i)\b(?:from|join|update|into)\s+([A-Za-z_][\w.]*)`)
)

// Complete is liner's word completer: line up to pos is cut at the word
// being typed, which is completed by what fits where it stands: file
// names after \copy ... FROM/TO, \i, \o and \g; settings after SET, RESET
// and SHOW; schemas and tables after FROM, JOIN, INTO, UPDATE, TABLE and
// \d (and "t$..." metadata tables once a quote and a name are typed);
// elsewhere keywords and the columns of the tables the line names.
func (sh *Shell) Complete(line string, pos int) (head string, completions []string, tail string) {
	return sh.cat.complete(line, pos)
}

func (cat *catalog) complete(line string, pos int) (head string, completions []string, tail string) {
	pos = min(max(pos, 0), len(line))
	start := pos
	for start > 0 && !strings.ContainsRune(" \t(,=<>'", rune(line[start-1])) {
		start--
	}
	head, word, tail := line[:start], line[start:pos], line[pos:]
	ctx, cancel := context.WithTimeout(context.Background(), completeTimeout)
	defer cancel()
	var cands []string
	switch before := strings.TrimRight(head, "'"); {
	case fileCommand.MatchString(strings.TrimLeft(head, " \t")):
		cands = completeFiles(word)
	case settingAfter.MatchString(before):
		cands = cat.catalogColumn(ctx, "SELECT name FROM pg_settings")
	case tableAfter.MatchString(strings.TrimLeft(before, " \t")):
		cands = cat.tableNames(ctx, word)
	default:
		cands = append(keywordsLike(word), cat.columnsOf(ctx, line)...)
	}
	for _, c := range cands {
		if strings.HasPrefix(strings.ToLower(c), strings.ToLower(word)) && !slices.Contains(completions, c) {
			completions = append(completions, c)
		}
	}
	slices.Sort(completions)
	return head, completions, tail
}

// keywordsLike are the keywords in the case word is typed in.
func keywordsLike(word string) []string {
	if word != strings.ToLower(word) || word == "" {
		return completeKeywords
	}
	out := make([]string, len(completeKeywords))
	for i, k := range completeKeywords {
		out[i] = strings.ToLower(k)
	}
	return out
}

// tableNames are the schemas (with their dot) and tables word may start,
// and the metadata tables of table "t once word is "t$ or "t .
func (cat *catalog) tableNames(ctx context.Context, word string) []string {
	if q := strings.TrimPrefix(word, `"`); q != word {
		base, _, _ := strings.Cut(q, "$")
		var out []string
		for _, kind := range cat.metaKinds() {
			out = append(out, `"`+base+"$"+kind+`"`)
		}
		return out
	}
	if schema, _, ok := strings.Cut(word, "."); ok {
		var out []string
		for _, r := range cat.catalogRows(ctx, "SHOW TABLES FROM "+schema) {
			out = append(out, schema+"."+r[1])
		}
		return out
	}
	var out []string
	for _, r := range cat.catalogRows(ctx, "SHOW TABLES") {
		out = append(out, r[1])
	}
	for _, s := range cat.catalogColumn(ctx, "SHOW SCHEMAS") {
		out = append(out, s+".")
	}
	return out
}

// columnsOf are the column names of the tables line names after FROM,
// JOIN, UPDATE or INTO.
func (cat *catalog) columnsOf(ctx context.Context, line string) []string {
	var out []string
	for _, m := range tablesNamed.FindAllStringSubmatch(line, -1) {
		for _, r := range cat.catalogRows(ctx, "DESCRIBE "+m[1]) {
			out = append(out, r[0])
		}
	}
	return out
}

func (cat *catalog) catalogColumn(ctx context.Context, q string) []string {
	var out []string
	for _, r := range cat.catalogRows(ctx, q) {
		out = append(out, r[0])
	}
	return out
}

// catalogRows runs a completion query; a failure offers nothing.
func (cat *catalog) catalogRows(ctx context.Context, q string) [][]string {
	if cat.sess.TxStatus() != stmt.TxIdle {
		return nil // a failing query would abort the user's block
	}
	rows, err := cat.queryText(ctx, q)
	if err != nil {
		return nil
	}
	return rows
}

// completeFiles are the files and directories (with their slash) word
// may start.
func completeFiles(word string) []string {
	matches, _ := filepath.Glob(word + "*")
	for i, m := range matches {
		if fi, err := os.Stat(m); err == nil && fi.IsDir() {
			matches[i] = m + string(filepath.Separator)
		}
	}
	return matches
}
