package main

import (
	"encoding/json"
	"net"
	"net/http"
	"time"
)

// bareAnswer has the shape of quire's bot_user answer, so that both servers encode and send
// about the same JSON (about 530 bytes).
type bareAnswer struct {
	Object        string   `json:"object"`
	ID            string   `json:"id"`
	Name          string   `json:"name"`
	WorkspaceID   string   `json:"workspace_id"`
	WorkspaceName string   `json:"workspace_name"`
	Owner         bareRef  `json:"owner"`
	Capabilities  bareCaps `json:"capabilities"`
	Type          string   `json:"type"`
	IntegrationID string   `json:"integration_id"`
	WorkspaceWide bool     `json:"workspace_scoped"`
}

type bareCaps struct {
	PagesRead      bool `json:"pages.read"`
	PagesWrite     bool `json:"pages.write"`
	BlocksRead     bool `json:"blocks.read"`
	BlocksWrite    bool `json:"blocks.write"`
	DatabasesRead  bool `json:"databases.read"`
	DatabasesWrite bool `json:"databases.write"`
	UsersRead      bool `json:"users.read"`
	UsersEmailRead bool `json:"users.email.read"`
	SearchRead     bool `json:"search.read"`
}

type bareRef struct {
	Object string `json:"object"`
	ID     string `json:"id"`
}

// theBareAnswer is what the bare handler encodes on every request.
var theBareAnswer = bareAnswer{
	Object: "bot_user", ID: "3af0f12b-5527-41f0-87b7-895af26a5003", Name: "bench bot",
	WorkspaceID: "ba2199bd-3edc-4077-9c98-9b76ff5d606d", WorkspaceName: "Bench",
	Owner: bareRef{Object: "user", ID: "c6863e11-93ec-4aca-b73e-c82e3ec174f3"},
	Capabilities: bareCaps{PagesRead: true, PagesWrite: true, BlocksRead: true, BlocksWrite: true,
		DatabasesRead: true, DatabasesWrite: true, UsersRead: true, UsersEmailRead: true, SearchRead: true},
	Type: "integration", IntegrationID: "b2f3cf97-54cb-4805-826c-ebb2d937b9c3", WorkspaceWide: true,
}

// bareHandler is the least a Go JSON API does per request: decode the JSON body when there is
// one, encode a value and write it. It answers every path and method, so that each measured
// endpoint's requests (bodies included) can be sent to it unchanged.
func bareHandler(answer any) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength != 0 {
			var body any
			if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
				http.Error(w, "bad JSON", http.StatusBadRequest)
				return
			}
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(answer)
	}
}

// bareServer is the bare handler listening on a loopback port in this process.
type bareServer struct {
	srv *http.Server
	url string
}

// startBare starts the bare handler answering answer on a free loopback port.
func startBare(answer any) (*bareServer, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	b := &bareServer{
		srv: &http.Server{Handler: bareHandler(answer), ReadHeaderTimeout: 10 * time.Second},
		url: "http://" + ln.Addr().String(),
	}
	go func() { _ = b.srv.Serve(ln) }()
	return b, nil
}

// stop closes the listener and every connection.
func (b *bareServer) stop() { _ = b.srv.Close() }
