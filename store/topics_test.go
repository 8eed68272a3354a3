package store_test

import (
	"context"
	"database/sql"
	"errors"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/papers-cli/papers/store"
)

func TestTopics(t *testing.T) {
	ctx := context.Background()
	lib := openTest(t, t.TempDir())
	r := rand.New(rand.NewPCG(1, 2))
	for _, id := range []string{"2601.00001", "2601.00002", "2601.00003"} {
		if _, err := lib.Put(ctx, paper(id, "2026-01-05", []string{"cs.CL"}, []string{"Ada Lovelace"}), chunks(r, "text of "+id)); err != nil {
			t.Fatal(err)
		}
	}
	if err := lib.AddTopic(ctx, store.Topic{Name: "agents", Query: "abs:agent", Description: "LLM agents"}); err != nil {
		t.Fatal(err)
	}
	if err := lib.AddTopic(ctx, store.Topic{Name: "Agents", Query: "x"}); !errors.Is(err, store.ErrTopicExists) {
		t.Fatalf("second topic with the same name in another case: %v, want ErrTopicExists", err)
	}
	if err := lib.AddTopic(ctx, store.Topic{Name: "rl", Query: "abs:reinforcement"}); err != nil {
		t.Fatal(err)
	}
	if err := lib.AddTopicMembers(ctx, "AGENTS", store.TopicMembers{IDs: []string{"2601.00001", "2601.00002"}, Brought: []string{"2601.00001", "2601.00002"}}); err != nil {
		t.Fatal(err)
	}
	if err := lib.AddTopicMembers(ctx, "rl", store.TopicMembers{IDs: []string{"2601.00002", "2601.00003"}, Brought: []string{"2601.00002", "2601.00003"}}); err != nil {
		t.Fatal(err)
	}
	if err := lib.AddToTopic(ctx, "nope", []string{"2601.00002"}); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("add to a missing topic: %v, want ErrNotFound", err)
	}

	got, err := lib.List(ctx, store.Filter{Topics: []string{"agents"}})
	if err != nil {
		t.Fatal(err)
	}
	if s := ids(got); s != "2601.00001,2601.00002" {
		t.Errorf("List(topic agents) = %s", s)
	}
	hits, err := lib.SearchText(ctx, "text", 10, store.Filter{Topics: []string{"rl"}}, store.Feedback{})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 2 {
		t.Errorf("SearchText in topic rl: %d hits, want 2", len(hits))
	}

	// A new version replaces the paper's row; membership stays.
	p := paper("2601.00001", "2026-01-05", []string{"cs.CL"}, nil)
	p.Version = 2
	if res, err := lib.Put(ctx, p, chunks(r, "revised")); err != nil || res != store.Updated {
		t.Fatalf("put v2: %v %v", res, err)
	}
	tp, err := lib.Topic(ctx, "Agents")
	if err != nil {
		t.Fatal(err)
	}
	if tp.Papers != 2 || tp.Name != "agents" || tp.Description != "LLM agents" || !tp.LastUpdate.IsZero() {
		t.Errorf("Topic = %+v", tp)
	}

	ran := time.Date(2026, 2, 1, 6, 0, 0, 0, time.UTC)
	cursor := time.Date(2026, 1, 31, 18, 0, 0, 0, time.UTC)
	if err := lib.MarkTopicUpdated(ctx, "agents", ran, cursor); err != nil {
		t.Fatal(err)
	}
	if err := lib.MarkTopicUpdated(ctx, "agents", ran.Add(time.Hour), time.Time{}); err != nil {
		t.Fatal(err)
	}
	tp, _ = lib.Topic(ctx, "agents")
	if !tp.LastUpdate.Equal(ran.Add(time.Hour)) || !tp.Cursor.Equal(cursor) {
		t.Errorf("after two updates: last %v cursor %v", tp.LastUpdate, tp.Cursor)
	}

	// rm --purge deletes only the papers no other topic holds.
	purged, err := lib.RemoveTopic(ctx, "agents", true)
	if err != nil {
		t.Fatal(err)
	}
	if len(purged) != 1 || purged[0] != "2601.00001" {
		t.Errorf("purged %v, want [2601.00001]", purged)
	}
	all, _ := lib.List(ctx, store.Filter{})
	if s := ids(all); s != "2601.00002,2601.00003" {
		t.Errorf("library after purge: %s", s)
	}
	if _, err := lib.Topic(ctx, "agents"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("removed topic still there: %v", err)
	}
	// rm without purge keeps every paper.
	if purged, err := lib.RemoveTopic(ctx, "rl", false); err != nil || len(purged) != 0 {
		t.Fatalf("remove rl: %v %v", purged, err)
	}
	all, _ = lib.List(ctx, store.Filter{})
	if len(all) != 2 {
		t.Errorf("remove without purge deleted papers: %s", ids(all))
	}
	if err := lib.Check(ctx); err != nil {
		t.Error(err)
	}
	ts, err := lib.Topics(ctx)
	if err != nil || len(ts) != 0 {
		t.Errorf("Topics = %v, %v", ts, err)
	}
}

// topic rm --purge deletes only the papers the topic brought into the
// library; a paper that was there before the topic found it stays.
func TestRemoveTopicPurgeKeepsPapersNotBrought(t *testing.T) {
	ctx := context.Background()
	lib := openTest(t, t.TempDir())
	r := rand.New(rand.NewPCG(1, 3))
	for _, id := range []string{"2601.00001", "2601.00002"} {
		if _, err := lib.Put(ctx, paper(id, "2026-01-05", nil, nil), chunks(r, "text of "+id)); err != nil {
			t.Fatal(err)
		}
	}
	if err := lib.AddTopic(ctx, store.Topic{Name: "agents", Query: "abs:agent"}); err != nil {
		t.Fatal(err)
	}
	// 00001 was ingested on its own; the topic's update brought 00002.
	if err := lib.AddTopicMembers(ctx, "agents", store.TopicMembers{IDs: []string{"2601.00001", "2601.00002"}, Brought: []string{"2601.00002"}}); err != nil {
		t.Fatal(err)
	}
	purged, err := lib.RemoveTopic(ctx, "agents", true)
	if err != nil {
		t.Fatal(err)
	}
	all, _ := lib.List(ctx, store.Filter{})
	if len(purged) != 1 || purged[0] != "2601.00002" || ids(all) != "2601.00001" {
		t.Errorf("purged %v, library holds %s; want 2601.00002 purged and 2601.00001 kept", purged, ids(all))
	}
}

// TestPutBatchJoinsTopic: an Item's Membership is written with the paper:
// added papers join as brought, papers already held (updated or unchanged)
// join as not brought, and a missing topic fails the whole batch.
func TestPutBatchJoinsTopic(t *testing.T) {
	ctx := context.Background()
	lib := openTest(t, t.TempDir())
	r := rand.New(rand.NewPCG(1, 4))
	if _, err := lib.Put(ctx, paper("2601.00001", "2026-01-05", nil, nil), chunks(r, "held before")); err != nil {
		t.Fatal(err)
	}
	if err := lib.AddTopic(ctx, store.Topic{Name: "agents", Query: "abs:agent"}); err != nil {
		t.Fatal(err)
	}
	m := &store.Membership{Topic: "agents", MarkStored: true}
	held := paper("2601.00001", "2026-01-05", nil, nil)
	held.Version = 2
	items := []store.Item{
		{Paper: held, Chunks: chunks(r, "revised"), Member: m},
		{Paper: paper("2601.00002", "2026-01-06", nil, nil), Chunks: chunks(r, "new"), Member: m},
	}
	if _, err := lib.PutBatch(ctx, items); err != nil {
		t.Fatal(err)
	}
	since, err := lib.TopicPapersSince(ctx, "agents", time.Now().Add(-time.Hour))
	if err != nil || strings.Join(since, ",") != "2601.00001,2601.00002" {
		t.Errorf("TopicPapersSince = %v, %v: want both, stored by the topic just now", since, err)
	}
	bad := []store.Item{{Paper: paper("2601.00003", "2026-01-07", nil, nil), Chunks: chunks(r, "x"), Member: &store.Membership{Topic: "nosuch"}}}
	if _, err := lib.PutBatch(ctx, bad); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("PutBatch into a missing topic = %v, want ErrNotFound", err)
	}
	if _, err := lib.Get(ctx, "2601.00003"); !errors.Is(err, store.ErrNotFound) {
		t.Error("the paper of a failed batch was stored")
	}
	purged, err := lib.RemoveTopic(ctx, "agents", true)
	if err != nil || strings.Join(purged, ",") != "2601.00002" {
		t.Errorf("purged %v (%v): want only the paper the batch added", purged, err)
	}
}

// A schema 4 library whose topic_papers is from before the brought column
// gets it from the migration to schema 5, its rows counting as brought
// (what purge assumed of them then).
func TestTopicPapersMigration(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	lib := openTest(t, dir)
	r := rand.New(rand.NewPCG(1, 4))
	for _, id := range []string{"2601.00001", "2601.00002"} {
		if _, err := lib.Put(ctx, paper(id, "2026-01-05", nil, nil), chunks(r, "text of "+id)); err != nil {
			t.Fatal(err)
		}
	}
	lib.Close()
	db, err := sql.Open("sqlite", filepath.Join(dir, store.FileName))
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`DROP TABLE topic_papers`,
		`DROP TABLE topics`,
		`UPDATE manifest SET value = '4' WHERE key = 'schema'`,
		`PRAGMA user_version = 4`,
		`CREATE TABLE topics (name TEXT PRIMARY KEY COLLATE NOCASE, query TEXT NOT NULL, description TEXT NOT NULL DEFAULT '',
			created INTEGER NOT NULL, last_update INTEGER, cursor INTEGER)`,
		`CREATE TABLE topic_papers (topic TEXT NOT NULL COLLATE NOCASE REFERENCES topics (name) ON DELETE CASCADE ON UPDATE CASCADE,
			paper_id TEXT NOT NULL, added_at INTEGER NOT NULL, PRIMARY KEY (topic, paper_id)) WITHOUT ROWID`,
		`INSERT INTO topics (name, query, created) VALUES ('agents', 'abs:agent', 1)`,
		`INSERT INTO topic_papers VALUES ('agents', '2601.00001', 1)`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	db.Close()

	lib = openTest(t, dir)
	tp, err := lib.Topic(ctx, "agents")
	if err != nil || tp.Papers != 1 {
		t.Fatalf("old topic after migration: %+v, %v", tp, err)
	}
	if err := lib.AddToTopic(ctx, "agents", []string{"2601.00002"}); err != nil { // not brought
		t.Fatal(err)
	}
	purged, err := lib.RemoveTopic(ctx, "agents", true)
	if err != nil || len(purged) != 1 || purged[0] != "2601.00001" {
		t.Errorf("purge after migration: %v, %v; want the old row's paper 2601.00001 only", purged, err)
	}
}

func TestAddTopicRejectsBadNames(t *testing.T) {
	ctx := context.Background()
	lib := openTest(t, t.TempDir())
	for _, name := range []string{"", "  ", "two\nlines", "tab\tbed", "bell\a"} {
		t.Run(name, func(t *testing.T) {
			if err := lib.AddTopic(ctx, store.Topic{Name: name, Query: "abs:agent"}); err == nil {
				t.Errorf("AddTopic(%q) succeeded", name)
			}
		})
	}
	if ts, _ := lib.Topics(ctx); len(ts) != 0 {
		t.Errorf("topics after bad names: %+v", ts)
	}
}

// TestAddTopicRefusesInvalid: an empty name or query, or a name with a
// control character, is an *InvalidTopicError saying which, and adds nothing.
func TestAddTopicRefusesInvalid(t *testing.T) {
	ctx := context.Background()
	lib := openTest(t, t.TempDir())
	for _, c := range []struct {
		topic store.Topic
		want  store.TopicProblem
	}{
		{store.Topic{Name: "  ", Query: "abs:agent"}, store.TopicNoName},
		{store.Topic{Name: "two\nlines", Query: "abs:agent"}, store.TopicControlChar},
		{store.Topic{Name: "tab\tbed", Query: "abs:agent"}, store.TopicControlChar},
		{store.Topic{Name: "rl", Query: " "}, store.TopicNoQuery},
	} {
		err := lib.AddTopic(ctx, c.topic)
		var bad *store.InvalidTopicError
		if !errors.As(err, &bad) || bad.Problem != c.want || !errors.Is(err, store.ErrInvalidTopic) {
			t.Errorf("AddTopic(%q, %q) = %v, want problem %d", c.topic.Name, c.topic.Query, err, c.want)
		}
		if store.CheckTopic(c.topic) == nil {
			t.Errorf("CheckTopic(%q, %q) = nil", c.topic.Name, c.topic.Query)
		}
	}
	if ts, err := lib.Topics(ctx); err != nil || len(ts) != 0 {
		t.Errorf("topics after refusals: %v, %v", ts, err)
	}
	if err := store.CheckTopic(store.Topic{Name: " rl ", Query: "abs:agent"}); err != nil {
		t.Errorf("CheckTopic of a valid topic: %v", err)
	}
}
