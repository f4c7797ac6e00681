package properties

import "syscall"

// cpuNanos is the CPU time this process has used (all threads, user and system): on a shared
// machine a benchmark's CPU time moves with its work, its wall time with everyone's.
func cpuNanos() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
