package wire

import (
	"testing"

	"github.com/jackc/pgx/v5/pgproto3"
)

func TestSimpleQueryShapes(t *testing.T) {
	_, addr := testServer(t, nil)
	c := dialRaw(t, addr)
	msgs := c.startup(nil)
	if len(msgs) < 3 {
		t.Fatalf("startup: %v", msgs)
	}
	c.send(&pgproto3.Query{String: "SELECT 1; DELETE FROM t WHERE id = 4; SELECT * FROM missing; SELECT 2"})
	got := c.untilReady()
	t.Logf("%#v", got)
}
