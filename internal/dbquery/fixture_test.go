package dbquery_test

import (
	"database/sql"
	"testing"
	"time"

	"github.com/quire-dev/quire/internal/dbquery"
	"github.com/quire-dev/quire/internal/quire"
)

const (
	dbID    = "db1"
	otherDB = "db2"
	u1      = "11111111-1111-4111-8111-111111111111"
	u2      = "22222222-2222-4222-8222-222222222222"
	p1      = "aaaaaaaa-0000-4000-8000-000000000001"
	p2      = "aaaaaaaa-0000-4000-8000-000000000002"
)

// now is a Wednesday: this week runs 2024-05-13 to 05-20 (UTC), the past week from 05-08.
var now = time.Date(2024, 5, 15, 10, 0, 0, 0, time.UTC)

// testSchema has a property of every filterable type, plus a formula that cannot be filtered.
var testSchema = dbquery.NewSchema([]dbquery.Property{
	{ID: "title", Name: "Name", Type: "title"},
	{ID: "nt", Name: "Notes", Type: "rich_text"},
	{ID: "ur", Name: "Web", Type: "url"},
	{ID: "em", Name: "Mail", Type: "email"},
	{ID: "ph", Name: "Phone", Type: "phone_number"},
	{ID: "sc", Name: "Score", Type: "number"},
	{ID: "ui", Name: "ID", Type: "unique_id"},
	{ID: "dn", Name: "Done", Type: "checkbox"},
	{ID: "sl", Name: "Stage", Type: "select", Options: []dbquery.Option{{ID: "a", Name: "Todo"}, {ID: "b", Name: "Doing"}, {ID: "c", Name: "Done"}, {ID: "d", Name: "Twin"}, {ID: "e", Name: "Twin"}}},
	{ID: "st", Name: "State", Type: "status", Options: []dbquery.Option{{ID: "s1", Name: "Not started"}, {ID: "s2", Name: "In progress"}, {ID: "s3", Name: "Complete"}}},
	{ID: "tg", Name: "Tags", Type: "multi_select", Options: []dbquery.Option{{ID: "x", Name: "red"}, {ID: "y", Name: "green"}, {ID: "z", Name: "blue"}}},
	{ID: "du", Name: "Due", Type: "date"},
	{ID: "pp", Name: "Owner", Type: "people"},
	{ID: "fl", Name: "Files", Type: "files"},
	{ID: "rl", Name: "Link", Type: "relation"},
	{ID: "ct", Name: "Created", Type: "created_time"},
	{ID: "et", Name: "Edited", Type: "last_edited_time"},
	{ID: "cb", Name: "Creator", Type: "created_by"},
	{ID: "eb", Name: "Editor", Type: "last_edited_by"},
	{ID: "fo", Name: "Calc", Type: "formula"},
})

func ms(s string) int64 {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t.UnixMilli()
}

func date(prop, iso string) value {
	m, _, ok := quire.ParseDate(iso)
	if !ok {
		panic(iso)
	}
	return tn(prop, iso, float64(m))
}

// records, in the default order (created desc, id desc): r6, r4, r3, r2, r1. r5 is in trash and
// r9 lives in another database with the same property ids.
var records = []record{
	{id: "r1", db: dbID, created: ms("2024-05-01T00:00:00Z"), edited: ms("2024-05-11T00:00:00Z"), createdBy: u1, editedBy: u2,
		values: []value{tv("title", "Apple pie"), tv("nt", "Tasty 100% butter_cream"), tv("ur", "https://apple.example/pie"),
			tv("em", "a@example.com"), tv("ph", "+1 555 0100"), nv("sc", 10), nv("ui", 1), nv("dn", 1), tn("sl", "a", 0),
			tn("st", "s1", 0), tv("tg", "x"), tv("tg", "y"), date("du", "2024-05-10"), tv("pp", u1), tv("fl", "a.pdf"), tv("rl", p1)}},
	{id: "r2", db: dbID, created: ms("2024-05-06T12:00:00Z"), edited: ms("2024-05-06T12:00:00Z"), createdBy: u2, editedBy: u2,
		values: []value{tv("title", "banana split"), tv("nt", "ÄPFEL und birnen"), tv("em", "b@example.org"), nv("sc", 5.5),
			nv("ui", 2), nv("dn", 0), tn("sl", "b", 1), tn("st", "s2", 1), tv("tg", "z"), date("du", "2024-05-10T15:00:00Z"),
			tv("pp", u2), tv("rl", p1), tv("rl", p2)}},
	{id: "r3", db: dbID, created: ms("2024-05-10T00:00:00Z"), edited: ms("2024-05-12T08:00:00Z"), createdBy: u1, editedBy: u1,
		values: []value{tv("title", "Cherry"), tv("ur", "http://cherry.test"), nv("ui", 3), nv("dn", 0), tn("st", "s3", 2),
			date("du", "2024-05-11"), tv("pp", u1), tv("pp", u2), tv("fl", "c.png"), tv("fl", "d.txt")}},
	{id: "r4", db: dbID, created: ms("2024-05-12T09:00:00Z"), edited: ms("2024-05-12T09:30:00Z"), createdBy: u2, editedBy: u1,
		values: []value{tv("title", "apple tart"), tv("nt", "100 percent"), tv("ph", "555-0199"), nv("sc", -3), nv("ui", 4),
			tn("sl", "c", 2), tv("tg", "x"), date("du", "2024-06-01T00:00:00+02:00"), tv("rl", p2)}},
	{id: "r5", db: dbID, trash: true, created: ms("2024-05-02T00:00:00Z"), edited: ms("2024-05-02T00:00:00Z"), createdBy: u1, editedBy: u1,
		values: []value{tv("title", "Apple trash"), nv("sc", 10), tn("sl", "a", 0), nv("dn", 1)}},
	{id: "r6", db: dbID, created: ms("2024-05-12T09:00:00Z"), edited: ms("2024-05-12T09:00:00Z"), createdBy: u1, editedBy: u1,
		values: []value{tv("title", "Date"), tv("nt", "äpfel"), nv("sc", 10), nv("ui", 6), nv("dn", 1), tn("sl", "a", 0)}},
	{id: "r9", db: otherDB, created: ms("2024-05-03T00:00:00Z"), edited: ms("2024-05-03T00:00:00Z"), createdBy: u1, editedBy: u1,
		values: []value{tv("title", "Apple other"), nv("sc", 10), tn("sl", "a", 0), nv("dn", 1), tv("pp", u1)}},
}

func seedFixture(t testing.TB, db *sql.DB) { insert(t, db, records) }
