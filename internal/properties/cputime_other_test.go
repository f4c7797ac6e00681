//go:build !linux

package properties

func cpuNanos() int64 { return 0 }
