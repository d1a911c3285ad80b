package repl

import (
	"context"
	"flag"
	"regexp"
	"strings"
	"testing"
)

// formatSampleQueries cover what the formats treat specially: numbers,
// NULL, empty and blank strings, line breaks, the characters CSV, HTML and
// asciidoc escape, wide characters, no rows, record labels of two digits
// beside multi-line headers and values.
var formatSampleQueries = []string{
	`select 1 as id, 'Wolverine' as alias, true as active, null::text as nothing`,
	`select * from (values (1, 'a', null::text), (22, null, 'xyz'), (null, 'bb', '')) v(a, b, c)`,
	`select 1 as a, 'x' as b where false`,
	`select E'a\nbbb' as x, 5 as n, E'p\nq\nr' as "long
header"`,
	`select 'a,b' as "c,d", '"q"' as quote, ' lead' as sp, '\.' as eod, '<&>' as html, 'p|q' as pipe, E'tab\there' as tab, '  ' as blank, 'x;y' as semi`,
	`select '日本語' as jp, 1.5::numeric as n, -2 as neg`,
	`select 42 as only`,
	`select g as i, case g when 3 then E'x\ny' else 'v' end as "two
lines" from generate_series(1, 10) g`,
}

// formatSettings are \pset combinations; each runs every sample query.
var formatSettings = []string{
	`\pset border 0`, `\pset border 2`, `\pset border 3`, `\x`, "\\x\n\\pset border 0", "\\x\n\\pset border 2",
	`\t`, "\\t\n\\x", "\\t\n\\x\n\\pset border 0", "\\t\n\\x\n\\pset border 2", "\\t\n\\pset border 2",
	`\pset footer off`, "\\pset footer off\n\\x", `\pset null '(null)'`, "\\pset null ¤\n\\x",
	`\C 'A title'`, "\\C 'A much wider title than any table here'\n\\pset border 2", "\\C 'T'\n\\x", "\\C 'T'\n\\t",
	`\a`, "\\a\n\\pset fieldsep ','\n\\pset recordsep ';'", "\\a\n\\x", "\\a\n\\x\n\\C 'T'", "\\a\n\\t", "\\a\n\\C 'T'",
	"\\a\n\\pset fieldsep_zero\n\\pset recordsep_zero", "\\a\n\\x\n\\pset recordsep_zero", "\\a\n\\t\n\\x",
	`\pset format csv`, "\\pset format csv\n\\x", "\\pset format csv\n\\t", "\\pset format csv\n\\pset csv_fieldsep ';'",
	"\\pset format csv\n\\pset csv_fieldsep ' '\n\\C 'T'", "\\pset format csv\n\\pset null NULL",
	`\H`, "\\H\n\\x", "\\H\n\\t", "\\H\n\\t\n\\x", "\\H\n\\pset border 2\n\\pset tableattr 'class=\"x\"'", "\\H\n\\C 'a <title>'",
	"\\H\n\\pset border 0\n\\x\n\\C 'T'", "\\H\n\\pset footer off",
	`\pset format asciidoc`, "\\pset format asciidoc\n\\x", "\\pset format asciidoc\n\\t", "\\pset format asciidoc\n\\t\n\\x",
	"\\pset format asciidoc\n\\pset border 0\n\\C 'T'", "\\pset format asciidoc\n\\pset border 2\n\\x",
	"\\x auto\n\\pset columns 20", "\\x auto\n\\pset columns 200", "\\x auto\n\\pset columns 20\n\\pset border 2",
	"\\x auto\n\\pset columns 20\n\\a",
}

// runBoth runs script through psql and through the shell (on the same
// PostgreSQL, with the pager off as the harness has psql) and returns
// their stdout and stderr; psql's "psql:<stdin>:N: error: " prefixes are
// dropped.
func runBoth(t *testing.T, pg *pgHarness, script string, psqlArgs ...string) (want, wantErr, got, gotErr string) {
	t.Helper()
	want, wantErr = pg.psql(t, script, append(psqlArgs, "-f", "-")...)
	wantErr = psqlLogPrefix.ReplaceAllString(wantErr, "")
	var out, errOut strings.Builder
	sh := New(&pgSession{c: pg.connect(t)}, &out, &errOut)
	sh.StopOnError = false
	applyFlags(t, sh, append([]string{"-P", "pager=off"}, psqlArgs...)...)
	sh.RunScript(context.Background(), strings.NewReader(script))
	return want, wantErr, out.String(), errOut.String()
}

var psqlLogPrefix = regexp.MustCompile(`(?m)^psql:<stdin>:\d+: (error: |warning: )?`)

// applyFlags parses args as the repl command's output flags.
func applyFlags(t *testing.T, sh *Shell, args ...string) {
	t.Helper()
	fs := flag.NewFlagSet("repl", flag.ContinueOnError)
	var p PrintFlags
	p.Register(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatalf("flags %q: %v", args, err)
	}
	if err := sh.ApplyPrintFlags(p); err != nil {
		t.Fatalf("ApplyPrintFlags %q: %v", args, err)
	}
}

// Every format psql has prints what psql 15 prints, byte for byte, under
// every combination of border, expanded, tuples-only, title, footer, null
// display and separators above, the \pset messages included.
func TestFormatsMatchPsql(t *testing.T) {
	pg := requirePG(t)
	for _, settings := range formatSettings {
		t.Run(strings.ReplaceAll(settings, "\n", ";"), func(t *testing.T) {
			var script strings.Builder
			script.WriteString(settings + "\n")
			for _, q := range formatSampleQueries {
				script.WriteString(q + ";\n")
			}
			want, wantErr, got, gotErr := runBoth(t, pg, script.String())
			if wantErr != "" || gotErr != "" {
				t.Fatalf("stderr: psql %q, shell %q", wantErr, gotErr)
			}
			if got != want {
				t.Errorf("output differs from psql\n got:\n%s\nwant:\n%s", got, want)
			}
		})
	}
}

// psetScript sets and shows every option psql and the shell share: the
// messages, toggles, aliases, psql's quiet booleans (\t on says nothing),
// atoi numbers, unset strings, the errors and the \pset listing.
const psetScript = `\pset
\pset border 2
\pset border
\pset border x
\pset border 5
\pset columns 80
\pset columns abc
\pset null
\pset null '(nu"ll)'
\pset fieldsep 'a	b'
\pset fieldsep_zero
\pset fieldsep
\pset recordsep_zero
\pset recordsep '\n'
\pset recordsep ';'
\pset tableattr 'class="x"'
\pset tableattr
\pset T
\pset title 'it''s'
\pset
\pset title
\pset expanded auto
\pset x
\pset vertical
\pset expanded
\pset expanded maybe
\x auto
\x on
\x
\x
\x maybe
\pset pager
\pset pager always
\pset pager
\pset pager on
\pset pager off
\pset pager maybe
\pset pager_min_lines 5
\pset pager_min_lines 1
\pset tuples_only
\pset t
\t on
\t
\t off
\t yes
\t maybe
\pset footer
\pset footer
\pset footer off
\pset footer maybe
\pset numericlocale off
\pset linestyle ascii
\pset linestyle a
\pset unicode_border_linestyle double
\pset unicode_column_linestyle d
\pset unicode_header_linestyle s
\pset unicode_header_linestyle x
\pset csv_fieldsep ';'
\pset csv_fieldsep ';;'
\pset csv_fieldsep '"'
\pset csv_fieldsep ''
\pset format
\pset format ALIGNED
\pset format u
\pset format a
\pset format c
\a
\a
\H
\H
\a
\H
\f
\f ;
\C 'a title'
\C
\T 'x'
\T
\x on y
\t on y z
\a b
\pset border 2 3
\pset null a b
\pset foo
\pset
`

func TestPsetMatchesPsql(t *testing.T) {
	pg := requirePG(t)
	want, wantErr, got, gotErr := runBoth(t, pg, psetScript)
	if got != want {
		t.Errorf("stdout differs from psql\n got:\n%s\nwant:\n%s", got, want)
	}
	if gotErr != wantErr {
		t.Errorf("stderr differs from psql\n got:\n%s\nwant:\n%s", gotErr, wantErr)
	}
}

// psql's command-line output options work as in psql: each is a \pset
// applied in order before the script.
func TestPrintFlagsMatchPsql(t *testing.T) {
	pg := requirePG(t)
	script := strings.Join(formatSampleQueries, ";\n") + ";\n\\pset\n"
	for _, args := range [][]string{
		{"-A"}, {"-t"}, {"-A", "-F", ",", "-R", ";"}, {"--csv"}, {"-H"}, {"-x"}, {"-A", "-t", "-x"},
		{"-P", "border=2", "-P", "null=NULL", "-P", "title=T"}, {"-P", "tuples_only"}, {"-A", "-z", "-0"},
		{"--no-align", "--tuples-only", "--field-separator=:", "--record-separator=/"},
		{"--html", "--expanded", "--pset=footer=off"}, {"--csv", "-P", "csv_fieldsep=;"}, {"-x", "-P", "expanded=auto"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			want, wantErr, got, gotErr := runBoth(t, pg, script, args...)
			if wantErr != "" || gotErr != "" {
				t.Fatalf("stderr: psql %q, shell %q", wantErr, gotErr)
			}
			if got != want {
				t.Errorf("output differs from psql\n got:\n%s\nwant:\n%s", got, want)
			}
		})
	}
}
