package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/service"
)

// seedDemo fills an empty store with a demo workspace through the API itself (the same
// handler that serves requests, called in process), so that what it makes is exactly what a
// client would get: nested pages with many block types, a database with records and views, a
// mind map and an uploaded image. It prints the token and a first curl line. A store that
// already holds a workspace is left alone, and the command that makes a token for it printed
// (storeArgs are the flags that name the store, to repeat in that command).
func seedDemo(ctx context.Context, svc *service.Service, api http.Handler, baseURL, storeArgs string, stdout io.Writer) error {
	empty, err := svc.Store().Empty(ctx)
	if err != nil {
		return err
	}
	if !empty {
		fmt.Fprintln(stdout, "quire: --demo: the store already holds a workspace; nothing seeded")
		return printDemoToken(ctx, svc, storeArgs, stdout)
	}
	ws, err := svc.CreateWorkspace(ctx, demoWorkspace)
	if err != nil {
		return err
	}
	u, err := svc.CreateUser(ctx, ws.ID, "Demo User", demoEmail)
	if err != nil {
		return err
	}
	secret, _, err := svc.CreateToken(ctx, service.TokenSpec{WorkspaceID: ws.ID, OwnerID: u.ID, Name: "demo",
		Scopes: quire.AllScopes, WorkspaceScoped: true})
	if err != nil {
		return err
	}
	d := &demo{api: api, token: secret}

	home := d.id("POST", "/v2/pages", mustJSON(map[string]any{
		"properties": map[string]any{"title": []any{map[string]any{"text": map[string]any{"content": "Welcome to Quire"}}}},
		"icon":       map[string]any{"type": "emoji", "emoji": "👋"},
		"markdown":   demoMarkdown,
	}))
	d.do("PATCH", "/v2/blocks/"+home+"/children", `{"children": [
		{"type": "callout", "callout": {"icon": {"type": "emoji", "emoji": "💡"}, "rich_text": [{"text": {"content": "Colours: "}}, {"text": {"content": "blue text"}, "annotations": {"text_color": "blue"}}, {"text": {"content": " on yellow"}, "annotations": {"background_color": "yellow"}}]}},
		{"type": "toggle", "toggle": {"rich_text": [{"text": {"content": "A toggle with children"}}], "children": [
			{"type": "paragraph", "paragraph": {"rich_text": [{"text": {"content": "Hidden until opened."}}]}},
			{"type": "bookmark", "bookmark": {"url": "https://example.com"}}]}},
		{"type": "column_list", "column_list": {"children": [
			{"type": "column", "column": {"children": [{"type": "paragraph", "paragraph": {"rich_text": [{"text": {"content": "Left column"}}]}}]}},
			{"type": "column", "column": {"children": [{"type": "paragraph", "paragraph": {"rich_text": [{"text": {"content": "Right column"}}]}}]}}]}}
	]}`)
	notes := d.id("POST", "/v2/pages", `{"parent": {"page_id": "`+home+`"},
		"properties": {"title": [{"text": {"content": "Meeting notes"}}]},
		"markdown": "## Roadmap review\n\n1. Ship search\n2. Ship mind maps\n   - with files\n\n東京オフィスの計画も確認しました。\n"}`)
	d.do("POST", "/v2/pages", `{"parent": {"page_id": "`+home+`"}, "page_type": "folder",
		"properties": {"title": [{"text": {"content": "Archive"}}]}}`)

	// An image, uploaded through the signed URL, shown in the notes.
	up := d.json("POST", "/v2/files/upload-url", `{"filename": "quire.png", "content_type": "image/png", "size": `+
		fmt.Sprint(len(demoPNG()))+`, "parent": {"page_id": "`+notes+`"}}`)
	if up != nil {
		if err := d.put(up["upload_url"], demoPNG()); err == nil {
			d.do("PATCH", "/v2/blocks/"+notes+"/children", `{"children": [{"type": "image", "image": {"type": "file_upload",
				"file_upload": {"id": "`+fmt.Sprint(up["id"])+`"}, "caption": [{"text": {"content": "An uploaded image"}}]}}]}`)
		} else {
			d.errs = append(d.errs, err.Error())
		}
	}

	// A database with records and views.
	db := d.json("POST", "/v2/databases", `{"parent": {"page_id": "`+home+`"},
		"title": [{"text": {"content": "Tasks"}}],
		"properties": {
			"Name": {"title": {}},
			"Status": {"select": {"options": [{"name": "To do", "color": "red"}, {"name": "Doing", "color": "yellow"}, {"name": "Done", "color": "green"}]}},
			"Points": {"number": {"format": "number"}},
			"Due": {"date": {}},
			"Tags": {"multi_select": {"options": [{"name": "api"}, {"name": "docs"}]}}
		}}`)
	if db != nil {
		dbID := fmt.Sprint(db["id"])
		for i, r := range []struct{ name, status, due string }{
			{"Write the API", "Done", "2026-11-01"}, {"Document it", "Doing", "2026-11-20"},
			{"Measure it", "To do", "2026-12-01"}, {"Ship it", "To do", "2026-12-15"},
		} {
			d.do("POST", "/v2/pages", fmt.Sprintf(`{"parent": {"database_id": %q}, "properties": {
				"Name": {"title": [{"text": {"content": %q}}]}, "Status": {"select": {"name": %q}},
				"Points": {"number": %d}, "Due": {"date": {"start": %q}}, "Tags": {"multi_select": [{"name": "api"}]}}}`,
				dbID, r.name, r.status, (i+1)*2, r.due))
		}
		d.do("POST", "/v2/databases/"+dbID+"/views", `{"name": "All tasks", "type": "table"}`)
		status := ""
		if props, ok := db["properties"].(map[string]any); ok {
			if p, ok := props["Status"].(map[string]any); ok {
				status = fmt.Sprint(p["id"])
			}
		}
		d.do("POST", "/v2/databases/"+dbID+"/views", `{"name": "By status", "type": "board", "group_by": {"property": "`+status+`"}}`)
		d.do("POST", "/v2/databases/"+dbID+"/views", `{"name": "Calendar", "type": "calendar"}`)
	}

	// A mind map.
	d.do("POST", "/v2/mind-maps", `{"parent": {"page_id": "`+home+`"}, "title": "Launch plan",
		"root": {"text": "Launch", "children": [{"text": "Search", "children": [{"text": "Keyword"}, {"text": "Semantic"}]},
		{"text": "Databases"}, {"text": "Files"}]}}`)

	base := strings.TrimSuffix(baseURL, "/")
	fmt.Fprintf(stdout, "quire: demo workspace %q seeded; token (every scope, whole workspace):\n  %s\n", ws.Name, secret)
	fmt.Fprintf(stdout, "try:\n  curl -s %s/v2/pages/%s/content/markdown -H 'Authorization: Bearer %s'\n", base, home, secret)
	for _, e := range d.errs {
		fmt.Fprintf(stdout, "quire: --demo: %s\n", e)
	}
	return nil
}

// printDemoToken tells how to get a token for a store seeded earlier: its secret was printed
// once and is not stored, so a new token is made (the demo's own can be listed and rotated).
func printDemoToken(ctx context.Context, svc *service.Service, storeArgs string, stdout io.Writer) error {
	wss, err := svc.Workspaces(ctx)
	if err != nil {
		return err
	}
	for _, ws := range wss {
		if ws.Name != demoWorkspace {
			continue
		}
		users, err := svc.AllUsers(ctx, ws.ID)
		if err != nil {
			return err
		}
		for _, u := range users {
			if u.Email == demoEmail {
				fmt.Fprintf(stdout, "quire: --demo: for a new token to %q (every scope, whole workspace), run:\n"+
					"  quire token create --workspace %s --owner %s --name demo --scopes all --workspace-scoped%s\n",
					ws.Name, ws.ID, u.ID, storeArgs)
				return nil
			}
		}
	}
	fmt.Fprintf(stdout, "quire: --demo: for a token, find a workspace and its owner with\n"+
		"  quire workspace list%s\n  quire user list --workspace WS%s\nthen run quire token create (see quire token create --help)\n",
		storeArgs, storeArgs)
	return nil
}

// The demo workspace and its user, by which a later --demo finds them.
const (
	demoWorkspace = "Demo workspace"
	demoEmail     = "demo@example.com"
)

// demoMarkdown is the welcome page's content, imported as blocks.
const demoMarkdown = "# Welcome\n\nThis workspace was made by `quire serve --demo`. Everything here came through the API.\n\n" +
	"## What to try\n\n- [x] Read this page as blocks: `GET /v2/blocks/{id}/children`\n" +
	"- [ ] Export it as Markdown: `GET /v2/pages/{id}/content/markdown`\n- [ ] Search for **roadmap** or 東京\n\n" +
	"> Pages nest, blocks nest, and nothing is ever deleted for good.\n\n```go\nfmt.Println(\"hello, Quire\")\n```\n\n" +
	"| Engine | Use |\n| --- | --- |\n| SQLite | one machine |\n| PostgreSQL | several servers |\n\n$$E = mc^2$$\n\n---\n"

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// demo sends the seeding requests; a refused request is reported, not fatal.
type demo struct {
	api   http.Handler
	token string
	errs  []string
}

func (d *demo) do(method, path, body string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+d.token)
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	d.api.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		d.errs = append(d.errs, fmt.Sprintf("%s %s: %d %s", method, path, rec.Code, strings.TrimSpace(rec.Body.String())))
	}
	return rec
}

func (d *demo) json(method, path, body string) map[string]any {
	rec := d.do(method, path, body)
	if rec.Code != http.StatusOK {
		return nil
	}
	var m map[string]any
	if json.Unmarshal(rec.Body.Bytes(), &m) != nil {
		return nil
	}
	return m
}

func (d *demo) id(method, path, body string) string {
	if m := d.json(method, path, body); m != nil {
		return fmt.Sprint(m["id"])
	}
	return ""
}

// put sends the bytes of an upload to its signed URL, through the same handler.
func (d *demo) put(uploadURL any, data []byte) error {
	u, err := url.Parse(fmt.Sprint(uploadURL))
	if err != nil {
		return err
	}
	req := httptest.NewRequest(http.MethodPut, u.RequestURI(), bytes.NewReader(data))
	req.Header.Set("Content-Type", "image/png")
	rec := httptest.NewRecorder()
	d.api.ServeHTTP(rec, req)
	if rec.Code/100 != 2 {
		return fmt.Errorf("upload: %d %s", rec.Code, strings.TrimSpace(rec.Body.String()))
	}
	return nil
}

// demoPNG is a small generated picture: Quire's colours in stripes.
func demoPNG() []byte {
	img := image.NewRGBA(image.Rect(0, 0, 64, 32))
	for y := range 32 {
		for x := range 64 {
			img.Set(x, y, color.RGBA{uint8(40 + x*3), uint8(90 + y*4), 200, 255})
		}
	}
	var b bytes.Buffer
	_ = png.Encode(&b, img)
	return b.Bytes()
}
