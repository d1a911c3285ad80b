package main

import (
	"testing"
	"time"

	"github.com/magmalake/magmalake/bench"
)

func TestParseBenchContention(t *testing.T) {
	env := func(string) string { return "" }
	cfg, _, err := parseBenchContention([]string{"--servers", "2", "--mode", "v2-cow,v3-mor", "--scenario", "soak",
		"--catalog-prop", "type=rest", "--catalog-prop", "uri=http://127.0.0.1:8181", "--soak-duration", "5s", "--json"}, env)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Servers != 2 || len(cfg.DeleteModes) != 2 || cfg.DeleteModes[1] != bench.V3MergeOnRead || cfg.Scenarios[0] != "soak" ||
		len(cfg.CatalogProps) != 2 || cfg.SoakDuration != 5*time.Second || cfg.SoakModes[0] != bench.V3MergeOnRead || !cfg.JSON {
		t.Errorf("parsed %+v", cfg)
	}
	if _, _, err := parseBenchContention([]string{"--sessions", "1"}, env); err == nil {
		t.Error("--sessions 1 accepted")
	}
}
