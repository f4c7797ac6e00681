package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/quire-dev/quire/internal/busy"
	"github.com/quire-dev/quire/internal/embed"
	"github.com/quire-dev/quire/internal/httpapi"
	"github.com/quire-dev/quire/internal/service"
)

const serveSynopsis = `serve [flags]

Serves the API under /v2 until SIGINT or SIGTERM, then finishes the requests in flight and
exits 0. Data lives in embedded SQLite under --data unless --database-url names a PostgreSQL
database; several servers may share one PostgreSQL database. Uploaded files live under
DATA/files unless --s3-endpoint and --s3-bucket name an S3-compatible bucket. Outside /v2 and
without a token, GET /healthz and GET /readyz answer probes and GET /metrics (unless
--metrics=false) answers Prometheus scrapes.`

func serve(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("serve", serveSynopsis, stderr)
	var sf storeFlags
	sf.add(fs)
	var ff fileFlags
	ff.add(fs)
	addr := fs.String("addr", env("QUIRE_ADDR", "127.0.0.1:8080"), "address to listen on (env QUIRE_ADDR)")
	baseURL := fs.String("base-url", env("QUIRE_BASE_URL", ""), "absolute URL of this server in links and the document; default http://ADDR (env QUIRE_BASE_URL)")
	rateLimit := fs.Float64("rate-limit", envFloat("QUIRE_RATE_LIMIT", 0), "requests per second per token, 0 = off (env QUIRE_RATE_LIMIT)")
	metricsDef, metricsEnvErr := envBool("QUIRE_METRICS", true)
	metricsOn := fs.Bool("metrics", metricsDef, "serve Prometheus metrics at GET /metrics, outside /v2 and without a token; --metrics=false turns it off (env QUIRE_METRICS)")
	logLevel := fs.String("log-level", env("QUIRE_LOG_LEVEL", "info"), "level of the application's messages: debug, info, warn or error (env QUIRE_LOG_LEVEL)")
	accessLog := fs.String("access-log", env("QUIRE_ACCESS_LOG", "on"), "one line per request, apart from --log-level: on, off, or debug (on, and the /healthz and /readyz probes too) (env QUIRE_ACCESS_LOG)")
	drain := fs.Duration("shutdown-timeout", 30*time.Second, "how long a shutdown waits for requests in flight")
	demoFlag := fs.Bool("demo", false, "on an empty store, seed a demo workspace (pages, blocks, a database with views, a mind map, an image) and print a ready token")
	embURL := fs.String("embeddings-url", env("QUIRE_EMBEDDINGS_URL", ""), "OpenAI-compatible embeddings service for semantic search, e.g. http://localhost:11434/v1; default: the built-in offline model (env QUIRE_EMBEDDINGS_URL; key from env QUIRE_EMBEDDINGS_KEY)")
	eventRetention := fs.Duration("event-retention", service.DefaultEventRetention, "how long GET /v2/events keeps an event; older ones are swept hourly")
	hookPrivate := fs.Bool("webhook-allow-private", false, "let webhooks call private addresses and plain http anywhere (default: https, or http to loopback only)")
	embModel := fs.String("embeddings-model", env("QUIRE_EMBEDDINGS_MODEL", ""), "model name sent to --embeddings-url (env QUIRE_EMBEDDINGS_MODEL)")
	indexWorkers := fs.Int("index-workers", 0, "semantic indexer workers embedding side by side; 0 = half the cores, at least one (requests come first either way)")
	memLimit := fs.String("memory-limit", env("QUIRE_MEMORY_LIMIT", ""), "soft limit of the Go runtime's memory, e.g. 1GiB, 512MiB, or off; below it the collector runs at GOGC 400 unless GOGC is set; default GOMEMLIMIT when set, else 1GiB (env QUIRE_MEMORY_LIMIT)")
	pprofAddr := fs.String("pprof", "", "serve Go's profiles at http://ADDR/debug/pprof/ on a loopback address of their own, e.g. 127.0.0.1:6060; off when empty")
	if help, err := parse(fs, args); help || err != nil {
		return err
	}
	if metricsEnvErr != nil {
		return metricsEnvErr
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		return fmt.Errorf("--log-level: %w", err)
	}
	accessLevel, accessOn := map[string]slog.Level{"on": slog.LevelInfo, "debug": slog.LevelDebug, "off": 0}[*accessLog]
	if !accessOn {
		return fmt.Errorf("--access-log %q: want on, off or debug", *accessLog)
	}
	if *eventRetention <= 0 {
		return errors.New("--event-retention must be positive")
	}
	if *rateLimit < 0 {
		return errors.New("--rate-limit must be 0 (off) or positive")
	}
	if *indexWorkers < 0 {
		return errors.New("--index-workers must be 0 (half the cores) or positive")
	}
	if *pprofAddr != "" {
		if err := checkPprofAddr(*pprofAddr); err != nil {
			return err
		}
	}
	mem, err := resolveMemory(*memLimit)
	if err != nil {
		return err
	}
	defer mem.apply()()
	embedder := embed.Builtin()
	switch {
	case *embURL != "" && *embModel == "":
		return errors.New("--embeddings-url needs --embeddings-model")
	case *embURL == "" && *embModel != "":
		return errors.New("--embeddings-model needs --embeddings-url (the built-in model has no name to choose)")
	case *embURL != "":
		embedder = embed.OpenAI(*embURL, *embModel, os.Getenv("QUIRE_EMBEDDINGS_KEY"), nil)
	}

	logs := newLogWriter(stderr)
	defer logs.Close()
	logger := slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: level}))
	access := slog.New(slog.DiscardHandler)
	if *accessLog != "off" {
		access = httpapi.NewAccessLog(logs, accessLevel)
	}

	start := time.Now()
	st, err := sf.open(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	files, err := ff.open(ctx, sf.data)
	if err != nil {
		return err
	}

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	if *baseURL == "" {
		*baseURL = "http://" + ln.Addr().String()
	}
	svc := service.New(st, service.Options{BaseURL: *baseURL, Embedder: embedder, Files: files,
		Webhooks: service.WebhookOptions{AllowPrivate: *hookPrivate}})
	gate := busy.New() // requests in flight, for the indexer and SQLite's upkeep to step aside
	st.YieldTo(gate)
	api := httpapi.New(httpapi.Config{Service: svc, Logger: logger, AccessLog: access, BaseURL: *baseURL,
		RateLimit: *rateLimit, Metrics: *metricsOn, DocTime: buildTime(), Version: binaryVersion(), Busy: gate})
	if *demoFlag {
		if err := seedDemo(ctx, svc, api, *baseURL, sf.args(), stdout); err != nil {
			return fmt.Errorf("--demo: %w", err)
		}
	}
	srv := &http.Server{
		Handler:           api,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       2 * time.Minute,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
	srv.RegisterOnShutdown(api.StopStreams) // a stream never goes idle: Shutdown would wait for it
	if *pprofAddr != "" {
		stop, err := servePprof(*pprofAddr, stdout, logger)
		if err != nil {
			return err
		}
		defer stop()
	}
	logger.Info("quire serving", append([]any{"version", binaryVersion(), "addr", ln.Addr().String(), "base_url", *baseURL, "engine", string(st.Engine()),
		"rate_limit", *rateLimit, "metrics", *metricsOn, "embeddings", embedder.ID(), "startup_ms", time.Since(start).Milliseconds()}, mem.logAttrs()...)...)
	fmt.Fprintf(stdout, "quire: serving %s/v2 (%s store); Ctrl-C to stop\n", strings.TrimSuffix(*baseURL, "/"), st.Engine())

	go purgeIdempotency(ctx, svc, logger)
	go service.NewIndexer(svc, logger).Workers(*indexWorkers).Yield(gate, busy.MaxWait).Run(ctx)
	go sweepUploads(ctx, svc, logger)
	go sweepEvents(ctx, svc, *eventRetention, logger)
	go service.NewWebhookWorker(svc, httpapi.EventJSON, logger).Run(ctx)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	logger.Info("shutting down: finishing requests in flight", "timeout", drain.String())
	sctx, cancel := context.WithTimeout(context.Background(), *drain)
	defer cancel()
	// Property builds stop at their next batch and hand their leases back (so the requests
	// waiting on them end, and the next server builds at once); the store closes after them.
	svc.StopBuilds()
	if err := errors.Join(srv.Shutdown(sctx), svc.WaitBuilds(sctx)); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	logger.Info("stopped")
	return nil
}

// purgeIdempotency deletes expired Idempotency-Key records every hour.
func purgeIdempotency(ctx context.Context, svc *service.Service, logger *slog.Logger) {
	t := time.NewTicker(time.Hour)
	defer t.Stop()
	for {
		if n, err := svc.PurgeIdempotency(ctx); err != nil && ctx.Err() == nil {
			logger.Warn("purge idempotency records", "error", err)
		} else if n > 0 {
			logger.Info("purged idempotency records", "count", n)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// buildTime is the modification time of the running binary: the document is built into it,
// so it is when the document was last generated.
func buildTime() time.Time {
	if exe, err := os.Executable(); err == nil {
		if fi, err := os.Stat(exe); err == nil {
			return fi.ModTime()
		}
	}
	return time.Now()
}

// envBool reads a true/false environment variable; a value that is neither is an error rather
// than the default, so that a misspelt "off" never leaves the endpoint on.
func envBool(name string, def bool) (bool, error) {
	v, ok := os.LookupEnv(name)
	if !ok {
		return def, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return def, fmt.Errorf("%s=%q: want true or false", name, v)
	}
	return b, nil
}

func envFloat(name string, def float64) float64 {
	if v, ok := os.LookupEnv(name); ok {
		if f, err := strconv.ParseFloat(v, 64); err == nil {
			return f
		}
	}
	return def
}
