package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/quire-dev/quire/client"
	"github.com/quire-dev/quire/internal/httpapi"
	"github.com/quire-dev/quire/internal/service"
	"github.com/quire-dev/quire/internal/store"
	"github.com/quire-dev/quire/internal/testdb"
)

// TestWebhooks manages a webhook through the client and receives a signed delivery on
// loopback, which VerifySignature accepts (and refuses once tampered with), on both engines.
func TestWebhooks(t *testing.T) {
	testdb.ForEachEngine(t, func(t *testing.T, st *store.Store) {
		s := newServer(t, st, 0)
		c := s.client()
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		go service.NewWebhookWorker(s.svc, httpapi.EventJSON, slog.New(slog.DiscardHandler)).Run(ctx)

		type delivery struct {
			sig  string
			body []byte
		}
		got := make(chan delivery, 10)
		recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			got <- delivery{r.Header.Get("Quire-Signature"), body}
		}))
		defer recv.Close()

		hook := must(c.Webhooks.Create(ctx, client.WebhookCreate{URL: recv.URL, EventTypes: []string{"page.created"}, Description: "tour"}))(t)
		if hook.Secret == "" || hook.Status != "active" || len(hook.EventTypes) != 1 {
			t.Fatalf("Webhooks.Create = %+v", hook)
		}
		if read := must(c.Webhooks.Get(ctx, hook.ID))(t); read.Secret != "" || read.URL != recv.URL {
			t.Fatalf("Webhooks.Get = %+v; the secret is shown once", read)
		}
		page := must(c.Pages.Create(ctx, client.PageCreate{Parent: client.WorkspaceParent(),
			Properties: map[string]client.PropertyValue{"title": client.TitleValue("Hooked")}}))(t)
		var d delivery
		select {
		case d = <-got:
		case <-time.After(10 * time.Second):
			t.Fatal("no delivery")
		}
		if err := client.VerifySignature(hook.Secret, d.sig, d.body, 5*time.Minute); err != nil {
			t.Fatalf("VerifySignature: %v", err)
		}
		var ev client.Event
		if err := json.Unmarshal(d.body, &ev); err != nil || ev.Type != "page.created" || ev.Entity.ID != page.ID {
			t.Fatalf("delivered %s (%v)", d.body, err)
		}
		tampered := append([]byte(nil), d.body...)
		tampered[len(tampered)-2] ^= 1
		if client.VerifySignature(hook.Secret, d.sig, tampered, 5*time.Minute) == nil || client.VerifySignature("whsec_other", d.sig, d.body, 5*time.Minute) == nil {
			t.Fatal("VerifySignature accepts a tampered body or another secret")
		}

		desc := "renamed"
		if up := must(c.Webhooks.Update(ctx, hook.ID, client.WebhookPatch{Description: &desc}))(t); up.Description != desc {
			t.Fatalf("Webhooks.Update = %+v", up)
		}
		if list := must(c.Webhooks.List(ctx))(t); len(list) != 1 || list[0].ID != hook.ID {
			t.Fatalf("Webhooks.List = %+v", list)
		}
		var ds []*client.WebhookDelivery
		for range 50 { // the attempt is logged just after the receiver answers
			if ds = must(c.Webhooks.Deliveries(ctx, hook.ID))(t); len(ds) > 0 {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		if len(ds) != 1 || !ds[0].Succeeded || ds[0].StatusCode == nil || *ds[0].StatusCode != 200 || ds[0].EventID != ev.ID {
			t.Fatalf("Webhooks.Deliveries = %+v", ds)
		}
		must(c.Webhooks.Delete(ctx, hook.ID))(t)
		var apiErr *client.Error
		if _, err := c.Webhooks.Get(ctx, hook.ID); !errors.As(err, &apiErr) || apiErr.Status != http.StatusNotFound {
			t.Fatalf("Webhooks.Get after Delete = %v", err)
		}
	})
}
