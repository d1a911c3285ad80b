package main

import (
	"context"
	"fmt"

	"github.com/magmalake/magmalake/exec"
	"github.com/magmalake/magmalake/iceberg"
)

// openEngine starts the executor on wh and, with demo, makes sure the demo
// table exists.
func openEngine(ctx context.Context, wh *iceberg.Warehouse, demo bool, opts exec.EngineOptions) (*exec.Engine, error) {
	eng, err := exec.NewEngine(ctx, wh, opts)
	if err != nil {
		return nil, fmt.Errorf("start engine: %w", err)
	}
	if demo {
		if err := eng.LoadDemo(ctx); err != nil {
			return nil, fmt.Errorf("load demo data: %w", err)
		}
	}
	return eng, nil
}
