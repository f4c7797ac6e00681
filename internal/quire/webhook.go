package quire

// Webhook statuses: an active webhook is delivered; a failing one kept failing for the whole
// retry window and waits, its backlog kept, until it is made active again.
const (
	WebhookActive  = "active"
	WebhookFailing = "failing"
)

// Webhook sends the events of its workspace to URL, in order, signed with Secret.
type Webhook struct {
	ID             string
	WorkspaceID    string
	URL            string
	EventTypes     []string // empty: every type
	Description    string
	Secret         string
	Status         string
	Position       int64 // the last event acknowledged or skipped
	CreatedMs      int64
	NextAttemptMs  int64
	Attempts       int   // failures of the event after Position
	FailingSinceMs int64 // when the first of those failed; 0 for none
}

// WebhookDelivery is one attempt to deliver an event.
type WebhookDelivery struct {
	ID         string
	WebhookID  string
	EventID    string
	EventSeq   int64
	Attempt    int    // 1 for the event's first
	StatusCode int    // 0 when no answer came
	Error      string // why the attempt failed, "" for an acknowledged one
	DurationMs int64
	CreatedMs  int64
}
