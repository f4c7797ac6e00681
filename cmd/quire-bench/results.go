package main

import (
	"encoding/json"
	"fmt"
	"os"
	"time"
)

// results is everything one or more runs measured; --save writes it as JSON and --from reads
// it back, so that runs made separately (a long 1M run) go into one report and plot.
type results struct {
	Runs []runInfo `json:"runs"`
	Sets []sizeSet `json:"sets"`
	// Speed is what --scenario speed measured, an engine each.
	Speed []speedSet `json:"speed,omitempty"`
}

// runInfo is what the report's header says about one invocation.
type runInfo struct {
	Start     time.Time     `json:"start"`
	Rounds    int           `json:"rounds"`
	Duration  time.Duration `json:"duration"`
	Warmup    time.Duration `json:"warmup"`
	LogLevel  string        `json:"log_level"`
	Loader    string        `json:"loader"`
	CPUs      int           `json:"cpus"`
	GoVersion string        `json:"go_version"`
}

// sizeSet is one engine at one store size: how it was seeded and what each endpoint measured.
type sizeSet struct {
	Engine    string  `json:"engine"`
	Blocks    int     `json:"blocks"`
	Seed      seeded  `json:"seed"`
	Chunks    int64   `json:"chunks"`        // vectors stored once the indexer was done
	DrainSecs float64 `json:"drain_seconds"` // from the server's start until the queue was empty
	Load      string  `json:"load_average"`  // 1-minute load average before measuring
	LoadAfter string  `json:"load_average_after"`
	Rows      []row   `json:"rows"`
}

// row is one endpoint at one concurrency: a figure per round for quire and for the bare handler.
type row struct {
	Endpoint string `json:"endpoint"`
	Conns    int    `json:"conns"`
	Quire    []fig  `json:"quire"`
	Bare     []fig  `json:"bare"`
	// The indexer's queue length before and after each round's quire run, where it was watched.
	QueueBefore []int64 `json:"queue_before,omitempty"`
	QueueAfter  []int64 `json:"queue_after,omitempty"`
	// DB is what PostgreSQL did during each round's quire run (null where it could not be read).
	DB []*dbRound `json:"db,omitempty"`
}

// fig is one load run's figures.
type fig struct {
	RPS   float64       `json:"rps"`
	P50   time.Duration `json:"p50_ns"`
	P99   time.Duration `json:"p99_ns"`
	Bytes float64       `json:"mean_bytes"`
}

func figOf(r wrkResult) fig { return fig{RPS: r.rps, P50: r.p50, P99: r.p99, Bytes: r.meanBytes()} }

// save writes r to path as indented JSON.
func (r *results) save(path string) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// loadResults reads and merges saved results, in the order given.
func loadResults(paths []string) (*results, error) {
	all := &results{}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		var r results
		if err := json.Unmarshal(b, &r); err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		all.Runs = append(all.Runs, r.Runs...)
		all.Sets = append(all.Sets, r.Sets...)
		all.Speed = append(all.Speed, r.Speed...)
	}
	return all, nil
}
