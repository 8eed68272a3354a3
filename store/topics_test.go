package store_test

import (
	"context"
	"errors"
	"math/rand/v2"
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
	if err := lib.AddToTopic(ctx, "AGENTS", []string{"2601.00001", "2601.00002"}); err != nil {
		t.Fatal(err)
	}
	if err := lib.AddToTopic(ctx, "rl", []string{"2601.00002", "2601.00003"}); err != nil {
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
