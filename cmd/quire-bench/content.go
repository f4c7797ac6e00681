package main

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// topic is what one page of seeded content is about: its words make the text, and a query that
// paraphrases it (no shared words needed) gives semantic search something to find.
type topic struct {
	name     string
	nouns    []string
	semantic string // a question about the topic, for POST /v2/search/semantic
}

var topics = []topic{
	{"Incident review", []string{"outage", "pager", "rollback", "latency spike", "postmortem", "on-call rotation", "error budget"},
		"what went wrong when the service went down in production"},
	{"Hiring plan", []string{"candidate", "interview loop", "job offer", "recruiter", "onboarding checklist", "headcount"},
		"how do we recruit and interview new engineers"},
	{"Quarterly roadmap", []string{"milestone", "roadmap", "launch date", "priority", "dependency", "quarterly goal"},
		"which features ship next quarter and in what order"},
	{"Budget", []string{"invoice", "forecast", "expense report", "vendor contract", "budget line", "cost centre"},
		"how much money are we spending on suppliers"},
	{"Database migration", []string{"schema change", "index", "replica", "backfill", "migration script", "query plan"},
		"moving our data to a new storage engine without downtime"},
	{"Design system", []string{"colour token", "button", "typography", "icon set", "spacing scale", "component library"},
		"the visual style guide for buttons and fonts"},
	{"Customer support", []string{"ticket queue", "refund", "escalation", "help article", "response time", "customer call"},
		"handling complaints and refunds from unhappy users"},
	{"Security review", []string{"access token", "threat model", "audit log", "encryption key", "vulnerability", "penetration test"},
		"keeping passwords and secrets safe from attackers"},
	{"Marketing campaign", []string{"newsletter", "landing page", "conversion rate", "press release", "ad budget", "webinar"},
		"promoting the product to attract more sign-ups"},
	{"Team offsite", []string{"agenda", "venue", "travel booking", "workshop", "team dinner", "retrospective"},
		"planning a trip for the whole team to meet in person"},
}

var verbs = []string{"reviewed", "updated", "scheduled", "discussed", "approved", "postponed", "drafted", "measured", "shared", "closed"}

// cjk is appended to one block in twenty, so that search also meets text without spaces.
var cjk = []string{"项目会议纪要", "東京オフィスの計画", "季度路线图评审", "顧客サポートの改善"}

// sentence is one block's text about t, from r; n numbers the block in the workspace.
func sentence(r *rand.Rand, t topic, n int) string {
	a, b, c := pick(r, t.nouns), pick(r, t.nouns), pick(r, t.nouns)
	var s string
	switch r.IntN(4) {
	case 0:
		s = fmt.Sprintf("The team %s the %s for the %s.", pick(r, verbs), a, b)
	case 1:
		s = fmt.Sprintf("We %s the %s after the %s and the %s.", pick(r, verbs), a, b, c)
	case 2:
		s = fmt.Sprintf("%s: %s the %s by Friday.", capitalize(a), pick(r, verbs), b)
	default:
		s = fmt.Sprintf("Notes on the %s: %s, %s and %s.", a, b, c, pick(r, verbs))
	}
	if n%50 == 7 {
		s += fmt.Sprintf(" Ticket %s.", ticket(n))
	}
	if n%20 == 11 {
		s += " " + pick(r, cjk)
	}
	return s
}

// ticket names the ticket mentioned by block n (one block in fifty has one): a selective term.
func ticket(n int) string { return fmt.Sprintf("Q-%07d", n) }

func pick(r *rand.Rand, xs []string) string { return xs[r.IntN(len(xs))] }

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// richText is a one-item rich-text array.
func richText(s string) []any { return []any{map[string]any{"text": map[string]any{"content": s}}} }

// block makes the i-th block of a page: mostly paragraphs, with headings, to-dos, list items,
// quotes and code in fixed proportions, as notes look.
func block(r *rand.Rand, t topic, i, n int) map[string]any {
	typ, body := "paragraph", map[string]any{}
	switch {
	case i%25 == 0:
		typ = "heading_2"
		body["rich_text"] = richText(fmt.Sprintf("%s: %s", t.name, capitalize(pick(r, t.nouns))))
		return map[string]any{"type": typ, typ: body}
	case i%10 == 3:
		typ = "to_do"
		body["checked"] = i%20 == 3
	case i%10 == 6 || i%10 == 7:
		typ = "bulleted_list_item"
	case i%50 == 41:
		typ = "quote"
	case i%100 == 99:
		typ = "code"
		body["language"] = "sql"
		body["rich_text"] = richText(fmt.Sprintf("SELECT * FROM tickets WHERE id = '%s';", ticket(n)))
		return map[string]any{"type": typ, typ: body}
	}
	body["rich_text"] = richText(sentence(r, t, n))
	return map[string]any{"type": typ, typ: body}
}
