package repl

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/stmt"
)

// copyFeed is a COPY ... FROM STDIN the shell feeds from its own input:
// the lines after the statement, up to a line holding only \. (or the end
// of input), as psql sends a script's inline data.
type copyFeed struct {
	stmt   string
	load   *stmt.CopyStream
	queued []string // statements after the COPY on its line, run after it
}

// copyPrompt is what psql shows before reading COPY data from a terminal.
const copyPrompt = "Enter data to be copied followed by a newline.\nEnd with a backslash and a period on a line by itself, or an EOF signal."

// startCopyIn starts loading in's data from the following input lines.
// The load outlives the statement's context (its line).
func (sh *Shell) startCopyIn(ctx context.Context, in *stmt.CopyIn, stmt string) {
	sh.copy = &copyFeed{stmt: stmt, load: in.Start(context.WithoutCancel(ctx))}
	if sh.Interactive {
		fmt.Fprintln(sh.pr.out, copyPrompt)
	}
}

// feedCopy passes one data line on, or ends the data at \. . Once the
// loader has stopped (a bad row) the rest is read and dropped.
func (sh *Shell) feedCopy(ctx context.Context, line string) error {
	if line == `\.` {
		return sh.endCopy(ctx)
	}
	_, _ = io.WriteString(sh.copy.load, line+"\n") // a stopped loader reports its error at the end
	return nil
}

// endCopy closes the data, reports the loader's outcome and runs what
// followed the COPY on its line.
func (sh *Shell) endCopy(ctx context.Context) error {
	f := sh.copy
	sh.copy = nil
	n, err := f.load.Finish()
	var failed error
	if err != nil {
		sh.pr.printError(err, f.stmt)
		failed = ErrFailed
	} else {
		fmt.Fprintf(sh.pr.out, "COPY %d\n", n)
	}
	if failed != nil && sh.StopOnError {
		return failed
	}
	for i, stmt := range f.queued {
		if err := sh.runStatement(ctx, stmt); err != nil {
			failed = err
			if sh.StopOnError {
				return err
			}
		}
		if sh.copy != nil { // another COPY FROM STDIN: the rest waits for it
			sh.copy.queued = f.queued[i+1:]
			break
		}
	}
	return failed
}

// writeCopyOut writes a COPY ... TO STDOUT result to w in its layout and
// returns the row count.
func writeCopyOut(ctx context.Context, w io.Writer, res *stmt.Result) (int64, error) {
	if raw, ok := res.Rows.(copyDataWriter); ok {
		return raw.WriteCopyData(ctx, w)
	}
	enc := stmt.NewCopyEncoder(res)
	var line []byte
	if enc.Header() {
		if _, err := w.Write(enc.AppendHeader(line[:0])); err != nil {
			return 0, err
		}
	}
	var n int64
	for {
		b, err := res.Rows.Next(ctx)
		if errors.Is(err, io.EOF) {
			return n, nil
		}
		if err != nil {
			return n, err
		}
		for r := 0; r < int(b.NumRows()); r++ {
			line = enc.AppendRow(line[:0], b, r)
			if _, err := w.Write(line); err != nil {
				return n, err
			}
			n++
		}
	}
}

// copyDataWriter is COPY TO STDOUT data a server has already laid out
// (repl/remote): written as it arrives instead of encoded from rows.
type copyDataWriter interface {
	WriteCopyData(ctx context.Context, w io.Writer) (int64, error)
}

// copyCommand is a \copy line taken apart: the server statement with
// STDIN or STDOUT in place of the file, and where the data goes.
type copyCommand struct {
	stmt  string
	from  bool
	file  string // "" for the shell's own input or output
	input string // the command as typed, for messages
}

// parseCopyCommand reads `\copy table [(cols)] | (query) FROM|TO
// 'file' | file | stdin | stdout | pstdin | pstdout [options]`.
func parseCopyCommand(args string) (copyCommand, error) {
	c := copyCommand{input: `\copy ` + args}
	toks := copyTokens(args)
	depth := 0
	for i, t := range toks {
		switch {
		case t.text == "(":
			depth++
		case t.text == ")":
			depth--
		case depth == 0 && i > 0 && (strings.EqualFold(t.text, "from") || strings.EqualFold(t.text, "to")):
			return c.finish(args, toks, i)
		}
	}
	return c, pgerr.Errorf(pgerr.SyntaxError, `\copy: parse error at end of line`)
}

func (c copyCommand) finish(args string, toks []copyToken, dir int) (copyCommand, error) {
	c.from = strings.EqualFold(toks[dir].text, "from")
	if dir+1 >= len(toks) {
		return c, pgerr.Errorf(pgerr.SyntaxError, `\copy: parse error at end of line`)
	}
	target := toks[dir+1]
	switch name := strings.ToLower(target.text); {
	case target.quoted:
		c.file = target.value
	case name == "program":
		return c, pgerr.Errorf(pgerr.FeatureNotSupported, `\copy ... PROGRAM is not supported`)
	case name == "stdin" || name == "pstdin" || name == "stdout" || name == "pstdout":
		if (name == "stdin" || name == "pstdin") != c.from {
			return c, pgerr.Errorf(pgerr.SyntaxError, `\copy: parse error at "%s"`, target.text)
		}
	default:
		c.file = target.text // psql takes a bare word as a file name
	}
	stream := "STDOUT"
	if c.from {
		stream = "STDIN"
	}
	c.stmt = "COPY " + args[:toks[dir].start] + toks[dir].text + " " + stream + args[target.end:]
	return c, nil
}

// copyToken is one word, quoted string or parenthesis of a \copy line.
type copyToken struct {
	text, value string // value: a quoted string's contents
	quoted      bool
	start, end  int
}

func copyTokens(s string) []copyToken {
	var out []copyToken
	for i := 0; i < len(s); {
		switch c := s[i]; {
		case c == ' ' || c == '\t':
			i++
		case c == '(' || c == ')' || c == ',':
			out = append(out, copyToken{text: s[i : i+1], start: i, end: i + 1})
			i++
		case c == '\'' || c == '"':
			j, val := quotedEnd(s, i)
			out = append(out, copyToken{text: s[i:j], value: val, quoted: c == '\'', start: i, end: j})
			i = j
		default:
			j := i
			for j < len(s) && !strings.ContainsRune(" \t(),'\"", rune(s[j])) {
				j++
			}
			out = append(out, copyToken{text: s[i:j], start: i, end: j})
			i = j
		}
	}
	return out
}

// quotedEnd is the end of the literal opened at s[i] and its contents
// (doubled quotes undone).
func quotedEnd(s string, i int) (int, string) {
	q := s[i]
	var b strings.Builder
	for j := i + 1; j < len(s); j++ {
		if s[j] != q {
			b.WriteByte(s[j])
			continue
		}
		if j+1 < len(s) && s[j+1] == q {
			b.WriteByte(q)
			j++
			continue
		}
		return j + 1, b.String()
	}
	return len(s), b.String()
}

// copier is \copy: the server's COPY, with the file read or written by
// the shell.
type copier struct {
	sess Session
	pr   *printer
	// startCopyIn feeds a COPY FROM STDIN from the shell's next input lines
	// (Shell.startCopyIn): \copy ... FROM stdin.
	startCopyIn func(ctx context.Context, in *stmt.CopyIn, stmt string)
}

// metaCopy runs \copy: the server's COPY with the file read or written
// here, by the shell, as psql does.
func (cp *copier) metaCopy(ctx context.Context, args string) error {
	c, err := parseCopyCommand(strings.TrimSpace(args))
	if err != nil {
		cp.pr.printError(err, "")
		return ErrFailed
	}
	if err := cp.runCopy(ctx, c); err != nil {
		cp.pr.printError(err, c.stmt)
		return ErrFailed
	}
	return nil
}

func (cp *copier) runCopy(ctx context.Context, c copyCommand) error {
	p, err := cp.sess.Prepare(ctx, c.stmt, nil)
	if err != nil {
		return err
	}
	res, err := cp.sess.Execute(ctx, p, nil)
	if err != nil {
		return err
	}
	switch {
	case c.from && res.CopyIn != nil && c.file == "":
		cp.startCopyIn(ctx, res.CopyIn, c.stmt)
		return nil
	case c.from && res.CopyIn != nil:
		return cp.copyFromFile(ctx, res.CopyIn, c.file)
	case !c.from && res.CopyOut:
		defer res.Rows.Close()
		return cp.copyToFile(ctx, res, c.file)
	}
	if res.Rows != nil {
		res.Rows.Close()
	}
	return pgerr.Errorf(pgerr.InternalError, `\copy: the server did not start a COPY`)
}

func (cp *copier) copyFromFile(ctx context.Context, in *stmt.CopyIn, name string) error {
	f, err := os.Open(name)
	if err != nil {
		// The server is waiting for data: an empty load that fails ends it.
		_, _ = in.Load(ctx, &failingReader{err})
		return fileError(name, "reading", err)
	}
	defer f.Close()
	n, err := in.Load(ctx, f)
	if err != nil {
		return err
	}
	fmt.Fprintf(cp.pr.out, "COPY %d\n", n)
	return nil
}

func (cp *copier) copyToFile(ctx context.Context, res *stmt.Result, name string) error {
	w := cp.pr.out
	var f *os.File
	if name != "" {
		var err error
		if f, err = os.Create(name); err != nil {
			return fileError(name, "writing", err)
		}
		w = f
	}
	n, err := writeCopyOut(ctx, w, res)
	if f != nil {
		if cerr := f.Close(); err == nil && cerr != nil {
			err = fileError(name, "writing", cerr)
		}
	}
	if err != nil {
		return err
	}
	if f != nil { // psql prints no tag after rows it wrote to stdout
		fmt.Fprintf(cp.pr.out, "COPY %d\n", n)
	}
	return nil
}

// failingReader ends a COPY load with err.
type failingReader struct{ err error }

func (r *failingReader) Read([]byte) (int, error) { return 0, r.err }

func fileError(name, mode string, err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	code := pgerr.IOError
	if errors.Is(err, os.ErrNotExist) {
		code = pgerr.UndefinedFile
	}
	return pgerr.Errorf(code, "could not open file %q for %s: %v", name, mode, err)
}
