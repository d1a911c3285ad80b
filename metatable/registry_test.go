package metatable

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/apache/iceberg-go/table"
)

// TestMetaTableRegistry: the registry's names are sorted and distinct,
// each finds its own entry with a producer, and an unknown kind is
// ErrUnknown naming the table and every kind there is.
func TestMetaTableRegistry(t *testing.T) {
	names := Names()
	if !slices.IsSorted(names) || len(slices.Compact(slices.Clone(names))) != len(names) {
		t.Fatalf("names not sorted and distinct: %v", names)
	}
	ident := table.Identifier{"public", "t"}
	for _, n := range names {
		mt, err := Find(ident, n)
		if err != nil || mt.Name != n || mt.read == nil {
			t.Fatalf("%s: %+v, %v", n, mt, err)
		}
	}
	_, err := Find(ident, "nope")
	if !errors.Is(err, ErrUnknown) || !strings.Contains(err.Error(), "public.t$nope") ||
		!strings.Contains(err.Error(), strings.Join(names, " ")) {
		t.Fatalf("unknown kind: %v", err)
	}
}
