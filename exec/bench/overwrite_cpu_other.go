//go:build !unix

package bench

import "time"

// owCPU is unknown off unix: CPU figures read 0 there.
func owCPU() time.Duration { return 0 }
