package repl

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/magmalake/magmalake/stmt"
)

// printer is the shell's output side: where results, messages and errors
// go (\o sends results to a file) and how a result is laid out (\pset's
// settings, expanded display, VERBOSITY).
type printer struct {
	out       io.Writer      // results, tags, timing; \o's file while a statement runs
	stdout    io.Writer      // out between statements
	errOut    io.Writer      // errors and notices
	qfile     *os.File       // \o's file, nil for standard output
	opts      *printSettings // \pset's settings, nil until first used
	expanded  bool           // \x on (or \gx running)
	verbosity Verbosity      // \set VERBOSITY: how much of an error to show
}

// printRows prints a query result as the output settings ask.
func (pr *printer) printRows(ctx context.Context, res *stmt.Result, style resultStyle) error {
	t, err := collectTable(ctx, res.Columns, res.Rows)
	if err != nil {
		return err
	}
	if err := pr.printTable(t, style); err != nil {
		return err
	}
	// psql follows a RETURNING result with the command's own tag.
	if tag := res.CommandTag(); hasTagPrefix(tag, "INSERT", "UPDATE", "DELETE", "MERGE") {
		fmt.Fprintln(pr.out, tag)
	}
	return nil
}

// printTable prints a collected result with a backslash command's title
// (else \pset title) and footer.
func (pr *printer) printTable(t *table, style resultStyle) error {
	ps := pr.settings()
	t.title, t.footer = ps.title.text, !style.noFooter && ps.footer
	if style.title != "" {
		t.title = style.title
	}
	var b bytes.Buffer
	ps.render(&b, t, pr.expandedMode(), pr.outputColumns())
	if err := pr.emit(b.Bytes(), t); err != nil {
		return fmt.Errorf("print result: %w", err)
	}
	return nil
}

// settings returns the output settings, psql's defaults at first.
func (pr *printer) settings() *printSettings {
	if pr.opts == nil {
		pr.opts = defaultSettings()
	}
	return pr.opts
}

// psetShorthands are the commands that set one \pset option.
var psetShorthands = map[string]string{
	`\x`: "expanded", `\t`: "tuples_only", `\f`: "fieldsep", `\C`: "title", `\T`: "tableattr",
}

// metaOutput runs the backslash commands of output formatting (\pset, \x,
// \t, \a, \f, \H, \C, \T); handled is false for other commands.
func (pr *printer) metaOutput(cmd string, args []string) (handled bool, err error) {
	switch cmd {
	case `\pset`:
		return true, pr.metaPset(args)
	case `\a`, `\H`:
		// \a is aligned to unaligned and anything else to aligned; \H is
		// html and back to aligned.
		defer pr.warnExtra(cmd, args)
		format, target := pr.settings().format, "aligned"
		switch {
		case cmd == `\a` && format == "aligned":
			target = "unaligned"
		case cmd == `\H` && format != "html":
			target = "html"
		}
		return true, pr.runPset("format", &target)
	}
	name, ok := psetShorthands[cmd]
	if !ok {
		return false, nil
	}
	var value *string
	if len(args) > 0 {
		value = &args[0]
		defer pr.warnExtra(cmd, args[1:])
	}
	return true, pr.runPset(name, value)
}

// metaPset is \pset [NAME [VALUE]].
func (pr *printer) metaPset(args []string) error {
	if len(args) == 0 {
		fmt.Fprint(pr.out, pr.psetList())
		return nil
	}
	var value *string
	if len(args) > 1 {
		value = &args[1]
		defer pr.warnExtra(`\pset`, args[2:])
	}
	return pr.runPset(args[0], value)
}

// runPset sets an option and says so on standard output; a bad one is an
// error on standard error.
func (pr *printer) runPset(name string, value *string) error {
	msg, err := pr.pset(name, value)
	switch {
	case errors.Is(err, errSilent):
	case err != nil:
		fmt.Fprintln(pr.errOut, err)
		return ErrFailed
	default:
		fmt.Fprintln(pr.out, msg)
	}
	return nil
}

// warnExtra is psql's warning for arguments a command does not take.
func (pr *printer) warnExtra(cmd string, extra []string) {
	for _, a := range extra {
		fmt.Fprintf(pr.errOut, "%s: extra argument \"%s\" ignored\n", cmd, a)
	}
}

// printError prints a failure as psql does, with stmt's caret.
func (pr *printer) printError(err error, stmt string) {
	io.WriteString(pr.errOut, formatError(asSQLError(err), stmt, pr.verbosity))
}

// printNotices prints NOTICEs and WARNINGs as psql does.
func (pr *printer) printNotices(ns []stmt.Notice) {
	for _, n := range ns {
		fmt.Fprintf(pr.errOut, "%s:  %s\n", n.Severity, n.Message)
	}
}

// toggle flips a boolean setting or sets it from on/off, and says so as psql
// does ("Expanded display is on.").
func (pr *printer) toggle(v *bool, args []string, what string) error {
	if len(args) == 0 {
		*v = !*v
	} else {
		switch strings.ToLower(args[0]) {
		case "on", "true", "yes", "1":
			*v = true
		case "off", "false", "no", "0":
			*v = false
		default:
			fmt.Fprintf(pr.errOut, "unrecognized value \"%s\" for \"%s\": Boolean expected\n", args[0], strings.ToLower(what))
			return ErrFailed
		}
	}
	state := "off"
	if *v {
		state = "on"
	}
	fmt.Fprintf(pr.out, "%s is %s.\n", what, state)
	return nil
}

// queryOut is where query results go: \o's file, else standard output.
func (pr *printer) queryOut() io.Writer {
	if pr.qfile != nil {
		return pr.qfile
	}
	return pr.stdout
}

// setQueryOut is \o [file]: results to the file from now on, or back to
// standard output.
func (pr *printer) setQueryOut(args []string) error {
	if pr.qfile != nil {
		pr.qfile.Close()
		pr.qfile = nil
	}
	if len(args) == 0 {
		return nil
	}
	f, err := os.Create(args[0])
	if err != nil {
		fmt.Fprintf(pr.errOut, "%s: %v\n", args[0], pathErr(err))
		return ErrFailed
	}
	pr.qfile = f
	return nil
}

// PrintFlags are the command line's output options (psql's -A, -t, -F,
// -R, --csv, -H, -x, -P ...), registered on the repl command's flag set.
// They are \pset settings applied in command-line order.
type PrintFlags struct {
	psets []psetArg
}

type psetArg struct {
	name  string
	value *string
}

// Register adds the output options to fs, under psql's short and long
// names.
func (p *PrintFlags) Register(fs *flag.FlagSet) {
	fixed := func(names, usage, option, value string) {
		for _, n := range strings.Fields(names) {
			fs.BoolFunc(n, usage, func(string) error {
				p.psets = append(p.psets, psetArg{option, &value})
				return nil
			})
		}
	}
	valued := func(names, usage, option string) {
		for _, n := range strings.Fields(names) {
			fs.Func(n, usage, func(v string) error {
				p.psets = append(p.psets, psetArg{option, &v})
				return nil
			})
		}
	}
	fixed("A no-align", "unaligned output (\\pset format unaligned)", "format", "unaligned")
	fixed("t tuples-only", "print rows only (\\pset tuples_only on)", "tuples_only", "on")
	fixed("csv", "CSV output (\\pset format csv)", "format", "csv")
	fixed("H html", "HTML table output (\\pset format html)", "format", "html")
	fixed("x expanded", "expanded output (\\pset expanded on)", "expanded", "on")
	fixed("z field-separator-zero", "unaligned fields separated by a zero byte", "fieldsep_zero", "on")
	fixed("0 record-separator-zero", "unaligned records separated by a zero byte", "recordsep_zero", "on")
	valued("F field-separator", "field separator of unaligned output (default |)", "fieldsep")
	valued("R record-separator", "record separator of unaligned output (default newline)", "recordsep")
	fs.Func("P", "NAME[=VALUE]: set an output option, as \\pset does (repeatable)", p.addPset)
	fs.Func("pset", "the same as -P", p.addPset)
}

// addPset is -P name[=value]; without a value the option toggles.
func (p *PrintFlags) addPset(s string) error {
	name, value, ok := strings.Cut(s, "=")
	arg := psetArg{name: name}
	if ok {
		arg.value = &value
	}
	p.psets = append(p.psets, arg)
	return nil
}

// ApplyPrintFlags makes the parsed options the shell's output settings,
// quietly, as psql applies its command line.
func (sh *Shell) ApplyPrintFlags(p PrintFlags) error {
	for _, a := range p.psets {
		if _, err := sh.pr.pset(a.name, a.value); err != nil && !errors.Is(err, errSilent) {
			return err
		}
	}
	return nil
}
