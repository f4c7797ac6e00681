package main

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/quire-dev/quire/internal/testdb"
)

// TestCrashSafety runs the real binary, writes to it from several clients at once, kills it
// with SIGKILL at a random moment, restarts it and checks that every write answered 2xx is
// there as answered, on both engines, round after round (docs/reliability.md). Short: 3 rounds
// per engine. QUIRE_LONG=1: 50. QUIRE_CRASH_ROUNDS=N sets the count, QUIRE_CRASH_SEED=S
// repeats a run's random choices (kill delays, writes).
func TestCrashSafety(t *testing.T) {
	rounds := 3
	if os.Getenv("QUIRE_LONG") == "1" {
		rounds = 50
	}
	if v := os.Getenv("QUIRE_CRASH_ROUNDS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("QUIRE_CRASH_ROUNDS=%q: want a positive count", v)
		}
		rounds = n
	}
	seed := uint64(time.Now().UnixNano())
	if v := os.Getenv("QUIRE_CRASH_SEED"); v != "" {
		var err error
		if seed, err = strconv.ParseUint(v, 10, 64); err != nil {
			t.Fatalf("QUIRE_CRASH_SEED=%q: %v", v, err)
		}
	}
	t.Logf("%d rounds per engine; QUIRE_CRASH_SEED=%d repeats this run's choices", rounds, seed)
	bin := quireBinary(t)
	for i, engine := range []string{"sqlite", "postgres"} {
		t.Run(engine, func(t *testing.T) {
			// Each engine and each writer draws from its own stream of the seed.
			stream := uint64(i) << 32
			h := &harness{t: t, engine: engine, bin: bin, stream: stream, rng: rand.New(rand.NewPCG(seed, stream))}
			if engine == "sqlite" {
				dir := t.TempDir()
				h.sqliteFile, h.storeArgs = filepath.Join(dir, "quire.db"), []string{"--data", dir}
			} else {
				// Uploads still go to a folder: a temporary one, not ./quire-data.
				h.databaseURL = testdb.PostgresURL(t)
				h.storeArgs = []string{"--database-url", h.databaseURL, "--data", t.TempDir()}
			}
			h.run(rounds, seed)
		})
	}
}

// harness drives one engine's rounds and keeps the figures.
type harness struct {
	t                       *testing.T
	engine, bin             string
	storeArgs               []string
	sqliteFile, databaseURL string
	rng                     *rand.Rand
	stream                  uint64
	token                   string
	writers                 []*writer
	leased                  map[string]bool // embedding jobs the last killed server held
	acked, cut, checks      int
	searches, lost          int
	cutFound                [3]int // by inFlight: what became of the writes cut off on known objects
	serverCPU               time.Duration
}

const crashWriters = 4

func (h *harness) run(rounds int, seed uint64) {
	t := h.t
	ws := runJSON(t, append([]string{"workspace", "create", "--name", "Crash", "--create"}, h.storeArgs...)...)["id"].(string)
	user := runJSON(t, append([]string{"user", "create", "--workspace", ws, "--name", "C", "--email", "c@example.com"}, h.storeArgs...)...)["id"].(string)
	h.token = runJSON(t, append([]string{"token", "create", "--workspace", ws, "--owner", user, "--name", "crash",
		"--scopes", "all", "--workspace-scoped"}, h.storeArgs...)...)["token"].(string)
	var rs roundState
	for n := range crashWriters {
		h.writers = append(h.writers, newWriter(t, n, seed, h.stream+1+uint64(n), &rs))
	}
	for round := 1; round <= rounds; round++ {
		p := startProcess(t, h.bin, h.storeArgs)
		if round > 1 {
			h.checkObjects(p.base, false)
		}
		rs.killed.Store(false)
		rs.acks.Store(0)
		stop := make(chan struct{})
		var wg sync.WaitGroup
		for _, w := range h.writers {
			w.c = newClient(p.base, h.token)
			wg.Add(1)
			go func() { defer wg.Done(); w.run(stop) }()
		}
		// The kill comes at a random moment once the writers are under way: a fresh process
		// on a loaded machine can take a second for its first answers.
		for deadline := time.Now().Add(time.Minute); rs.acks.Load() < crashWriters && time.Now().Before(deadline); {
			time.Sleep(5 * time.Millisecond)
		}
		delay := time.Duration(h.rng.Int64N(int64(1200 * time.Millisecond)))
		time.Sleep(delay)
		rs.killed.Store(true)
		p.kill(t)
		killMs := time.Now().UnixMilli()
		close(stop)
		wg.Wait()
		h.serverCPU += p.cmd.ProcessState.UserTime() + p.cmd.ProcessState.SystemTime()
		acked, cut := 0, 0
		for _, w := range h.writers {
			w.c.close()
			acked += w.acked
			if w.cut {
				cut++
			}
		}
		h.acked, h.cut = h.acked+acked, h.cut+cut
		if t.Failed() {
			t.FailNow()
		}
		h.checkStore(killMs)
		t.Logf("round %d: killed %v after the first writes: %d writes acknowledged, %d cut off", round, delay.Round(time.Millisecond), acked, cut)
	}

	// The last restart: everything ever acknowledged, the embedding queue, a clean stop.
	p := startProcess(t, h.bin, h.storeArgs)
	h.checkObjects(p.base, true)
	waited, leased := h.waitEmbedded(false)
	t.Logf("embedding queue: drained %v after the restart but for %d jobs leased by killed servers", waited.Round(time.Millisecond), leased)
	if rounds >= 10 {
		// Long runs also see those leases expire and their jobs done.
		waited, _ = h.waitEmbedded(true)
		t.Logf("embedding queue: empty %v after the restart", waited.Round(time.Millisecond))
		h.leased = nil
	}
	h.checkSemantic(p.base)
	p.stop(t)
	h.serverCPU += p.cmd.ProcessState.UserTime() + p.cmd.ProcessState.SystemTime()
	h.checkStore(time.Now().UnixMilli())
	objects := 0
	for _, w := range h.writers {
		objects += len(w.objs)
	}
	t.Logf("%s: %d rounds, %d writes acknowledged, %d requests cut off by kills (to known objects: %d applied, %d not), "+
		"%d objects, %d object checks after restarts, %d search checks, lost %d; server CPU %v",
		h.engine, rounds, h.acked, h.cut, h.cutFound[cutApplied], h.cutFound[cutNotApplied], objects, h.checks,
		h.searches, h.lost, h.serverCPU.Round(time.Millisecond))
}
