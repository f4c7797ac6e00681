package httpapi

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"

	"github.com/quire-dev/quire/internal/quire"
)

// The stream's documented schema is that of one message's data: kin-openapi is taught to read
// a text/event-stream body by checking every message's data against it.
func init() { openapi3filter.RegisterBodyDecoder("text/event-stream", decodeEventStream) }

func decodeEventStream(body io.Reader, _ http.Header, schema *openapi3.SchemaRef, _ openapi3filter.EncodingFn) (any, error) {
	var last any
	sc := bufio.NewScanner(body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		var v any
		if err := json.Unmarshal([]byte(data), &v); err != nil {
			return nil, fmt.Errorf("data is not JSON: %w", err)
		}
		if err := schema.Value.VisitJSON(v); err != nil {
			return nil, fmt.Errorf("event %s: %w", data, err)
		}
		last = v
	}
	if last == nil {
		return nil, errors.New("the stream sent no event")
	}
	return last, sc.Err()
}

// eventCases are the conformance cases of the feed. The stream's 200 must end for its body
// to be checked: the server's streams are stopped first, so it sends what there is and ends.
func eventCases(t testing.TB, e *env, pagesOnly string) []conformanceCase {
	e.mkPage(t, e.full, wsParent, "Evented")
	_, end := e.feed(t, e.full, "", "", 100)
	e.mkPage(t, e.full, wsParent, "Streamed")
	e.srv.Config.Handler.(*Server).StopStreams()
	usersOnly := e.token([]quire.Scope{quire.UsersRead}, true)
	return []conformanceCase{
		{name: "events", op: "list-events", path: "/v2/events", token: e.full, status: 200},
		{name: "events page", op: "list-events", path: "/v2/events?page_size=1&types=page.created", token: pagesOnly, status: 200},
		{name: "events without token", op: "list-events", path: "/v2/events", status: 401},
		{name: "events without a read scope", op: "list-events", path: "/v2/events", token: usersOnly, status: 403},
		{name: "events bad cursor", op: "list-events", path: "/v2/events?start_cursor=x", token: e.full, status: 400, semantic: true},
		{name: "event stream", op: "stream-events", path: "/v2/events/stream?start_cursor=" + url.QueryEscape(end), token: e.full, status: 200},
		{name: "event stream without token", op: "stream-events", path: "/v2/events/stream", status: 401},
		{name: "event stream bad type", op: "stream-events", path: "/v2/events/stream?types=nope", token: e.full, status: 400, semantic: true},
	}
}
