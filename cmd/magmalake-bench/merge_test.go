package main

import (
	"testing"

	"github.com/magmalake/magmalake/bench"
)

func TestParseBenchMerge(t *testing.T) {
	env := func(string) string { return "" }
	cfg, _, err := parseBenchMerge([]string{"--rows", "1000", "--partitions", "4", "--flat-partitions", "0",
		"--mode", "mor-v2,mor-v3", "--case", "one-partition", "--layout", "partitioned", "--json"}, env)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Rows != 1000 || cfg.Partitions != 4 || cfg.FlatPartitions != -1 || !cfg.JSON ||
		len(cfg.Modes) != 2 || cfg.Modes[1] != bench.MergeOnReadV3 || len(cfg.Cases) != 1 || cfg.Layouts[0] != bench.Partitioned {
		t.Errorf("parsed %+v", cfg)
	}
	if _, _, err := parseBenchMerge([]string{"--source-rows", "0"}, env); err == nil {
		t.Error("--source-rows 0 accepted")
	}
}
