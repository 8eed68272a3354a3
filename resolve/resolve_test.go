package resolve_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/papers-cli/papers/internal/hint"
	"github.com/papers-cli/papers/resolve"
	"github.com/papers-cli/papers/store"
)

// TestUntilCoversThePeriodNamed checks that Until names a whole day, month
// or year (--until 2023 keeps a paper of 2023-02-09), and that
// contradictory or malformed filters are invalid.
func TestUntilCoversThePeriodNamed(t *testing.T) {
	now := time.Now()
	for _, c := range []struct{ until, last string }{
		{"2023", "2023-12-31T23:59:59.999999999Z"},
		{"2023-02", "2023-02-28T23:59:59.999999999Z"},
		{"2024-02", "2024-02-29T23:59:59.999999999Z"},
		{"2023-02-09", "2023-02-09T23:59:59.999999999Z"},
		{"2023-02-09T10:00:00Z", "2023-02-09T10:00:00Z"},
	} {
		f, err := resolve.Filter{Until: c.until}.Check(now)
		if err != nil {
			t.Fatalf("--until %s: %v", c.until, err)
		}
		if got := f.Until.Format(time.RFC3339Nano); got != c.last {
			t.Errorf("--until %s ends at %s, want %s", c.until, got, c.last)
		}
	}
	f, err := resolve.Filter{Since: "2023"}.Check(now)
	if err != nil || f.Since.Format(time.DateOnly) != "2023-01-01" {
		t.Errorf("--since 2023 starts at %v (%v), want 2023-01-01", f.Since, err)
	}
	if d, err := resolve.Date("4w", now); err != nil || !d.Equal(now.AddDate(0, 0, -28)) {
		t.Errorf("Date(4w) = %v, %v; want 28 days back", d, err)
	}
	for _, bad := range []resolve.Filter{
		{Since: "2026-05-20", Until: "2026-05-10"},
		{Categories: []string{"cs.LG,cs.CL"}},
		{Until: "last week"},
	} {
		if _, err := bad.Check(now); !errors.Is(err, resolve.ErrInvalid) {
			t.Errorf("%+v: Check = %v, want ErrInvalid", bad, err)
		}
	}
}

// TestResolveNamesPapersAndTopics resolves papers by any spelling of their
// ids and topics by name in a real library; what it does not hold is an
// error naming it with a hint, matching store.ErrNotFound.
func TestResolveNamesPapersAndTopics(t *testing.T) {
	ctx := context.Background()
	lib, err := store.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer lib.Close()
	if err := lib.EnsureEmbedder(ctx, "test/one", 1); err != nil {
		t.Fatal(err)
	}
	if _, err := lib.Put(ctx, store.Paper{ID: "2501.12948", Version: 1, Title: "DeepSeek-R1", Source: "arxiv"},
		[]store.Chunk{{Seq: 0, Text: "DeepSeek-R1", Vector: []float32{1}}}); err != nil {
		t.Fatal(err)
	}
	for _, ref := range []string{"2501.12948", "2501.12948v2", "arXiv:2501.12948", "https://arxiv.org/abs/2501.12948v1"} {
		p, err := resolve.Paper(ctx, lib, ref)
		if err != nil || p.ID != "2501.12948" {
			t.Errorf("Paper(%q) = %q, %v", ref, p.ID, err)
		}
	}
	_, err = resolve.Paper(ctx, lib, "2210.03629")
	if !errors.Is(err, store.ErrNotFound) || err.Error() != "2210.03629 is not in the library" ||
		!strings.Contains(hint.Of(err), "papers ingest 2210.03629") {
		t.Errorf("a missing paper: %q (hint %q)", err, hint.Of(err))
	}
	if _, err := (resolve.Filter{Topics: []string{"agents"}}).Resolve(ctx, lib, time.Now()); !errors.Is(err, store.ErrNotFound) ||
		!strings.Contains(err.Error(), `no topic "agents"`) || !strings.Contains(hint.Of(err), "papers topic add agents") {
		t.Errorf("an unknown topic with none followed: %v (hint %q)", err, hint.Of(err))
	}
	if _, err := resolve.Topics(ctx, lib, nil); err == nil || hint.Of(err) == "" {
		t.Errorf("all topics of a library that follows none: %v, want an error with a hint", err)
	}
	if err := lib.AddTopic(ctx, store.Topic{Name: "RL", Query: "abs:rl"}); err != nil {
		t.Fatal(err)
	}
	f, err := resolve.Filter{Papers: []string{"2501.12948v1", "2501.12948"}, Topics: []string{"rl"}, Tags: []string{"x"}}.Resolve(ctx, lib, time.Now())
	if err != nil || strings.Join(f.IDs, ",") != "2501.12948" || strings.Join(f.Topics, ",") != "RL" || f.Tags[0] != "x" {
		t.Errorf("Resolve = %+v, %v", f, err)
	}
	if _, err := resolve.Topic(ctx, lib, "nope"); !strings.Contains(hint.Of(err), "the topics are: RL") {
		t.Errorf("an unknown topic: %v (hint %q)", err, hint.Of(err))
	}
}
