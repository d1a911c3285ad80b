package exec

import (
	"context"
	"testing"
)

// TestTableUsePins: the oldest pin is what expiry keeps, and it is settled
// only once every block that entered has pinned.
func TestTableUsePins(t *testing.T) {
	var u tableUse
	ctx := context.Background()
	check := func(wantMs int64, wantSettled bool) {
		t.Helper()
		if ms, settled := u.oldestPin("t"); ms != wantMs || settled != wantSettled {
			t.Fatalf("oldestPin = %d, %v; want %d, %v", ms, settled, wantMs, wantSettled)
		}
	}
	check(0, true)
	leave1, err := u.enter(ctx, "t")
	if err != nil {
		t.Fatal(err)
	}
	leave2, err := u.enter(ctx, "t")
	if err != nil {
		t.Fatal(err)
	}
	check(0, false)
	unpin1 := u.pin("t", 100)
	check(100, false)
	unpin2 := u.pin("t", 50)
	check(50, true)
	if ms, _ := u.oldestPin("other"); ms != 0 {
		t.Fatalf("another table has pin %d", ms)
	}
	unpin2()
	leave2()
	check(100, true)
	// A block that read the table before it had a snapshot pins none.
	leave3, err := u.enter(ctx, "t")
	if err != nil {
		t.Fatal(err)
	}
	unpin3 := u.pin("t", 0)
	check(100, true)
	unpin3()
	leave3()
	unpin1()
	leave1()
	check(0, true)
}
