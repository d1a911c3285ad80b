package session

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/magmalake/magmalake/internal/pgtest"
	"github.com/magmalake/magmalake/pgerr"
)

// A misspelled column gets PostgreSQL's 42703 and the same "Perhaps you
// meant ..." hint (or none), over one table and over a join, for generated
// misspellings of the real names (issue 12).
func TestColumnHintsMatchPostgres(t *testing.T) {
	conn := connectTestPostgres(t)
	s := testSession(t)
	for _, q := range []string{
		"CREATE TABLE hx (name text, team text, id int, power int)",
		"CREATE TABLE hy (name text, power int, lvl int)",
	} {
		mustPG(t, conn, q)
		mustQuery(t, s, q)
	}
	words := []string{"name", "team", "id", "power", "lvl"}
	froms := []string{"hx", "hx a", "hx JOIN hy ON hx.id = hy.lvl", "hx a JOIN hy b ON a.id = b.lvl"}
	quals := map[string][]string{"hx": {"", "hx", "hz"}, "hx a": {"", "a", "b"},
		"hx JOIN hy ON hx.id = hy.lvl": {"", "hx", "hy", "h"}, "hx a JOIN hy b ON a.id = b.lvl": {"", "a", "b", "c"}}
	seed := uint64(rand.Int64())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 5))
	compared := 0
	for i := 0; i < 300; i++ {
		from := froms[rng.IntN(len(froms))]
		qual := quals[from][rng.IntN(len(quals[from]))]
		col := misspell(rng, words[rng.IntN(len(words))])
		if col == "a" || col == "b" || col == "c" || col == "h" || col == "hx" || col == "hy" {
			continue // a relation's name alone is a whole-row reference
		}
		// Quoted: a misspelling may be a key word ("do"), and a quoted
		// name is a column reference either way.
		ref := `"` + col + `"`
		if qual != "" {
			ref = qual + "." + ref
		}
		q := fmt.Sprintf("SELECT %s FROM %s", ref, from)
		_, pe := pgtest.Exec(t, conn, q)
		_, err := s.query(t.Context(), q)
		var se *pgerr.Error
		switch {
		case pe == nil && err == nil:
			continue
		case pe == nil || !errors.As(err, &se):
			t.Fatalf("%s: PostgreSQL %v, magmalake %v", q, pe, err)
		case pe.Code != string(se.Code):
			t.Fatalf("%s: PostgreSQL %s %s, magmalake %s %s", q, pe.Code, pe.Message, se.Code, se.Message)
		case pe.Hint != se.Hint:
			t.Fatalf("%s: hint\n PostgreSQL %q\n magmalake  %q", q, pe.Hint, se.Hint)
		}
		compared++
	}
	t.Logf("%d failing references compared", compared)
	if compared < 100 {
		t.Fatalf("only %d references failed on both: the generator misspells too little", compared)
	}
}

// misspell applies up to two random edits.
func misspell(rng *rand.Rand, w string) string {
	b := []byte(w)
	for n := rng.IntN(3); n >= 0; n-- {
		k := rng.IntN(len(b) + 1)
		switch rng.IntN(3) {
		case 0:
			b = append(b[:k], append([]byte{byte('a' + rng.IntN(26))}, b[k:]...)...)
		case 1:
			if k < len(b) && len(b) > 1 {
				b = append(b[:k], b[k+1:]...)
			}
		default:
			if k < len(b) {
				b[k] = byte('a' + rng.IntN(26))
			}
		}
	}
	return string(b)
}
