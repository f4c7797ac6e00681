//go:build linux || darwin || freebsd || netbsd || openbsd

package store

import (
	"net"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// awaitAnswer blocks the calling thread until conn has something to read or awaitLimit has
// passed, in the kernel (ppoll on the socket), instead of parking the goroutine in Go's network
// poller; the read that follows then finds the answer there. It is how a quick read waits
// when it is the store's only PostgreSQL read in flight (pgRaw.once), the page GET's joined
// read at c=1 above all.
//
// Parked in the network poller, a read's goroutine leaves its thread to the scheduler, which
// finds nothing to run, wakes another idle thread to look as well (runtime.wakep: a futex
// wake-up, that thread's spinning and sleep again), and blocks one in epoll_wait; when the
// answer comes, epoll_wait returns, the goroutine is made runnable, and a thread is woken once
// more. Blocked in ppoll, the thread keeps the goroutine: the backend's send wakes that very
// thread, and the system call's return resumes the read. The page GET's read in a loop (load
// 18–20 on 2 cores): p50 56–86 → 50–54 µs, the client's CPU 50–51 → 37–44 µs a read, its
// context switches 1.7–2.0 → 1.4–1.5. Over HTTP the page GET's p50 at c=1 fell in five of six
// alternated runs at load 11–20 and was not told apart at load 6–8 (docs/performance.md,
// "PostgreSQL page GET, fifteenth pass").
//
// While the thread waits, its P is in a system call: Go's monitor hands it to another thread
// if other goroutines are waiting to run, and with other PostgreSQL reads in flight they would
// be (which is why only a read alone waits so). A statement slower than awaitLimit is read as
// before, through the network poller, once the wait runs out. Nothing but the wait changes:
// the read, the context's deadline on the socket (exchange) and the errors are as before. A
// connection that is not a plain socket (TLS) is not waited on.
func awaitAnswer(conn net.Conn) {
	sc, ok := conn.(syscall.Conn)
	if !ok {
		return
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return
	}
	_ = rc.Control(func(fd uintptr) {
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		// EINTR or the time running out: the read that follows waits as before.
		_, _ = unix.Poll(fds, int(awaitLimit/time.Millisecond))
	})
}
