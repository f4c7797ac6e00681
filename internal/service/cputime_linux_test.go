package service_test

import (
	"syscall"
	"time"
)

// processCPU is the CPU time of the whole test process, all threads: on a shared machine it
// grows with the work done, not with the waiting.
func processCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
