package main

// barePage has the shape of quire's page object, and thePageAnswer is about 1.2 KB of it: the
// bare handler of --scenario speed encodes it on every request, as issue 15's table did.
type barePage struct {
	Object         string         `json:"object"`
	ID             string         `json:"id"`
	CreatedTime    string         `json:"created_time"`
	LastEditedTime string         `json:"last_edited_time"`
	CreatedBy      bareRef        `json:"created_by"`
	LastEditedBy   bareRef        `json:"last_edited_by"`
	Cover          *string        `json:"cover"`
	Icon           *string        `json:"icon"`
	Parent         bareParent     `json:"parent"`
	Archived       bool           `json:"archived"`
	InTrash        bool           `json:"in_trash"`
	Properties     bareProperties `json:"properties"`
	URL            string         `json:"url"`
	PublicURL      *string        `json:"public_url"`
}

type bareParent struct {
	Type   string `json:"type"`
	PageID string `json:"page_id"`
}

type bareProperties struct {
	Title bareTitle `json:"title"`
}

type bareTitle struct {
	ID    string         `json:"id"`
	Type  string         `json:"type"`
	Title []bareRichText `json:"title"`
}

type bareRichText struct {
	Type        string          `json:"type"`
	Text        bareText        `json:"text"`
	Annotations bareAnnotations `json:"annotations"`
	PlainText   string          `json:"plain_text"`
	Href        *string         `json:"href"`
}

type bareText struct {
	Content string  `json:"content"`
	Link    *string `json:"link"`
}

type bareAnnotations struct {
	Bold          bool   `json:"bold"`
	Italic        bool   `json:"italic"`
	Strikethrough bool   `json:"strikethrough"`
	Underline     bool   `json:"underline"`
	Code          bool   `json:"code"`
	Color         string `json:"color"`
}

// thePageAnswer is a page under a top-level page, with a title of two rich-text runs.
var thePageAnswer = func() *barePage {
	run := func(s string) bareRichText {
		return bareRichText{Type: "text", Text: bareText{Content: s}, Annotations: bareAnnotations{Color: "default"}, PlainText: s}
	}
	const id = "5e0c7a52-8f0e-4c36-9d3b-2f7d1c9a4e11"
	return &barePage{
		Object: "page", ID: id, CreatedTime: "2026-11-27T18:00:00.000Z", LastEditedTime: "2026-11-27T18:05:00.000Z",
		CreatedBy:    bareRef{Object: "user", ID: "c6863e11-93ec-4aca-b73e-c82e3ec174f3"},
		LastEditedBy: bareRef{Object: "user", ID: "c6863e11-93ec-4aca-b73e-c82e3ec174f3"},
		Parent:       bareParent{Type: "page_id", PageID: "0b7d58b4-3c1e-4a4e-9f5a-6f2e8d1c3b20"},
		Properties: bareProperties{Title: bareTitle{ID: "title", Type: "title", Title: []bareRichText{
			run("Corpus page 123: notes on the quarterly roadmap and the launch plan"),
			run(" — reviewed by the team, with the dependencies and milestones"),
		}}},
		URL: "http://127.0.0.1:8080/pages/" + id,
	}
}()
