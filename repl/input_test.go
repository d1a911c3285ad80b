package repl

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// inputFragments are pieces of psql input with every lexical trap the
// scanner knows: literals, escapes, dollar quotes, comments, parentheses,
// semicolons inside and outside them.
var inputFragments = []string{
	"select", " ", "\n", ";", "(", ")", "'a;b'", "'it''s'", "E'x\\'y'", "e'\\\\'", "\"q;\"", "$$a;b$$",
	"$t$ $$; $t$", "$1", "a$b", "-- c; ", "/* x; /* y */ ; */", "1", "'", "\"", "$$", "/*", "*/", "E", "'\n'",
	"\t", "values (1, 'x')", ",", "--\n",
}

// rescanModel is how input was cut before inputBuffer: the whole pending
// text scanned again for every line, dropped when only blanks and
// comments are left.
type rescanModel struct{ pending string }

func (m *rescanModel) add(text string) []string {
	res := scanStatements(m.pending + text)
	m.pending = res.rest
	if !res.restHasToken && res.state == lexNormal {
		m.pending = ""
	}
	return res.stmts
}

// TestInputBufferMatchesRescan: input fed line by line yields the same
// statements, pending text, prompt state and end-of-input statement as
// scanning the whole pending text again for every line, on 3,000
// generated inputs.
func TestInputBufferMatchesRescan(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for n := range 3000 {
		var src strings.Builder
		for range 1 + rng.IntN(40) {
			src.WriteString(inputFragments[rng.IntN(len(inputFragments))])
		}
		var b inputBuffer
		var m rescanModel
		var got, want []string
		for _, line := range strings.SplitAfter(src.String()+"\n", "\n") {
			if line == "" {
				continue
			}
			got = append(got, b.add(line)...)
			want = append(want, m.add(line)...)
			wantState := lexNormal
			if m.pending != "" {
				wantState = scanStatements(m.pending).state
			}
			if !slices.Equal(got, want) || b.String() != m.pending || b.lexState() != wantState ||
				b.hasToken() != scanStatements(m.pending).restHasToken {
				t.Fatalf("input %d %q, after line %q:\n got  %q pending %q state %c\n want %q pending %q state %c",
					n, src.String(), line, got, b.String(), b.lexState(), want, m.pending, wantState)
			}
		}
	}
}

// TestInputBufferResumes: a long statement fed line by line is scanned
// from where the previous line's scan stopped, not from its start.
func TestInputBufferResumes(t *testing.T) {
	var b inputBuffer
	b.add("INSERT INTO t VALUES\n")
	for i := range 1000 {
		if stmts := b.add("(1, 'x'),\n"); len(stmts) != 0 {
			t.Fatalf("line %d completed %q", i, stmts)
		}
		if b.scanned != len(b.buf) {
			t.Fatalf("line %d: scanned %d of %d bytes: the next line would scan the rest again", i, b.scanned, len(b.buf))
		}
	}
	if stmts := b.add("(2, 'y');\n"); len(stmts) != 1 || !strings.HasSuffix(stmts[0], "(2, 'y');") || !b.empty() {
		t.Fatalf("the last line gave %d statements, buffer %q", len(stmts), b.String())
	}
}
