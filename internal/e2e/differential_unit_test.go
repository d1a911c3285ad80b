package e2e

import "testing"

func TestLineDiff(t *testing.T) {
	for _, c := range []struct{ a, b, want string }{
		{"x\ny", "x\ny", ""},
		{"a\nb\nc\nd\ne\nf", "a\nb\nC\nd\ne\nf", "  1  a\n  2  b\n- 3  c\n+ 3  C\n  4  d\n  5  e\n"},
		{"a", "", "- 1  a\n"},
		{"1\n2\n3\n4\n5\n6\n7\n8", "0\n1\n2\n3\n4\n5\n6\n7", "+ 1  0\n  1  1\n  2  2\n...\n  6  6\n  7  7\n- 8  8\n"},
	} {
		if got := lineDiff(outputLines(c.a), outputLines(c.b)); got != c.want {
			t.Errorf("lineDiff(%q, %q):\n%s\nwant:\n%s", c.a, c.b, got, c.want)
		}
	}
}
