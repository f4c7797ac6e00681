package search

import (
	"strings"
	"sync"
	"time"
)

// Plans keeps, across searches on one PostgreSQL store, what KeywordAtOnce's statement learned
// of a first page's plan: whether the estimate called the terms rare, and the hints it gave when
// it could not answer. A search whose plan is kept asks the statement without the estimate (a
// rare word: a tenth of the statement's backend CPU for a word in 0.6% of 100,000 paragraphs,
// docs/performance.md, "PostgreSQL keyword search, eleventh pass"), or, when the kept hints say
// the statement cannot answer, goes to Keyword with them at once, one round trip fewer.
//
// It keeps plans, never answers: every plan answers the same (the hints' contract), so a kept
// plan that a write has made stale, through this server or another, makes a search cost more
// (a common word looked up in the trigram index up to its bound, then walked; a rare word
// probed before it is looked up), never answer differently. A plan is kept for planKeep after
// its estimate ran, then estimated again.
//
// Memory: at most maxKeptPlans plans, each its key (at most maxPlanKey bytes: the workspace, the
// filters and the terms) and a few words: under 2 MB a store. Past the bound it starts again
// empty; a longer key is not kept.
type Plans struct {
	mu   sync.Mutex
	kept map[string]keptPlan
	now  func() time.Time
}

// keptPlan is a kept verdict: the hints (zero: the estimate called the terms rare and the
// statement may answer) and when the estimate ran.
type keptPlan struct {
	hints Hints
	at    time.Time
}

const (
	maxKeptPlans = 4096
	maxPlanKey   = 256
	planKeep     = 30 * time.Second
)

// NewPlans returns an empty Plans.
func NewPlans() *Plans { return &Plans{kept: map[string]keptPlan{}, now: time.Now} }

// planKey is what a first page's plan depends on: the workspace, the filters and the terms. The
// token's reach is not part of it: the estimate samples the workspace's text, and the lookups'
// counts are of the whole index.
func planKey(q Query) string {
	return q.Workspace + "\x00" + q.Object + "\x00" + q.PageType + "\x00" + strings.Join(q.Terms, "\x00")
}

// get returns the plan kept for key, if one is and it is younger than planKeep.
func (p *Plans) get(key string) (keptPlan, bool) {
	if p == nil {
		return keptPlan{}, false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	k, ok := p.kept[key]
	if !ok || p.now().Sub(k.at) >= planKeep {
		return keptPlan{}, false
	}
	return k, true
}

// put keeps k for key.
func (p *Plans) put(key string, k keptPlan) {
	if p == nil || len(key) > maxPlanKey {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.kept[key]; !ok && len(p.kept) >= maxKeptPlans {
		p.kept = map[string]keptPlan{}
	}
	p.kept[key] = k
}

// clock is the time to keep a plan from, estimated now.
func (p *Plans) clock() time.Time {
	if p == nil {
		return time.Time{}
	}
	return p.now()
}
