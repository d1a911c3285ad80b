package sql

import (
	"errors"
	"testing"

	"github.com/magmalake/magmalake/pgerr"
)

func TestParseCursorStatements(t *testing.T) {
	fetches := []struct {
		q     string
		name  string
		count int64
		move  bool
	}{
		{"FETCH c", "c", 1, false},
		{"fetch next from c", "c", 1, false},
		{"FETCH FORWARD 4 FROM _psql_cursor", "_psql_cursor", 4, false},
		{`FETCH FORWARD 3 FROM "C"`, "C", 3, false},
		{"FETCH forward in c", "c", 1, false},
		{"FETCH ALL IN c", "c", -1, false},
		{"FETCH FORWARD ALL c", "c", -1, false},
		{"FETCH 7 c", "c", 7, false},
		{"MOVE 2 IN c", "c", 2, true},
		{"move forward all from c", "c", -1, true},
	}
	for _, tc := range fetches {
		st, err := ParseOne(tc.q)
		if err != nil {
			t.Fatalf("%s: %v", tc.q, err)
		}
		f, ok := st.(*Fetch)
		if !ok || f.Name != tc.name || f.Count != tc.count || f.Move != tc.move {
			t.Errorf("%s: got %#v", tc.q, st)
		}
	}
	st, err := ParseOne("DECLARE c NO SCROLL CURSOR WITH HOLD FOR SELECT a FROM t WHERE a > 1")
	if err != nil {
		t.Fatal(err)
	}
	d, ok := st.(*DeclareCursor)
	if !ok || d.Name != "c" || !d.Hold || d.Query == nil || d.Query.From == nil {
		t.Fatalf("got %#v", st)
	}
	st, err = ParseOne(`declare "x" insensitive cursor without hold for select 1`)
	if d, ok := st.(*DeclareCursor); err != nil || !ok || d.Hold || d.Name != "x" {
		t.Fatalf("got %#v, %v", st, err)
	}
	for q, all := range map[string]bool{"CLOSE ALL": true, "close c": false} {
		st, err := ParseOne(q)
		if cl, ok := st.(*CloseCursor); err != nil || !ok || cl.All != all || (!all && cl.Name != "c") {
			t.Errorf("%s: got %#v, %v", q, st, err)
		}
	}
}

func TestParseCursorErrors(t *testing.T) {
	cases := map[string]pgerr.Code{
		"DECLARE c BINARY CURSOR FOR SELECT 1": pgerr.FeatureNotSupported,
		"DECLARE c SCROLL CURSOR FOR SELECT 1": pgerr.FeatureNotSupported,
		"DECLARE c CURSOR FOR":                 pgerr.SyntaxError,
		"DECLARE c CURSOR SELECT 1":            pgerr.SyntaxError,
		"FETCH BACKWARD 2 FROM c":              pgerr.FeatureNotSupported,
		"FETCH PRIOR FROM c":                   pgerr.FeatureNotSupported,
		"FETCH -1 FROM c":                      pgerr.FeatureNotSupported,
		"FETCH FORWARD -1 FROM c":              pgerr.FeatureNotSupported,
		"FETCH 2 FROM c extra":                 pgerr.SyntaxError,
		"CLOSE":                                pgerr.SyntaxError,
	}
	for q, code := range cases {
		_, err := ParseOne(q)
		var e *pgerr.Error
		if !errors.As(err, &e) || e.Code != code {
			t.Errorf("%s: got %v, want %s", q, err, code)
		}
	}
}
