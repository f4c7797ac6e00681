package httpapi

import (
	"context"
	"net/http"
	"time"
)

// registerHealth adds the operations endpoints outside /v2, left out of the API document: they
// describe the process, not the workspace content. GET /healthz answers 200 while the process
// serves; GET /readyz answers 200 when the store answers a ping within two seconds, else 503,
// so that a load balancer stops sending requests to a server that lost its database; GET
// /metrics, when on, answers a Prometheus scrape.
func (s *Server) registerHealth() {
	s.handle("GET /healthz", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeProbe(w, http.StatusOK, "ok")
	}))
	s.handle("GET /readyz", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
		defer cancel()
		if err := s.svc.Ping(ctx); err != nil {
			s.log.Warn("readiness: store unreachable", "err", err)
			writeProbe(w, http.StatusServiceUnavailable, "store unreachable")
			return
		}
		writeProbe(w, http.StatusOK, "ok")
	}))
	// Like the probes, the scrape describes the process, needs no token (a Prometheus server
	// has none) and is not in the document. Off, the path is unknown: 404.
	if s.metrics != nil {
		s.handle("GET /metrics", s.metrics.Handler())
	}
}

func writeProbe(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write([]byte(`{"status":"` + msg + `"}` + "\n"))
}
