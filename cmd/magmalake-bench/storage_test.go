package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/magmalake/magmalake/bench"
)

// bench delete and bench select take bench contention's --warehouse and
// --catalog-prop; properties that would replace the scratch catalog, and
// ones that are no key=value, are usage errors.
func TestParseBenchStorage(t *testing.T) {
	env := func(string) string { return "" }
	s3 := []string{"--warehouse", "s3://lake/bench", "--catalog-prop", "s3.endpoint=http://127.0.0.1:7070",
		"--catalog-prop", "s3.force-virtual-addressing=false"}
	wantProps := []string{"s3.endpoint=http://127.0.0.1:7070", "s3.force-virtual-addressing=false"}

	del, _, err := parseBenchDelete(append([]string{"--rows", "2000", "--files", "4", "--cpuprofile", "cpu.out"}, s3...), env)
	if err != nil {
		t.Fatal(err)
	}
	if del.Warehouse != "s3://lake/bench" || !slices.Equal(del.CatalogProps, wantProps) || del.Kind() != bench.StorageS3 ||
		del.CPUProfile != "cpu.out" || del.Rows != 2000 {
		t.Errorf("bench delete parsed %+v", del)
	}
	sel, _, err := parseBenchSelect(append([]string{"--no-duckdb"}, s3...), env)
	if err != nil {
		t.Fatal(err)
	}
	if sel.Warehouse != "s3://lake/bench" || !slices.Equal(sel.CatalogProps, wantProps) || !sel.NoDuckDB {
		t.Errorf("bench select parsed %+v", sel)
	}
	local, _, err := parseBenchDelete(nil, env)
	if err != nil || local.Kind() != bench.StorageLocal || local.CatalogProps != nil {
		t.Errorf("bench delete without --warehouse: %+v, %v", local.Storage, err)
	}

	for _, bad := range [][]string{
		{"--catalog-prop", "type=rest"},
		{"--catalog-prop", "s3.endpoint"},
		{"--warehouse", "lake/bench"},
	} {
		if _, _, err := parseBenchDelete(bad, env); err == nil {
			t.Errorf("bench delete %s accepted", strings.Join(bad, " "))
		}
		if _, _, err := parseBenchSelect(bad, env); err == nil {
			t.Errorf("bench select %s accepted", strings.Join(bad, " "))
		}
	}
}
