package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"time"
)

// checkPprofAddr refuses a --pprof address that is not loopback (127.0.0.1:PORT, [::1]:PORT,
// localhost:PORT): the profiles answer without a token, and a client that reaches them can read
// the heap or slow the server with a CPU profile.
func checkPprofAddr(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--pprof %q: %w", addr, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return fmt.Errorf("--pprof %q: the profiles answer without a token, so they listen only on loopback (127.0.0.1:PORT, [::1]:PORT or localhost:PORT); reach them from elsewhere through an SSH tunnel", addr)
	}
	return nil
}

// servePprof serves Go's profiles (net/http/pprof) at http://ADDR/debug/pprof/ on a listener of
// their own, never on the API's address, until stop is called. addr passed checkPprofAddr.
func servePprof(addr string, stdout io.Writer, logger *slog.Logger) (stop func(), err error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("--pprof: %w", err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index) // and the named profiles: heap, goroutine, allocs …
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	// No WriteTimeout: a CPU profile or trace answers after its ?seconds=.
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second,
		ErrorLog: slog.NewLogLogger(logger.Handler(), slog.LevelWarn)}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			logger.Error("pprof listener", "err", err)
		}
	}()
	fmt.Fprintf(stdout, "quire: profiles at http://%s/debug/pprof/ (--pprof)\n", ln.Addr())
	return func() { srv.Close() }, nil
}
