//go:build !linux

package embed

import "time"

func threadCPU() (time.Duration, bool) { return 0, false }
