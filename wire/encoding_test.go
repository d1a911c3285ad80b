package wire

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/magmalake/magmalake/lake"
	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/session"
	"github.com/magmalake/magmalake/stmt"
)

// What PostgreSQL 15 answered for these query strings (the bytes reported are
// those of the character the invalid one starts, as far as its lead byte
// says, valid or not).
var invalidQueries = map[string]string{
	"SELECT 'a\xff\xfeb'":      "0xff",
	"SELECT 'a\xe2\x28\xa1'":   "0xe2 0x28 0xa1",
	"SELECT 'a\xe2\x82'":       "0xe2 0x82 0x27",
	"SELECT 'a\xed\xa0\x80'":   "0xed 0xa0 0x80", // a surrogate
	"SELECT 'a\xf0\x9f\x98'":   "0xf0 0x9f 0x98 0x27",
	"SELECT 'a\xc0\xaf'":       "0xc0 0xaf", // overlong '/'
	"SELECT 'ok \xe2\x82\xac'": "",
}

func invalidMessage(bytes string) string {
	return `invalid byte sequence for encoding "UTF8": ` + bytes
}

func expectEncodingError(t *testing.T, what string, msgs []pgproto3.BackendMessage, bytes string) {
	t.Helper()
	for _, m := range msgs {
		if e, ok := m.(*pgproto3.ErrorResponse); ok {
			if pgerr.Code(e.Code) != pgerr.CharacterNotInRepertoire || e.Message != invalidMessage(bytes) || e.Severity != "ERROR" {
				t.Errorf("%s: got %s %s %q, want ERROR 22021 %q", what, e.Severity, e.Code, e.Message, invalidMessage(bytes))
			}
			return
		}
	}
	t.Errorf("%s: no error in %q", what, shape(msgs))
}

// Invalid UTF-8 in a simple Query or a Parse is 22021 and the connection
// goes on.
func TestInvalidUTF8InQueries(t *testing.T) {
	_, addr := testServer(t, nil)
	c := dialRaw(t, addr)
	c.startup(nil)
	for q, bytes := range invalidQueries {
		if bytes == "" {
			continue
		}
		c.send(&pgproto3.Query{String: q})
		got := c.untilReady()
		expectEncodingError(t, "Query "+q, got, bytes)
		expectShape(t, "Query "+q, got, "E "+string(pgerr.CharacterNotInRepertoire), "Z I")
		c.send(&pgproto3.Parse{Query: q}, &pgproto3.Bind{}, &pgproto3.Execute{}, &pgproto3.Sync{})
		got = c.untilReady()
		expectEncodingError(t, "Parse "+q, got, bytes)
		expectShape(t, "Parse "+q, got, "E "+string(pgerr.CharacterNotInRepertoire), "Z I")
	}
	c.send(&pgproto3.Query{String: "SELECT 1"})
	expectShape(t, "after", c.untilReady(), "T 23/0", "D", "C SELECT 1", "Z I")
}

// A Bind parameter in text format, or a text-typed one in binary, must be
// UTF-8 without NUL bytes.
func TestInvalidUTF8InBindParameters(t *testing.T) {
	_, addr := testServer(t, nil)
	c := dialRaw(t, addr)
	c.startup(nil)
	for _, tc := range []struct {
		query  string
		format int16
		value  string
		bytes  string
	}{
		{"SELECT $1::text", 0, "a\x00b", "0x00"},
		{"SELECT $1::text", 0, "a\xff\xfeb", "0xff"},
		{"SELECT $1::bytea", 0, "a\xffb", "0xff"}, // text format is text whatever the type
		{"SELECT $1::text", 1, "a\xe2\x28\xa1", "0xe2 0x28 0xa1"},
		{"SELECT $1::text", 0, "h\xc3\xa9llo", ""},
	} {
		c.send(&pgproto3.Parse{Query: tc.query}, &pgproto3.Bind{ParameterFormatCodes: []int16{tc.format}, Parameters: [][]byte{[]byte(tc.value)}},
			&pgproto3.Execute{}, &pgproto3.Sync{})
		got := c.untilReady()
		if tc.bytes == "" {
			expectShape(t, "valid "+tc.value, got, "ParseComplete", "BindComplete", "D", "C SELECT 1", "Z I")
			continue
		}
		expectEncodingError(t, tc.query+" "+tc.value, got, tc.bytes)
		expectShape(t, tc.query+" "+tc.value, got, "ParseComplete", "E "+string(pgerr.CharacterNotInRepertoire), "Z I")
	}
	c.send(&pgproto3.Query{String: "SELECT 1"})
	expectShape(t, "after", c.untilReady(), "T 23/0", "D", "C SELECT 1", "Z I")
}

// copyPieces runs COPY t FROM STDIN with the given CopyData pieces.
func copyPieces(c *rawClient, pieces ...string) []pgproto3.BackendMessage {
	c.send(&pgproto3.Query{String: "COPY t FROM STDIN"})
	if _, ok := c.receive().(*pgproto3.CopyInResponse); !ok {
		c.t.Fatal("no CopyInResponse")
	}
	for _, p := range pieces {
		c.fe.Send(&pgproto3.CopyData{Data: []byte(p)})
	}
	c.send(&pgproto3.CopyDone{})
	return c.untilReady()
}

// COPY FROM STDIN data must be UTF-8: a character may be split between
// CopyData messages, an invalid one fails the COPY before the loader sees it.
func TestInvalidUTF8InCopy(t *testing.T) {
	var mu sync.Mutex
	var sessions []*fakeSession
	_, addr := testServer(t, func(c *Config) {
		c.NewSession = func(info stmt.SessionInfo) (Session, error) {
			s, _ := newFakeSession(info)
			mu.Lock()
			sessions = append(sessions, s.(*fakeSession))
			mu.Unlock()
			return s, nil
		}
	})
	c := dialRaw(t, addr)
	c.startup(nil)
	mu.Lock()
	sess := sessions[0]
	mu.Unlock()
	copied := func() []string {
		sess.mu.Lock()
		defer sess.mu.Unlock()
		out := sess.copied
		sess.copied = nil
		return out
	}
	expectShape(t, "euro sign split in two", copyPieces(c, "1\ta\t\xe2\x82", "\xac\n"), "C COPY 1", "Z I")
	if got := copied(); !slices.Equal(got, []string{"1\ta\t€"}) {
		t.Fatalf("copied %q", got)
	}
	for _, tc := range []struct {
		pieces []string
		bytes  string
	}{
		{[]string{"1\ta\tx\n2\tb\xff\tz\n"}, "0xff"},
		{[]string{"1\ta\tx\n2\tb\x00\tz\n"}, "0x00"},
		{[]string{"1\ta\t\xe2", "\x28\xa1\n"}, "0xe2 0x28 0xa1"},
		{[]string{"1\ta\t\xe2\x82"}, "0xe2 0x82"}, // the data ends mid-character
	} {
		got := copyPieces(c, tc.pieces...)
		expectEncodingError(t, strings.Join(tc.pieces, "|"), got, tc.bytes)
		expectShape(t, strings.Join(tc.pieces, "|"), got, "E "+string(pgerr.CharacterNotInRepertoire), "Z I")
	}
	if got := copied(); len(got) != 0 {
		t.Errorf("the loader received %q", got)
	}
	c.send(&pgproto3.Query{String: "SELECT 1"})
	expectShape(t, "after", c.untilReady(), "T 23/0", "D", "C SELECT 1", "Z I")
}

// Against the real engine: the failed COPY leaves the table as it was.
func TestInvalidUTF8InCopyLeavesTableUnchanged(t *testing.T) {
	ctx := context.Background()
	wh, err := lake.Open(ctx, lake.Config{DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { wh.Close() })
	eng, err := session.NewEngine(ctx, wh, session.EngineOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, addr := testServer(t, func(c *Config) {
		c.NewSession = func(info stmt.SessionInfo) (Session, error) { return eng.NewSession(info), nil }
	})
	c := dialRaw(t, addr)
	c.startup(nil)
	c.send(&pgproto3.Query{String: "CREATE TABLE t (id bigint, name text)"})
	expectShape(t, "create", c.untilReady(), "C CREATE TABLE", "Z I")
	c.send(&pgproto3.Query{String: "COPY t FROM STDIN"})
	if _, ok := c.receive().(*pgproto3.CopyInResponse); !ok {
		t.Fatal("no CopyInResponse")
	}
	c.send(&pgproto3.CopyData{Data: []byte("1\tok\n")}, &pgproto3.CopyData{Data: []byte("2\tb\xffc\n")}, &pgproto3.CopyDone{})
	got := c.untilReady()
	expectEncodingError(t, "copy", got, "0xff")
	c.send(&pgproto3.Query{String: "SELECT count(*) FROM t"})
	got = c.untilReady()
	if dr, ok := got[1].(*pgproto3.DataRow); !ok || string(dr.Values[0]) != "0" {
		t.Fatalf("after the failed COPY: %q", shape(got))
	}
}

// Every split of valid text into two pieces passes; every split of invalid
// text fails.
func TestUTF8StreamSplits(t *testing.T) {
	for _, tc := range []struct {
		text  string
		valid bool
	}{
		{"a€b😀c é", true},
		{"a€b\xff", false},
		{"a\xe2\x82", false},
		{"\xf0\x9f\x98", false},
		{"a\xe2\x28\xa1", false},
		{"x\x00y", false},
	} {
		for i := 0; i <= len(tc.text); i++ {
			var u utf8Stream
			err := errors.Join(u.check([]byte(tc.text[:i])), u.check([]byte(tc.text[i:])))
			if err == nil {
				err = u.end()
			}
			if (err == nil) != tc.valid {
				t.Errorf("%q split at %d: %v", tc.text, i, err)
			}
		}
	}
}
