//go:build !linux

package service_test

import "time"

func serverCPU(string) (time.Duration, bool) { return 0, false }
