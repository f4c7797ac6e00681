package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// remote is an http.Handler that sends each request on to the running quire serve over real
// HTTP, so that the seeder's code writes either in process or through the server.
type remote struct {
	base   string
	client *http.Client
}

func newRemote(base string) *remote {
	tr := &http.Transport{MaxIdleConnsPerHost: 2 * seedWorkers, DisableCompression: true}
	return &remote{base: base, client: &http.Client{Transport: tr, Timeout: 5 * time.Minute}}
}

func (rm *remote) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	req, err := http.NewRequestWithContext(r.Context(), r.Method, rm.base+r.URL.RequestURI(), r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	req.Header = r.Header.Clone()
	req.ContentLength = r.ContentLength // sent with its length, not chunked, as clients send a body they hold
	res, err := rm.client.Do(req)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer res.Body.Close()
	w.WriteHeader(res.StatusCode)
	_, _ = io.Copy(w, res.Body)
}

// speedSeed is what the speed scenario wrote, for building its requests.
type speedSeed struct {
	Token    string   `json:"-"`
	Users    []string `json:"-"`
	Corpus   []string `json:"-"` // corpus pages, under the top-level Corpus page
	First    []string `json:"-"` // the first paragraph of each corpus page
	Long     string   `json:"-"` // the page of size.LongPage paragraphs
	Targets  []string `json:"-"` // fresh pages for the appends
	Database string   `json:"-"`
	// Words are the search row's WORDs, with the corpus paragraphs each is in.
	Words     []string       `json:"words"`
	WordParas map[string]int `json:"word_paragraphs"`
	Matches   int            `json:"opt7_records"` // records the query's filter matches, counted through the API
	// FirstQuery is the seconds the query's first page took: it builds the rows of the
	// properties it filters and sorts on (docs/api.md), which the steady runs then read.
	FirstQuery float64 `json:"first_query_s"`
}

// speedTops creates the top-level pages (Corpus, Long, Scratch with the append targets, Data)
// and fills the long page, 100 paragraphs an append. It returns the Data page.
func (s *seeder) speedTops(ctx context.Context, sd *speedSeed, size speedSize) (data string, err error) {
	top := func(title string) (string, error) {
		return s.id(ctx, "POST", "/v2/pages", map[string]any{"properties": map[string]any{"title": richText(title)}})
	}
	var corpus, scratch string
	for _, p := range []struct {
		title string
		id    *string
	}{{"Corpus", &corpus}, {"Long page", &sd.Long}, {"Scratch", &scratch}, {"Data", &data}} {
		if *p.id, err = top(p.title); err != nil {
			return "", err
		}
	}
	sd.Corpus = []string{corpus} // the parent first; speedCorpus replaces it by the pages
	for i := range speedTargets {
		id, err := s.id(ctx, "POST", "/v2/pages", map[string]any{"parent": map[string]any{"page_id": scratch},
			"properties": map[string]any{"title": richText(fmt.Sprintf("Scratch page %d", i+1))}})
		if err != nil {
			return "", err
		}
		sd.Targets = append(sd.Targets, id)
	}
	for i := 0; i < size.LongPage; i += 100 {
		if _, err := s.appendParagraphs(ctx, sd.Long, min(100, size.LongPage-i), func(j int) string {
			r := newRand(i+j, 17)
			return sentence(r, topics[(i+j)%len(topics)], i+j)
		}); err != nil {
			return "", err
		}
	}
	return data, nil
}

// appendParagraphs appends n paragraphs, text(j) each, to block id and returns the first's id.
func (s *seeder) appendParagraphs(ctx context.Context, id string, n int, text func(j int) string) (string, error) {
	children := make([]any, n)
	for j := range children {
		children[j] = map[string]any{"type": "paragraph", "paragraph": map[string]any{"rich_text": richText(text(j))}}
	}
	var out struct {
		Results []struct {
			ID string `json:"id"`
		} `json:"results"`
	}
	if err := s.call(ctx, "PATCH", "/v2/blocks/"+id+"/children", map[string]any{"children": children}, &out); err != nil {
		return "", err
	}
	if len(out.Results) != n {
		return "", fmt.Errorf("append to %s: %d blocks answered, want %d", id, len(out.Results), n)
	}
	return out.Results[0].ID, nil
}

// recordBatches encodes the mutations bodies of n records, 100 a batch, before the records
// phase is timed: a load generator sends bodies it has ready (wrk's are fixed), and encoding
// 100,000 records through maps and reflection took quire-bench 4–6 s of CPU on the two cores
// the server it measures runs on. The bytes are what the seeding encoded in the loop before.
func recordBatches(n int, users []string) ([]recordBatch, error) {
	out := make([]recordBatch, (n+99)/100)
	for b := range out {
		var ms []any
		for i := b * 100; i < min(n, (b+1)*100); i++ {
			ms = append(ms, map[string]any{"op": "create", "properties": recordProperties(i, users)})
		}
		body, err := json.Marshal(map[string]any{"mutations": ms})
		if err != nil {
			return nil, err
		}
		out[b] = recordBatch{body: body, records: len(ms)}
	}
	return out, nil
}

// recordBatch is one mutations body and the records it creates.
type recordBatch struct {
	body    []byte
	records int
}

// speedRecords creates the query database under parent and its records through the mutations
// endpoint, one batch of batches (recordBatches) a request, seedWorkers requests at a time.
func (s *seeder) speedRecords(ctx context.Context, sd *speedSeed, parent string, batches []recordBatch) (err error) {
	sd.Database, err = s.id(ctx, "POST", "/v2/databases", map[string]any{"parent": map[string]any{"page_id": parent},
		"title": richText("Records"), "properties": speedSchema()})
	if err != nil {
		return err
	}
	return parallel(ctx, len(batches), func(ctx context.Context, b int) error {
		err := s.send(ctx, "POST", "/v2/databases/"+sd.Database+"/mutations", batches[b].body, nil)
		s.done.Add(int64(batches[b].records))
		return err
	})
}

// speedCorpus creates the corpus pages under sd.Corpus[0], each with its 100 paragraphs in one
// append, seedWorkers pages at a time.
func (s *seeder) speedCorpus(ctx context.Context, sd *speedSeed, pages int) error {
	parent := sd.Corpus[0]
	sd.Corpus, sd.First = make([]string, pages), make([]string, pages)
	return parallel(ctx, pages, func(ctx context.Context, p int) error {
		id, err := s.id(ctx, "POST", "/v2/pages", map[string]any{"parent": map[string]any{"page_id": parent},
			"properties": map[string]any{"title": richText(fmt.Sprintf("Corpus page %d", p+1))}})
		if err != nil {
			return err
		}
		sd.Corpus[p] = id
		sd.First[p], err = s.appendParagraphs(ctx, id, speedParagraphs, func(j int) string { return corpusParagraph(p, j) })
		s.done.Add(1)
		return err
	})
}

// speedRevise rewrites the first paragraph of corpus pages from to to (not included): a marker
// sentence and the paragraph twice. The longer start moves every later chunk boundary of the
// page, so the indexer embeds the whole page again, as after an import; the paragraph keeps
// its words, so the search row's WORDs are in as many paragraphs as before.
func (s *seeder) speedRevise(ctx context.Context, sd *speedSeed, from, to int) error {
	return parallel(ctx, to-from, func(ctx context.Context, i int) error {
		p := from + i
		text := "Revised in the second pass. " + corpusParagraph(p, 0) + " " + corpusParagraph(p, 0)
		return s.call(ctx, "PATCH", "/v2/blocks/"+sd.First[p], map[string]any{
			"paragraph": map[string]any{"rich_text": richText(text)}}, nil)
	})
}

// countMatches pages through the query and counts the records it matches, and reports
// how long its first page took (the first query on its properties builds their rows).
func (s *seeder) countMatches(ctx context.Context, db string) (int, time.Duration, error) {
	n, cursor := 0, ""
	var first time.Duration
	for {
		body := map[string]any{"filter": map[string]any{"property": "Sel", "select": map[string]any{"equals": "opt7"}},
			"sorts": []any{map[string]any{"property": "Num", "direction": "ascending"}}, "page_size": 100}
		if cursor != "" {
			body["start_cursor"] = cursor
		}
		var out struct {
			Results    []any   `json:"results"`
			HasMore    bool    `json:"has_more"`
			NextCursor *string `json:"next_cursor"`
		}
		start := time.Now()
		if err := s.call(ctx, "POST", "/v2/databases/"+db+"/query", body, &out); err != nil {
			return 0, 0, err
		}
		if cursor == "" {
			first = time.Since(start)
		}
		n += len(out.Results)
		if !out.HasMore || out.NextCursor == nil {
			return n, first, nil
		}
		cursor = *out.NextCursor
	}
}

// indexerCounters reads the chunks the server's indexer has embedded and reused from /metrics.
func indexerCounters(ctx context.Context, base string) (embedded, reused int64, err error) {
	body, err := fetch(ctx, &http.Client{Timeout: 30 * time.Second}, base+"/metrics", "")
	if err != nil {
		return 0, 0, err
	}
	sc := bufio.NewScanner(bytes.NewReader(body))
	for sc.Scan() {
		name, value, ok := strings.Cut(sc.Text(), " ")
		if !ok {
			continue
		}
		switch name {
		case "quire_embed_chunks_total":
			embedded, err = parseCounter(value)
		case "quire_embed_chunks_reused_total":
			reused, err = parseCounter(value)
		}
		if err != nil {
			return 0, 0, err
		}
	}
	return embedded, reused, sc.Err()
}

func parseCounter(s string) (int64, error) {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	return int64(v), err
}
