//go:build !linux

package service_test

import "time"

func processCPU() (time.Duration, bool) { return 0, false }
