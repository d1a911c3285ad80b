package main

import "testing"

func TestParseBenchMaintenance(t *testing.T) {
	env := func(string) string { return "" }
	cfg, _, err := parseBenchMaintenance([]string{"--rows", "1000", "--files", "4", "--small-inserts", "10",
		"--case", "mor-v3,small-files", "--delete-ratio-threshold", "0.2", "--json"}, env)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Rows != 1000 || cfg.Files != 4 || cfg.SmallInserts != 10 || cfg.Deletes != 20 || cfg.RatioThreshold != 0.2 ||
		cfg.SizeThreshold != 128<<20 || !cfg.JSON || len(cfg.Cases) != 2 || cfg.Cases[1] != "small-files" {
		t.Errorf("parsed %+v", cfg)
	}
	for _, bad := range [][]string{{"--deletes", "101"}, {"--repeat", "0"}, {"--delete-ratio-threshold", "1.5"}} {
		if _, _, err := parseBenchMaintenance(bad, env); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
}
