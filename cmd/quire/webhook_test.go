package main

import (
	"slices"
	"strings"
	"testing"
)

// TestWebhookCommands creates, lists and deletes webhooks from the command line, on both
// engines, and checks that a refused URL says where the problem is.
func TestWebhookCommands(t *testing.T) {
	for name, storeFlags := range engines {
		t.Run(name, func(t *testing.T) {
			sf := storeFlags(t)
			cmd := func(args ...string) map[string]any { return runJSON(t, append(append(args, sf...), "--create")...) }
			ws := cmd("workspace", "create", "--name", "Acme")["id"].(string)
			hook := cmd("webhook", "create", "--workspace", ws, "--url", "https://hooks.example.com/q",
				"--event-types", "page.created, page.moved", "--description", "ci")
			secret, _ := hook["secret"].(string)
			if !strings.HasPrefix(secret, "whsec_") || hook["status"] != "active" {
				t.Fatalf("webhook create printed %v", hook)
			}
			if got := hook["event_types"].([]any); len(got) != 2 || got[1] != "page.moved" {
				t.Fatalf("event_types = %v", got)
			}
			id := hook["id"].(string)
			list := cmd("webhook", "list", "--workspace", ws)
			if got := ids(list, "id"); !slices.Equal(got, []string{id}) {
				t.Fatalf("webhook list: %v", got)
			}
			if _, shown := list["results"].([]any)[0].(map[string]any)["secret"]; shown {
				t.Fatal("webhook list shows the secret")
			}
			if msg := runErr(t, append([]string{"webhook", "create", "--workspace", ws, "--url", "http://hooks.example.com/"}, sf...)...); !strings.Contains(msg, "[--url: invalid_value]") {
				t.Fatalf("plain http to a public host: %s", msg)
			}
			if msg := runErr(t, append([]string{"webhook", "create", "--workspace", ws}, sf...)...); !strings.Contains(msg, "--url is required") {
				t.Fatalf("no --url: %s", msg)
			}
			if got := cmd("webhook", "delete", "--workspace", ws, "--webhook-id", id)["id"]; got != id {
				t.Fatalf("webhook delete printed id %v", got)
			}
			if got := ids(cmd("webhook", "list", "--workspace", ws), "id"); len(got) != 0 {
				t.Fatalf("webhook list after delete: %v", got)
			}
			if msg := runErr(t, append([]string{"webhook", "delete", "--workspace", ws, "--webhook-id", id}, sf...)...); !strings.Contains(msg, "Could not find the webhook") {
				t.Fatalf("delete twice: %s", msg)
			}
		})
	}
}
