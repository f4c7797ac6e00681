package client_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/quire-dev/quire/client"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// countingTransport counts the requests a client sends.
type countingTransport struct{ n atomic.Int32 }

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	c.n.Add(1)
	return http.DefaultTransport.RoundTrip(r)
}

func TestPagination(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		s := newServer(t, st, 0)
		ctx := context.Background()
		counter := &countingTransport{}
		c := s.client(client.WithHTTPClient(&http.Client{Transport: counter}))
		parent := must(c.Pages.Create(ctx, client.PageCreate{Properties: map[string]client.PropertyValue{"title": client.TitleValue("Parent")}}))(t)
		var want []string
		for i := range 5 {
			p := must(c.Pages.Create(ctx, client.PageCreate{Parent: client.PageParent(parent.ID),
				Properties: map[string]client.PropertyValue{"title": client.TitleValue(fmt.Sprint("Child ", i))}}))(t)
			want = append(want, p.ID)
		}

		counter.n.Store(0)
		nodes := collect(t, c.Pages.List(ctx, client.ListPagesOptions{ParentID: parent.ID, ListOptions: client.ListOptions{PageSize: 2}}))
		var got []string
		for _, n := range nodes {
			got = append(got, n.ID)
		}
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Fatalf("listed %v, want %v in sidebar order", got, want)
		}
		if n := counter.n.Load(); n != 3 {
			t.Fatalf("5 nodes by 2 took %d requests, want 3", n)
		}

		// Breaking out of the loop stops fetching.
		counter.n.Store(0)
		seen := 0
		for _, err := range c.Pages.List(ctx, client.ListPagesOptions{ParentID: parent.ID, ListOptions: client.ListOptions{PageSize: 2}}) {
			if err != nil {
				t.Fatal(err)
			}
			if seen++; seen == 3 {
				break
			}
		}
		if n := counter.n.Load(); n != 2 {
			t.Fatalf("3 nodes by 2 took %d requests, want 2", n)
		}

		// A failing page ends the iteration with its error, once.
		var errs int
		for _, err := range c.Pages.List(ctx, client.ListPagesOptions{ParentID: "not-a-uuid"}) {
			var apiErr *client.Error
			if !errors.As(err, &apiErr) || !apiErr.HasDetail("parent_id") {
				t.Fatalf("bad parent_id: %v", err)
			}
			errs++
		}
		if errs != 1 {
			t.Fatalf("the error was yielded %d times", errs)
		}
	})
}

func TestErrors(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		s := newServer(t, st, 0)
		ctx := context.Background()
		c := s.client()

		// Every problem of a request, each at its path.
		long := strings.Repeat("x", 2001)
		_, err := c.Pages.Create(ctx, client.PageCreate{
			Properties: map[string]client.PropertyValue{"title": client.TitleValue("Bad")},
			Children:   []client.Block{client.Paragraph(), client.Paragraph(client.Text(long)...)},
		})
		var apiErr *client.Error
		if !errors.As(err, &apiErr) {
			t.Fatalf("err = %v, want *client.Error", err)
		}
		if apiErr.Status != 400 || apiErr.Code != client.CodeValidation || !strings.HasPrefix(apiErr.RequestID, "req_") ||
			!apiErr.HasDetail("children[1].paragraph.rich_text[0].text.content") {
			t.Fatalf("validation error = %+v", apiErr)
		}
		if !strings.Contains(err.Error(), "children[1].paragraph.rich_text[0].text.content: too_long") ||
			!strings.Contains(err.Error(), apiErr.RequestID) {
			t.Fatalf("Error() = %q", err)
		}
		if pages := collect(t, c.Pages.List(ctx, client.ListPagesOptions{})); len(pages) != 0 {
			t.Fatalf("a refused create left %d pages", len(pages))
		}

		// limit and actual come with too_many.
		db := must(c.Databases.Create(ctx, client.DatabaseCreate{Parent: client.WorkspaceParent(),
			Properties: map[string]client.PropertySchema{"Name": client.TitleProperty()}}))(t)
		sorts := make([]client.Sort, 101)
		for i := range sorts {
			sorts[i] = client.Sort{Property: "Name", Direction: "ascending"}
		}
		for _, err := range c.Databases.Query(ctx, db.ID, client.Query{Sorts: sorts}) {
			if !errors.As(err, &apiErr) || len(apiErr.Details) == 0 {
				t.Fatalf("101 sorts: %v", err)
			}
			d := apiErr.Details[0]
			if d.Path != "sorts" || d.Reason != "too_many" || d.Limit == nil || *d.Limit != 100 || d.Actual == nil || *d.Actual != 101 {
				t.Fatalf("101 sorts detail = %+v", d)
			}
		}

		// Not found, and a token the server does not know.
		if _, err := c.Pages.Get(ctx, "01900000-0000-7000-8000-000000000000"); !errors.As(err, &apiErr) || apiErr.Code != client.CodeNotFound {
			t.Fatalf("missing page: %v", err)
		}
		bad := client.New(s.url, "quire_nope")
		if _, err := bad.Users.Me(ctx); !errors.As(err, &apiErr) || apiErr.Status != 401 || apiErr.Code != client.CodeUnauthorized {
			t.Fatalf("bad token: %v", err)
		}
	})
}

func TestRateLimitRetry(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		s := newServer(t, st, 1) // a bucket of 1 request, refilled every second
		ctx := context.Background()

		once := s.client(client.WithMaxTries(1))
		must(once.Users.Me(ctx))(t)
		_, err := once.Users.Me(ctx)
		var apiErr *client.Error
		if !errors.As(err, &apiErr) || apiErr.Status != 429 || apiErr.Code != client.CodeRateLimited || apiErr.RetryAfter != time.Second {
			t.Fatalf("without retries: %v (%+v)", err, apiErr)
		}

		time.Sleep(1100 * time.Millisecond) // a full bucket again
		c := s.client()
		must(c.Users.Me(ctx))(t)
		start := time.Now()
		me := must(c.Users.Me(ctx))(t) // refused once, then admitted after Retry-After
		if took := time.Since(start); took < 900*time.Millisecond || me.ID == "" {
			t.Fatalf("the retried call took %v, want the 1 s Retry-After", took)
		}

		// A Retry-After beyond the longest wait is not waited for.
		impatient := s.client(client.WithBackoff(10*time.Millisecond, 100*time.Millisecond))
		start = time.Now()
		if _, err := impatient.Users.Me(ctx); !errors.As(err, &apiErr) || apiErr.Status != 429 || time.Since(start) > 900*time.Millisecond {
			t.Fatalf("impatient client: %v after %v", err, time.Since(start))
		}
	})
}
