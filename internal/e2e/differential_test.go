package e2e

import (
	"fmt"
	"strings"
	"testing"

	"github.com/magmalake/magmalake/internal/pgtest"
	"github.com/magmalake/magmalake/wire"
)

// A differential test runs one client program, a deterministic script of
// what users do with a driver that prints every value with its driver-side
// type, against magmalake and against PostgreSQL 15, and compares the two
// outputs line by line. PostgreSQL's output is the expectation; nothing is
// written down by hand. What magmalake does differently on purpose, or
// cannot fix here, is left out of the programs with a comment saying why.

// diffTarget is one server a differential program connects to, over TCP,
// to a database named e2e.
type diffTarget struct {
	Name, Host, Port, User string
}

func (d diffTarget) Addr() string { return d.Host + ":" + d.Port }

// env passes the target to a client program, with the table-name prefix.
func (d diffTarget) env(table string) []string {
	return []string{"E2E_HOST=" + d.Host, "E2E_PORT=" + d.Port, "E2E_USER=" + d.User, "E2E_PASSWORD=",
		"E2E_DB=e2e", "E2E_TABLE=" + table, "TZ=UTC", "PGTZ=UTC"}
}

// diffTargets starts a fresh magmalake (trust) and a PostgreSQL 15 cluster
// listening on TCP with an empty database e2e.
func diffTargets(t *testing.T) (ml, pg diffTarget) {
	t.Helper()
	cl := pgtest.StartWith(t, pgtest.Options{TCP: true})
	cl.CreateDatabase(t, "e2e")
	s := startServer(t, wire.AuthTrust)
	ml = diffTarget{Name: "magmalake", Host: s.host(), Port: s.port(), User: testUser}
	pg = diffTarget{Name: "PostgreSQL", Host: "127.0.0.1", Port: fmt.Sprint(cl.Port), User: "postgres"}
	return ml, pg
}

// differential runs program against both targets and compares.
func differential(t *testing.T, program func(t *testing.T, d diffTarget) string) {
	t.Helper()
	ml, pg := diffTargets(t)
	want := program(t, pg)
	got := program(t, ml)
	compareOutputs(t, got, want)
}

// compareOutputs fails t with a diff when magmalake's output (got) is not
// PostgreSQL's (want), and logs how many lines were compared.
func compareOutputs(t *testing.T, got, want string) {
	t.Helper()
	g, w := outputLines(got), outputLines(want)
	if len(w) < 2 {
		t.Fatalf("PostgreSQL's output is too short to compare anything:\n%s", want)
	}
	if d := lineDiff(w, g); d != "" {
		t.Fatalf("magmalake (+) differs from PostgreSQL 15 (-) on the same program:\n%s", d)
	}
	t.Logf("%d lines the same on magmalake and PostgreSQL 15", len(w))
}

func outputLines(s string) []string {
	if s = strings.TrimRight(s, "\n"); s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// lineDiff is a unified-style diff of a (-) and b (+) with two lines of
// context around each change, "" when they are equal.
func lineDiff(a, b []string) string {
	// lcs[i][j] is the length of the longest common subsequence of a[i:], b[j:].
	lcs := make([][]int, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	type op struct {
		kind byte // ' ', '-', '+'
		line string
		at   int // line number in a (or b for '+')
	}
	var ops []op
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j]:
			ops = append(ops, op{' ', a[i], i + 1})
			i, j = i+1, j+1
		case i < len(a) && (j == len(b) || lcs[i+1][j] >= lcs[i][j+1]):
			ops = append(ops, op{'-', a[i], i + 1})
			i++
		default:
			ops = append(ops, op{'+', b[j], j + 1})
			j++
		}
	}
	const context = 2
	var out strings.Builder
	last := -1 // index of the last op written
	for k, o := range ops {
		if o.kind == ' ' {
			continue
		}
		from := max(k-context, last+1)
		if last >= 0 && from > last+1 {
			out.WriteString("...\n")
		}
		for c := from; c < k; c++ {
			fmt.Fprintf(&out, "  %d  %s\n", ops[c].at, ops[c].line)
		}
		fmt.Fprintf(&out, "%c %d  %s\n", o.kind, o.at, o.line)
		last = k
		for c := k + 1; c < len(ops) && c <= k+context && ops[c].kind == ' '; c++ {
			fmt.Fprintf(&out, "  %d  %s\n", ops[c].at, ops[c].line)
			last = c
		}
	}
	return out.String()
}
