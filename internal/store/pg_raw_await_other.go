//go:build !(linux || darwin || freebsd || netbsd || openbsd)

package store

import "net"

// awaitAnswer leaves the read to wait in Go's network poller: on this system the wait in the
// kernel (pg_raw_await.go) is not written.
func awaitAnswer(net.Conn) {}
