package main

import (
	"flag"
	"strings"

	"github.com/magmalake/magmalake/bench"
)

// splitAs is splitList's items as T (a mode, a layout).
func splitAs[T ~string](s string) []T {
	var out []T
	for _, f := range splitList(s) {
		out = append(out, T(f))
	}
	return out
}

func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// storageFlags are --warehouse and --catalog-prop, spelled as bench
// contention's and serve's, for the benchmarks that can also run on object
// storage; what names what goes where.
func storageFlags(fs *flag.FlagSet, st *bench.Storage, what string) {
	fs.StringVar(&st.Warehouse, "warehouse", "", "put "+what+" under this location (s3://bucket/prefix, a fresh prefix per run, removed afterwards) instead of --dir; the catalog stays in --dir")
	fs.Func("catalog-prop", "file IO property key=value for --warehouse (s3.endpoint, s3.region, s3.access-key-id, s3.secret-access-key, s3.force-virtual-addressing), repeatable", func(s string) error {
		st.CatalogProps = append(st.CatalogProps, s)
		return nil
	})
}
