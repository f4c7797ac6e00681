package httpapi

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/service"
	"github.com/quire-dev/quire/internal/testdb"
)

// benchEnv is a production-configured server over a fresh SQLite store, with one
// workspace-scoped token holding every scope. It is newEnv for benchmarks: newEnv takes a
// *testing.T; this one logs every request as JSON at level info (to io.Discard), as "quire
// serve" does, so that the request log's formatting is part of the cost, and counts it for
// /metrics unless metricsOff.
type benchEnv struct {
	srv    *Server
	http   *httptest.Server
	header string // "Bearer <secret>"
}

func newBenchEnv(tb testing.TB, metricsOff ...bool) *benchEnv {
	tb.Helper()
	st := testdb.SQLite(tb)
	svc := service.New(st, service.Options{})
	hs := httptest.NewUnstartedServer(nil)
	logger := slog.New(slog.NewJSONHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelInfo}))
	srv := newServer(Config{Service: svc, Logger: logger, BaseURL: "http://" + hs.Listener.Addr().String(),
		Metrics: len(metricsOff) == 0 || !metricsOff[0], DocTime: time.Unix(1700000000, 0)})
	hs.Config.Handler = srv
	hs.Start()
	tb.Cleanup(hs.Close)

	ctx := context.Background()
	ws, err := svc.CreateWorkspace(ctx, "Bench")
	if err != nil {
		tb.Fatal(err)
	}
	owner, err := svc.CreateUser(ctx, ws.ID, "Bench Owner", "owner@bench.example")
	if err != nil {
		tb.Fatal(err)
	}
	secret, _, err := svc.CreateToken(ctx, service.TokenSpec{WorkspaceID: ws.ID, OwnerID: owner.ID,
		Name: "bench bot", Scopes: quire.AllScopes, WorkspaceScoped: true})
	if err != nil {
		tb.Fatal(err)
	}
	return &benchEnv{srv: srv, http: hs, header: "Bearer " + secret}
}

// BenchmarkUsersMe is GET /v2/users/me through real HTTP on loopback, from GOMAXPROCS
// keep-alive clients at once: server, client and kernel share the CPUs, as under wrk.
func BenchmarkUsersMe(b *testing.B) {
	e := newBenchEnv(b)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 256}}
	b.Cleanup(client.CloseIdleConnections)
	url := e.http.URL + "/v2/users/me"
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		req, err := http.NewRequest(http.MethodGet, url, nil)
		if err != nil {
			b.Error(err)
			return
		}
		req.Header.Set("Authorization", e.header)
		for pb.Next() {
			if err := getOK(client, req); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// getOK sends req and reads the whole answer, which must be 200.
func getOK(client *http.Client, req *http.Request) error {
	res, err := client.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if _, err := io.Copy(io.Discard, res.Body); err != nil {
		return err
	}
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("users/me answered %s", res.Status)
	}
	return nil
}

// BenchmarkUsersMeHandler calls the server's ServeHTTP directly, without network or client:
// the server's own CPU time and allocations per request (the recorder's few allocations
// included), with the request counted for /metrics and without.
func BenchmarkUsersMeHandler(b *testing.B) {
	for _, off := range []bool{false, true} {
		b.Run(fmt.Sprintf("metricsOff=%v", off), func(b *testing.B) {
			e := newBenchEnv(b, off)
			req := httptest.NewRequest(http.MethodGet, "/v2/users/me", nil)
			req.Header.Set("Authorization", e.header)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				w := httptest.NewRecorder()
				e.srv.ServeHTTP(w, req)
				if w.Code != http.StatusOK {
					b.Fatalf("status %d: %s", w.Code, w.Body)
				}
			}
		})
	}
}

// BenchmarkUsersMeBareHandler is the baseline of BenchmarkUsersMeHandler: a bare handler that
// encodes the same bot_user value with encoding/json into the same kind of recorder.
func BenchmarkUsersMeBareHandler(b *testing.B) {
	body := botUser{Object: "bot_user", ID: "3af0f12b-5527-41f0-87b7-895af26a5003", Name: "bench bot",
		WorkspaceID: "ba2199bd-3edc-4077-9c98-9b76ff5d606d", WorkspaceName: "Bench",
		Owner: userRef{Object: "user", ID: "c6863e11-93ec-4aca-b73e-c82e3ec174f3"}, Type: "integration",
		IntegrationID: "b2f3cf97-54cb-4805-826c-ebb2d937b9c3", WorkspaceWide: true,
		Capabilities: capabilities{PagesRead: true, PagesWrite: true, BlocksRead: true, BlocksWrite: true,
			DatabasesRead: true, DatabasesWrite: true, UsersRead: true, UsersEmailRead: true, SearchRead: true}}
	bare := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(&body)
	})
	req := httptest.NewRequest(http.MethodGet, "/v2/users/me", nil)
	b.ReportAllocs()
	for b.Loop() {
		bare.ServeHTTP(httptest.NewRecorder(), req)
	}
}
