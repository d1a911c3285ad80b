package main

import (
	"slices"
	"testing"
)

// TestParseAllowPath: --allow-path repeats on repl and serve, and a prefix
// the location check could not read stops the program at start.
func TestParseAllowPath(t *testing.T) {
	args := []string{"--allow-path", "/srv/lake", "--allow-path", "s3://bucket/lake"}
	r, _, err := parseRepl(args, envMap(nil))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"/srv/lake", "s3://bucket/lake"}; !slices.Equal(r.Catalog.AllowPaths, want) {
		t.Fatalf("repl AllowPaths = %v, want %v", r.Catalog.AllowPaths, want)
	}
	s, _, err := parseServe(args[:2], envMap(nil))
	if err != nil || !slices.Equal(s.Catalog.AllowPaths, []string{"/srv/lake"}) {
		t.Fatalf("serve AllowPaths = %v, %v", s.Catalog.AllowPaths, err)
	}
	_, _, err = parseServe([]string{"--allow-path", "s3://bucket/x?y"}, envMap(nil))
	wantUsageError(t, err, `invalid value "s3://bucket/x?y" for flag -allow-path: not a plain path or URI`)
}
