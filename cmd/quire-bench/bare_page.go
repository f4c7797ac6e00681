package main

import (
	"time"

	"github.com/quire-dev/quire/client"
)

// thePageAnswer is what the bare handler of --scenario speed encodes on every request, as issue
// 15's table did: a page object (the Go client's own type) of about 1.2 KB, under a top-level
// page, with an icon, a cover and a title of three rich-text runs.
var thePageAnswer = func() *client.Page {
	run := func(s string, a client.Annotations) client.RichText {
		return client.RichText{Type: "text", Text: &client.TextContent{Content: s}, Annotations: &a, PlainText: s}
	}
	edited := time.Date(2026, 11, 27, 18, 5, 0, 0, time.UTC)
	const id, user = "5e0c7a52-8f0e-4c36-9d3b-2f7d1c9a4e11", "c6863e11-93ec-4aca-b73e-c82e3ec174f3"
	return &client.Page{
		Object: "page", ID: id, PageType: "page", CreatedTime: edited.Add(-time.Hour), LastEditedTime: edited,
		CreatedBy: client.UserRef{Object: "user", ID: user}, LastEditedBy: client.UserRef{Object: "user", ID: user},
		Parent: client.Parent{Type: "page_id", PageID: "0b7d58b4-3c1e-4a4e-9f5a-6f2e8d1c3b20"},
		Icon:   &client.Icon{Type: "emoji", Emoji: "📘"},
		Cover:  &client.Icon{Type: "external", External: &client.Link{URL: "https://images.example.com/covers/roadmap-2026-q4.jpg"}},
		Properties: map[string]client.PropertyValue{"title": {"id": "title", "type": "title", "title": []client.RichText{
			run("Corpus page 123: ", client.Annotations{Bold: true}),
			run("notes on the quarterly roadmap, the launch plan and its dependencies", client.Annotations{}),
			run(" — reviewed by the team with the milestones, owners and open questions for the next review", client.Annotations{Italic: true, TextColor: "gray"}),
		}}},
		URL: "http://127.0.0.1:8080/pages/" + id,
	}
}()
