package repl

import "strings"

// inputBuffer is the input read but not yet terminated by ';'. It scans
// incrementally: a scan stops at the last point between tokens it reached
// and the next one resumes there, so a statement fed line by line (a
// 10,000-row INSERT in a script) is looked at once, not once per line.
type inputBuffer struct {
	buf     []byte
	scanned int      // buf[:scanned] is scanned, ending between tokens
	depth   int      // parenthesis depth at scanned
	token   bool     // the statement has a token before scanned
	state   lexState // where the whole buffer ends, for the prompt
	tail    bool     // the unterminated statement has a token
}

// add appends text and returns the statements it completes.
func (b *inputBuffer) add(text string) []string {
	b.buf = append(b.buf, text...)
	var out []string
	start := 0
	for {
		sc := stmtScanner{src: string(b.buf[b.scanned:]), depth: b.depth, hasToken: b.token, inside: lexNormal}
		sc.markSafe()
		end, ok := sc.nextTerminator()
		if !ok {
			b.scanned += sc.safe.pos
			b.depth, b.token = sc.safe.depth, sc.safe.hasToken
			b.state, b.tail = sc.state(), sc.hasToken
			break
		}
		stop := b.scanned + end + 1
		if sc.hasToken {
			out = append(out, strings.TrimLeft(string(b.buf[start:stop]), " \t\r\n\f"))
		}
		start, b.scanned, b.depth, b.token = stop, stop, 0, false
	}
	if !b.tail && b.state == lexNormal {
		b.reset() // only blanks and comments are left
		return out
	}
	// Keep only the unterminated statement.
	n := copy(b.buf, b.buf[start:])
	b.buf = b.buf[:n]
	b.scanned -= start
	return out
}

func (b *inputBuffer) reset() { *b = inputBuffer{buf: b.buf[:0]} }

func (b *inputBuffer) empty() bool { return len(b.buf) == 0 }

// hasToken reports whether the unterminated statement holds more than
// blanks and comments.
func (b *inputBuffer) hasToken() bool { return b.tail }

// lexState is where the buffer ends: lexNormal when empty.
func (b *inputBuffer) lexState() lexState {
	if b.empty() {
		return lexNormal
	}
	return b.state
}

func (b *inputBuffer) String() string { return string(b.buf) }
