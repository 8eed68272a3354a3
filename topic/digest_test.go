package topic

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/papers-cli/papers/embed"
	"github.com/papers-cli/papers/ingest"
	"github.com/papers-cli/papers/internal/shareddata"
	"github.com/papers-cli/papers/store"
	"github.com/papers-cli/papers/store/storetest"
)

var (
	topicCorpus = filepath.Join(shareddata.Root(), "topic", "rl-for-llm-agents.jsonl")
	toolformer  = filepath.Join(shareddata.Root(), "pdfs", "papers", "toolformer_2302.04761v1.pdf")
)

// corpus is the topic corpus and Toolformer's PDF, ingested once per test
// binary.
var corpus = storetest.Shared{Build: func(ctx context.Context, dir string) error {
	_, err := ingest.Build(ctx, dir, embed.NewLocal(), ingest.Sources{Corpora: []string{topicCorpus},
		PDFs: []string{toolformer}})
	return err
}}

// corpusTopic is a library holding the topic corpus (30 real papers of a
// feed's "RL for LLM Agents" page, May 2026, with the feed's tags glued
// into one string each) and Toolformer's PDF (an arXiv paper), all in the
// followed topic "rl" with the description given.
func corpusTopic(t *testing.T, description string) (*store.Library, store.Topic) {
	t.Helper()
	for _, f := range []string{topicCorpus, toolformer} {
		if _, err := os.Stat(f); err != nil {
			shareddata.Missing(t, f, err)
		}
	}
	ctx := context.Background()
	lib := corpus.Open(t)
	tp := store.Topic{Name: "rl", Query: `abs:"reinforcement learning" AND abs:agent`, Description: description}
	if err := lib.AddTopic(ctx, tp); err != nil {
		t.Fatal(err)
	}
	ps, err := lib.List(ctx, store.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, p := range ps {
		ids = append(ids, p.ID)
	}
	if err := lib.AddToTopic(ctx, "rl", ids); err != nil {
		t.Fatal(err)
	}
	if tp, err = lib.Topic(ctx, "rl"); err != nil {
		t.Fatal(err)
	}
	return lib, tp
}

// may2026 is a week after the topic corpus's newest paper.
var may2026 = time.Date(2026, 5, 30, 0, 0, 0, 0, time.UTC)

// Offline, the digest opens with the papers grouped into themes named by
// the tags they share, each paper in one theme, cited by number; labels
// every paper of the topic has, or that are the topic's own words, are
// no theme.
func TestDigestThemesOffline(t *testing.T) {
	lib, tp := corpusTopic(t, "RL for LLM agents")
	d, err := Digest(context.Background(), lib, tp, DigestOptions{Since: may2026.AddDate(0, -1, 0), Now: may2026})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Papers) != 30 || d.Mode != "extractive" {
		t.Fatalf("%d papers, mode %s", len(d.Papers), d.Mode)
	}
	if len(d.Themes) < 4 || len(d.Themes) > maxThemes+1 {
		t.Fatalf("%d themes: %+v", len(d.Themes), d.Themes)
	}
	in := map[int]string{}
	names := map[string][]int{}
	for _, th := range d.Themes {
		if th.Name == "" || len(th.Papers) == 0 || th.By != "other" && len(th.Papers) < 2 {
			t.Errorf("theme %+v", th)
		}
		for _, n := range th.Papers {
			if prev, ok := in[n]; ok {
				t.Errorf("paper %d is in %q and %q", n, prev, th.Name)
			}
			in[n] = th.Name
		}
		names[th.Name] = th.Papers
		switch strings.ToLower(th.Name) {
		case "rl for llm agents", "reinforcement learning", "agents", "llm agents", "language model":
			t.Errorf("theme %q is what every paper is", th.Name)
		}
	}
	if len(in) != 30 {
		t.Errorf("%d of 30 papers are in a theme", len(in))
	}
	// the feed tags four papers "Credit Assignment in RL" and three "LLM
	// Agent Memory": a theme each (some of their papers may have gone to
	// an earlier theme)
	n := func(id string) int {
		for _, p := range d.Papers {
			if p.ID == id {
				return p.N
			}
		}
		t.Fatalf("%s not in the digest", id)
		return 0
	}
	if ps := names["Credit Assignment in RL"]; len(ps) < 2 || !slices.Contains(ps, n("topic-012")) {
		t.Errorf("credit assignment theme: %v (themes %+v)", ps, d.Themes)
	}
	if ps := names["LLM Agent Memory"]; len(ps) < 2 || !slices.Contains(ps, n("topic-007")) {
		t.Errorf("memory theme: %v", ps)
	}
	for _, th := range d.Themes {
		if !strings.Contains(d.Overview, "**"+th.Name+"**") {
			t.Errorf("the overview does not name %q:\n%s", th.Name, d.Overview)
		}
		for _, p := range th.Papers {
			if !strings.Contains(d.Overview, "["+itoa(p)+"]") {
				t.Errorf("the overview does not cite [%d]", p)
			}
		}
	}
	var md strings.Builder
	if err := WriteMarkdown(&md, d); err != nil {
		t.Fatal(err)
	}
	out := md.String()
	if i, j := strings.Index(out, "**Credit Assignment in RL**"), strings.Index(out, "1. **"); i < 0 || j < i {
		t.Errorf("the overview does not come before the papers:\n%.800s", out)
	}
	// corpus ids are not arXiv ids; Toolformer is on arXiv
	all, err := Digest(context.Background(), lib, tp, DigestOptions{Since: may2026.AddDate(-5, 0, 0), Now: may2026})
	if err != nil {
		t.Fatal(err)
	}
	md.Reset()
	if err := WriteMarkdown(&md, all); err != nil {
		t.Fatal(err)
	}
	if out := md.String(); strings.Contains(out, "arXiv:topic-") || !strings.Contains(out, "(2026-05-23). topic-001") || !strings.Contains(out, "(2023-02-09). arXiv:2302.04761") {
		t.Errorf("labels:\n%s", out)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// --rank relevance puts first the papers whose subject the topic's
// description names, however many common words the others share with it.
func TestDigestRelevanceByDescription(t *testing.T) {
	cases := []struct{ description, first string }{
		{"Reinforcement learning for LLM agents, e.g. the ReBel algorithm", "topic-012"},
		{"Terminal agents that learn world models from the environment's responses", "topic-001"},
		{"Agents automating spreadsheets", "topic-006"},
		{"This field studies how reinforcement learning trains large language model agents that act in environments over many steps. " +
			"Work here rewards beliefs rather than actions to assign credit [topic-012].", "topic-012"},
		{"Asynchronous off-policy RL and its missing old logits", "topic-030"},
	}
	for i, c := range cases {
		t.Run(strconv.Itoa(i)+"-"+c.first, func(t *testing.T) {
			lib, tp := corpusTopic(t, c.description)
			d, err := Digest(context.Background(), lib, tp, DigestOptions{Since: may2026.AddDate(-5, 0, 0), Now: may2026, Rank: RankRelevance})
			if err != nil {
				t.Fatal(err)
			}
			if d.Papers[0].ID != c.first {
				var got []string
				for _, p := range d.Papers[:5] {
					got = append(got, p.ID)
				}
				t.Errorf("%q: first %v, want %s", c.description, got, c.first)
			}
		})
	}
}

// An empty window says which wider window holds papers.
func TestDigestEmptyWindowSaysWider(t *testing.T) {
	lib, tp := corpusTopic(t, "RL for LLM agents")
	now := time.Date(2026, 12, 7, 0, 0, 0, 0, time.UTC)
	d, err := Digest(context.Background(), lib, tp, DigestOptions{Since: now.AddDate(0, 0, -7), Now: now})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Papers) != 0 || d.Wider == nil || d.Wider.Span != "1y" || d.Wider.Papers != 30 {
		t.Fatalf("empty window: %d papers, wider %+v", len(d.Papers), d.Wider)
	}
	var md strings.Builder
	WriteMarkdown(&md, d)
	if !strings.Contains(md.String(), "--since 1y (since 2025-12-07) holds 30") {
		t.Errorf("markdown:\n%s", md.String())
	}
	// with a tag only the tag's papers count
	d, err = Digest(context.Background(), lib, tp, DigestOptions{Since: now.AddDate(0, 0, -7), Now: now, Tags: []string{"Credit Assignment in RL"}})
	if err != nil {
		t.Fatal(err)
	}
	if d.Wider == nil || d.Wider.Papers != 4 {
		t.Errorf("tagged empty window: wider %+v", d.Wider)
	}
}
