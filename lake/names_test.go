package lake

import (
	"net/url"
	"testing"
)

// TestTableLocationOfPlainNames: a new table of a name that needs no care
// goes where iceberg-go's SQL catalog put it before (url.JoinPath of the
// warehouse, schema.db and name), so new tables sit beside existing ones.
func TestTableLocationOfPlainNames(t *testing.T) {
	for _, wh := range []string{"file:///data/warehouse", "s3://bucket/wh/", "/local/wh"} {
		for _, ns := range []string{"public", "sp ace", "Ünï"} {
			for _, name := range []string{"t", "my table", "ünï", "a.b", "Mixed", "a:b", `x"y`, "q?#", "..x"} {
				want, err := url.JoinPath(wh, ns+".db", name)
				if err != nil {
					t.Fatal(err)
				}
				if got := tableLocation(wh, "", ns, name); got != want {
					t.Errorf("%s %s %s: %s, iceberg-go's %s", wh, ns, name, got, want)
				}
			}
		}
	}
}

// TestTableLocationStaysInside: whatever the names, the location read as
// the IO reads it (unescaped) is a directory two levels under the
// warehouse whose last segment is the name itself.
func TestTableLocationStaysInside(t *testing.T) {
	const wh = "file:///data/warehouse"
	for _, name := range []string{"%2E%2E%2F%2E%2E%2Fetc", "%2e%2e", "..", ".", "a/b", "50%", "%", "%zz", `a\b`, "%00"} {
		loc := tableLocation(wh, "", name, name)
		if !unescapedUnder(loc, wh) {
			t.Errorf("%q: %s is not under the warehouse", name, loc)
		}
		u, err := url.Parse(loc)
		if err != nil {
			t.Fatalf("%q: %s: %v", name, loc, err)
		}
		want := map[string]string{"..": "%2E%2E", ".": "%2E", "a/b": "a%2Fb"}[name]
		if want == "" {
			want = name
		}
		if u.Path != "/data/warehouse/"+name2(name)+".db/"+want {
			t.Errorf("%q: the IO reads %s", name, u.Path)
		}
	}
}

// name2 is a schema name as its directory holds it (a "/" spelled %2F).
func name2(name string) string {
	if name == "a/b" {
		return "a%2Fb"
	}
	return name
}
