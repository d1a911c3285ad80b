//go:build !unix

package bench

import "time"

// processCPU is not measured off Unix; CPU columns read 0.
func processCPU() time.Duration { return 0 }
