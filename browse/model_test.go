package browse_test

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"

	"github.com/papers-cli/papers/browse"
	"github.com/papers-cli/papers/embed"
	"github.com/papers-cli/papers/ingest"
	"github.com/papers-cli/papers/ingest/arxiv"
	"github.com/papers-cli/papers/ingest/arxiv/arxivtest"
	"github.com/papers-cli/papers/internal/shareddata"
	"github.com/papers-cli/papers/library"
	"github.com/papers-cli/papers/llm"
	"github.com/papers-cli/papers/llm/llmtest"
	"github.com/papers-cli/papers/store"
)

var update = flag.Bool("update", false, "rewrite the golden screens in testdata")

// now is the day the topic corpus was taken: its papers are of the last
// weeks, so the momentum and the chart have something to show.
var now = time.Date(2026, 5, 25, 12, 0, 0, 0, time.UTC)

var (
	buildOnce sync.Once
	builtDir  string
	buildErr  error
)

func TestMain(m *testing.M) {
	flag.Parse()
	code := m.Run()
	if builtDir != "" {
		os.RemoveAll(builtDir)
	}
	os.Exit(code)
}

// library is a copy of a library of the topic corpus (30 real papers of a
// feed's "RL for LLM Agents" page) as topic "rl", built once per test
// binary.
func testLibrary(t testing.TB) *store.Library {
	t.Helper()
	corpus := shareddata.Path(t, "topic", "rl-for-llm-agents.jsonl")
	buildOnce.Do(func() {
		builtDir, buildErr = os.MkdirTemp("", "browse-test-*")
		if buildErr == nil {
			buildErr = buildLibrary(builtDir, corpus)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	dir := t.TempDir()
	b, err := os.ReadFile(filepath.Join(builtDir, store.FileName))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, store.FileName), b, 0o600); err != nil {
		t.Fatal(err)
	}
	lib, err := store.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lib.Close() })
	return lib
}

func buildLibrary(dir, corpus string) error {
	ctx := context.Background()
	if _, err := ingest.Build(ctx, dir, embed.NewLocal(), ingest.Sources{Corpora: []string{corpus}}); err != nil {
		return err
	}
	lib, err := store.Open(ctx, dir)
	if err != nil {
		return err
	}
	defer lib.Close()
	if err := lib.AddTopic(ctx, store.Topic{Name: "rl", Query: "abs:agent", Description: "RL for LLM Agents", Created: now}); err != nil {
		return err
	}
	if err := lib.AddTopic(ctx, store.Topic{Name: "memory", Query: "abs:memory", Description: "Agent memory", Created: now}); err != nil {
		return err
	}
	ps, err := lib.List(ctx, store.Filter{})
	if err != nil {
		return err
	}
	var ids, mem []string
	for _, p := range ps {
		ids = append(ids, p.ID)
		if strings.Contains(strings.ToLower(p.Title), "memory") {
			mem = append(mem, p.ID)
		}
	}
	if err := lib.AddToTopic(ctx, "rl", ids); err != nil {
		return err
	}
	if err := lib.AddToTopic(ctx, "memory", mem); err != nil {
		return err
	}
	if _, err := lib.AddTags(ctx, "topic-002", []string{"to-read"}); err != nil {
		return err
	}
	_, err = lib.Save(ctx, []string{"topic-003"})
	return err
}

// driver runs a model as bubbletea would, synchronously: each command's
// message is fed back to Update until none is left (the spinner's ticks
// are dropped: they only animate).
type driver struct {
	t *testing.T
	m *browse.Model
}

func newDriver(t *testing.T, be browse.Backend, o browse.Options) *driver {
	d := &driver{t: t, m: browse.New(be, o)}
	d.run(d.m.Init())
	return d
}

func (d *driver) run(cmd tea.Cmd) {
	d.t.Helper()
	queue := []tea.Cmd{cmd}
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		if c == nil {
			continue
		}
		msg := c()
		switch msg := msg.(type) {
		case nil, spinner.TickMsg:
			continue
		case tea.BatchMsg:
			queue = append(queue, msg...)
			continue
		case tea.QuitMsg:
			continue
		}
		_, next := d.m.Update(msg)
		queue = append(queue, next)
	}
}

// send feeds msg and what follows from it.
func (d *driver) send(msg tea.Msg) {
	d.t.Helper()
	_, cmd := d.m.Update(msg)
	d.run(cmd)
}

// keys presses keys: named ones ("enter", "esc", "pgdown", "down") or
// each character of a word.
func (d *driver) keys(keys ...string) {
	d.t.Helper()
	for _, k := range keys {
		if msg, ok := named[k]; ok {
			d.send(msg)
			continue
		}
		for _, r := range k {
			d.send(tea.KeyPressMsg{Code: r, Text: string(r)})
		}
	}
}

var named = map[string]tea.KeyPressMsg{
	"enter":  {Code: tea.KeyEnter},
	"esc":    {Code: tea.KeyEscape},
	"down":   {Code: tea.KeyDown},
	"up":     {Code: tea.KeyUp},
	"pgdown": {Code: tea.KeyPgDown},
	"pgup":   {Code: tea.KeyPgUp},
	"space":  {Code: tea.KeySpace, Text: " "},
}

func (d *driver) screen() string { return d.m.View().Content }

// golden compares the screen with testdata/NAME.golden (-update rewrites it).
func (d *driver) golden(name string) {
	d.t.Helper()
	got := d.screen() + "\n"
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			d.t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			d.t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		d.t.Fatalf("%v (run go test ./browse -update to write it)", err)
	}
	if got != string(want) {
		d.t.Errorf("screen %s differs from its golden file:\n--- got\n%s--- want\n%s", name, got, want)
	}
}

func (d *driver) contains(what ...string) {
	d.t.Helper()
	s := d.screen()
	for _, w := range what {
		if !strings.Contains(s, w) {
			d.t.Errorf("the screen lacks %q:\n%s", w, s)
		}
	}
}

// backend is the Backend of a session over lib, changed by mods.
func backend(lib *store.Library, mods ...func(*library.Config)) *browse.Library {
	var cfg library.Config
	for _, m := range mods {
		m(&cfg)
	}
	be, err := browse.NewLibrary(context.Background(), library.Attach(cfg, lib))
	if err != nil {
		panic(err) // the library is open: nothing to fail
	}
	be.Now = func() time.Time { return now }
	return be
}

// withModel gives the session the model c configures.
func withModel(c llm.LLMConfig) func(*library.Config) {
	return func(cfg *library.Config) { cfg.LLM = c }
}

// The topic page at 80x24 and 120x40, and after a resize: header with the
// momentum sentence and the chart, the latest papers newest first with
// authors, affiliations, tags and the saved mark.
func TestPageScreens(t *testing.T) {
	lib := testLibrary(t)
	for _, sz := range []struct{ w, h int }{{80, 24}, {120, 40}} {
		d := newDriver(t, backend(lib), browse.Options{Topic: "rl", Width: sz.w, Height: sz.h})
		d.golden("page_" + strconv.Itoa(sz.w) + "x" + strconv.Itoa(sz.h))
		lines := strings.Split(d.screen(), "\n")
		if len(lines) != sz.h {
			t.Errorf("%dx%d: %d lines", sz.w, sz.h, len(lines))
		}
		for i, l := range lines {
			if w := len([]rune(l)); w > sz.w {
				t.Errorf("%dx%d: line %d is %d wide: %q", sz.w, sz.h, i, w, l)
			}
		}
	}
	d := newDriver(t, backend(lib), browse.Options{Topic: "rl", Width: 80, Height: 24})
	d.contains("rl · RL for LLM Agents", "papers in the last four weeks", "Latest papers 30", "▸ 2026-05-23 cs.LG", "Vaishnavi Shrivastava, Piero Kauffmann, Ahmed Awadallah +1 · Microsoft Rese…")
	d.send(tea.WindowSizeMsg{Width: 100, Height: 30})
	if lines := strings.Split(d.screen(), "\n"); len(lines) != 30 {
		t.Errorf("after a resize to 100x30: %d lines", len(lines))
	}
	d.golden("page_resized_100x30")
}

// Moving: j/k and arrows, g/G, PgDn/PgUp keep the cursor on screen.
func TestMoving(t *testing.T) {
	d := newDriver(t, backend(testLibrary(t)), browse.Options{Topic: "rl", Width: 80, Height: 24})
	d.keys("j", "j", "down")
	d.contains("▸ 2026-05-22 cs.CL    From Correctness to Preference")
	d.keys("k", "up")
	d.contains("▸ 2026-05-22 cs.AI    When Does Multi-Agent RL")
	d.keys("G")
	d.golden("page_end_80x24")
	d.keys("g")
	d.contains("▸ 2026-05-23 cs.LG    ECHO")
	d.keys("pgdown")
	if strings.Contains(d.screen(), "ECHO") {
		t.Error("PgDn left the first paper on screen")
	}
	d.keys("pgup")
	d.contains("▸ 2026-05-23 cs.LG    ECHO")
}

// Enter opens the paper: abstract, authors, affiliations, tags, chunks;
// it scrolls; s saves it (in the library too) and unsaves it; Esc goes back.
func TestOpenAndSave(t *testing.T) {
	lib := testLibrary(t)
	d := newDriver(t, backend(lib), browse.Options{Topic: "rl", Width: 80, Height: 24})
	d.keys("j", "enter")
	d.golden("paper_80x24")
	d.contains("authors:", "affiliations:", "tags:", "Multi-Agent LLM Systems", "to-read", "Abstract")
	d.keys("G")
	d.contains("Chunks 1", "[0] title and abstract")
	d.keys("s")
	d.contains("saved topic-002")
	if p, err := lib.Get(context.Background(), "topic-002"); err != nil || p.Saved.IsZero() {
		t.Errorf("s did not save topic-002 in the library: %+v, %v", p.Saved, err)
	}
	d.keys("esc")
	d.contains("When Does Multi-Agent RL Improve LLM Workflows? Workflo… ★")
	d.keys("s")
	if p, _ := lib.Get(context.Background(), "topic-002"); !p.Saved.IsZero() {
		t.Error("s again did not unsave topic-002")
	}
	if strings.Contains(d.screen(), "Workflo… ★") {
		t.Error("the page still marks topic-002 saved")
	}
}

// o opens the paper's page with the opener; with none, the URL is shown.
func TestOpenURL(t *testing.T) {
	lib := testLibrary(t)
	ctx := context.Background()
	p, err := lib.Get(ctx, "topic-001")
	if err != nil {
		t.Fatal(err)
	}
	cs, err := lib.ChunksWithVectors(ctx, p.ID)
	if err != nil {
		t.Fatal(err)
	}
	p.URL = "https://example.org/echo"
	if _, err := lib.Put(ctx, p, cs); err != nil {
		t.Fatal(err)
	}
	var opened []string
	d := newDriver(t, backend(lib), browse.Options{Topic: "rl", Width: 80, Height: 24, Open: func(u string) error {
		opened = append(opened, u)
		return nil
	}})
	d.keys("o")
	if len(opened) != 1 || opened[0] != "https://example.org/echo" {
		t.Errorf("opened %q", opened)
	}
	d.contains("opened https://example.org/echo")
	d = newDriver(t, backend(lib), browse.Options{Topic: "rl", Width: 80, Height: 24})
	d.keys("o")
	d.contains("open in a browser: https://example.org/echo")
	d.keys("j", "o")
	d.contains("no PDF or page is known for topic-002")
}

// a asks the paper (AskPDF) offline: the answer streams into the screen
// with its citations; A asks the topic.
func TestAskPDFOffline(t *testing.T) {
	d := newDriver(t, backend(testLibrary(t)), browse.Options{Topic: "rl", Width: 80, Height: 24})
	d.keys("a")
	d.contains("Ask topic-001: ")
	d.keys("What does ECHO predict?", "enter")
	d.golden("askpdf_offline_80x24")
	d.contains("Q: What does ECHO predict?", "[1]", "Sources:", "topic-001")
	d.keys("esc", "A", "Which agents learn memory?", "enter")
	d.contains("Ask about rl", "Sources:")
}

// With a model, AskPDF streams the model's answer and checks its
// citations, as papers ask does; Esc cancels an answer that does not come.
func TestAskPDFModelAndCancel(t *testing.T) {
	lib := testLibrary(t)
	srv := llmtest.NewServer(t, llmtest.Options{Reply: "ECHO trains the policy to predict the terminal's observation tokens [1]."})
	be := backend(lib, withModel(llm.LLMConfig{Spec: "test-model", APIKey: "sk-test", BaseURL: srv.BaseURL()}))
	d := newDriver(t, be, browse.Options{Topic: "rl", Width: 120, Height: 40})
	d.keys("a", "What does ECHO predict?", "enter")
	d.contains("ECHO trains the policy to predict the terminal's observation tokens [1].", "(test-model, 1 citation)", "[1] topic-001")
	d.golden("askpdf_model_120x40")

	stall := llmtest.NewServer(t, llmtest.Options{Reply: "ECHO is", Stall: true})
	be = backend(lib, withModel(llm.LLMConfig{Spec: "test-model", APIKey: "sk-test", BaseURL: stall.BaseURL(), FirstTokenTimeout: -1, IdleTimeout: -1}))
	d = newDriver(t, be, browse.Options{Topic: "rl", Width: 80, Height: 24})
	// Enter by hand: the driver would wait for the answer, which the
	// server never finishes (the answer runs in its own goroutine).
	d.keys("a", "What does ECHO predict?")
	d.m.Update(tea.KeyPressMsg{Code: tea.KeyEnter})
	if !strings.Contains(d.screen(), "answering… Esc cancels") {
		t.Errorf("no spinner while answering:\n%s", d.screen())
	}
	d.keys("esc")
	d.contains("cancelled")
	if strings.Contains(d.screen(), "answering") {
		t.Errorf("still answering after Esc:\n%s", d.screen())
	}
}

// / searches the topic and lists the hits; Enter opens a hit's paper.
func TestSearch(t *testing.T) {
	d := newDriver(t, backend(testLibrary(t)), browse.Options{Topic: "rl", Width: 80, Height: 24})
	d.keys("/", "memory consolidation", "enter")
	d.golden("search_80x24")
	d.contains(`Search "memory consolidation" in rl`, "▸ 2026-05-20 Auto-Dreamer")
	d.keys("enter")
	d.contains("Auto-Dreamer: Learning Offline Memory Consolidation", "Abstract")
	// J/K in the reader move along the hits it was opened from.
	d.keys("J")
	d.contains("What Training Data Teaches RL Memory Agents", "Abstract")
	d.keys("esc")
	d.contains(`Search "memory consolidation"`, "▸ 2026-05-21 What Training Data")
}

// A large page shows its newest papers at once and loads the rest after
// the first frame: the count is the whole page's from the start, the
// cursor stays where it was, and a save made before the rest came stays.
func TestPageLoadsInTwoSteps(t *testing.T) {
	lib := testLibrary(t)
	be := backend(lib)
	first, err := be.Page(context.Background(), "rl", 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(first.Papers) != 5 || first.Total != 30 || !first.Partial() {
		t.Fatalf("Page(rl, 5): %d papers of %d", len(first.Papers), first.Total)
	}
	d := &driver{t: t, m: browse.New(be, browse.Options{Topic: "rl", Page: first, Width: 80, Height: 24})}
	rest := d.m.Init()
	d.contains("Latest papers 30", "ECHO: Terminal Agents")
	d.keys("G")
	d.contains("▸ 2026-05-21 cs.CL    What Training Data") // the 5th, the last loaded
	d.keys("k", "s")
	d.contains("saved topic-004")
	d.run(rest)
	d.contains("Latest papers 30", "▸ 2026-05-22 cs.CL    From Correctness to Preference: A Framework for Persona… ★")
	d.keys("G")
	d.contains("▸ 2026-05-12 cs.LG    Missing Old Logits")
	if p, _ := lib.Get(context.Background(), "topic-004"); p.Saved.IsZero() {
		t.Error("s did not save topic-004")
	}
}

// J/K in the reader open the next and previous papers of the page, as the
// feed's reader does; at either end it says so and stays.
func TestReaderMoves(t *testing.T) {
	d := newDriver(t, backend(testLibrary(t)), browse.Options{Topic: "rl", Width: 80, Height: 24})
	d.keys("enter")
	d.contains("topic-001 · 0%", "ECHO: Terminal Agents")
	d.keys("K")
	d.contains("topic-001 · 0%", "the first paper of the list")
	d.keys("J", "J")
	d.contains("topic-003 · 0%", "Co-ReAct")
	d.keys("K")
	d.contains("topic-002 · 0%")
	d.keys("G", "J", "J", "J", "J", "J")
	d.contains("topic-007 · 0%")
	d.keys("esc")
	d.contains("▸ 2026-05-21 cs.CL    DeferMem")
	d.keys("G", "enter", "J")
	d.contains("topic-030", "the last paper of the list")
}

// r lists the papers most like the one under the cursor, with scores.
func TestRelated(t *testing.T) {
	d := newDriver(t, backend(testLibrary(t)), browse.Options{Topic: "rl", Width: 80, Height: 24})
	d.keys("r")
	d.golden("related_80x24")
	d.contains("Related to topic-001", "▸ 0.")
	d.keys("enter")
	d.contains("Abstract")
}

// t switches topic through the picker; without --topic the picker opens
// first; ? lists the keys; q quits.
func TestPickerHelpQuit(t *testing.T) {
	lib := testLibrary(t)
	d := newDriver(t, backend(lib), browse.Options{PickTopic: true, Width: 80, Height: 24})
	d.golden("picker_80x24")
	d.keys("j", "j", "enter")
	d.contains("rl · RL for LLM Agents", "Latest papers 30")
	d.keys("t", "k", "enter")
	d.contains("memory · Agent memory")
	d.keys("t", "g", "enter")
	d.contains("All papers · the whole library", "Latest papers 30")
	d.keys("?")
	d.golden("help_80x24")
	d.keys("esc")
	_, cmd := d.m.Update(tea.KeyPressMsg{Code: 'q', Text: "q"})
	if cmd == nil || cmd() != tea.Quit() {
		t.Error("q does not quit")
	}
}

// Colour is styles only: with it the screen has escape sequences, without
// it (NO_COLOR) none, and the same text.
func TestColor(t *testing.T) {
	lib := testLibrary(t)
	plain := newDriver(t, backend(lib), browse.Options{Topic: "rl", Width: 80, Height: 24}).screen()
	color := newDriver(t, backend(lib), browse.Options{Topic: "rl", Width: 80, Height: 24, Color: true}).screen()
	if strings.Contains(plain, "\x1b") {
		t.Error("the screen without colour has escape sequences")
	}
	if !strings.Contains(color, "\x1b[") {
		t.Error("the screen with colour has no styles")
	}
}

// A topic whose papers are all older than the chart's 12 weeks says when
// they are from, and one without a description says how to get one.
func TestStalePageWithoutDescription(t *testing.T) {
	lib := testLibrary(t)
	ctx := context.Background()
	if err := lib.AddTopic(ctx, store.Topic{Name: "bare", Query: "abs:agent", Created: now}); err != nil {
		t.Fatal(err)
	}
	if err := lib.AddToTopic(ctx, "bare", []string{"topic-001", "topic-002"}); err != nil {
		t.Fatal(err)
	}
	be := backend(lib)
	be.Now = func() time.Time { return time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC) }
	d := newDriver(t, be, browse.Options{Topic: "bare", Width: 120, Height: 40})
	d.contains("bare · no description yet: papers topic describe bare writes one",
		"0 papers in the last four weeks. (from the library; the newest paper is of 2026-05-23)", "Latest papers 2")
}

// Text from a corpus, a PDF or a model reaches the screen inert: a paper
// whose title, abstract, authors, tags, section, chunk and id carry escape
// sequences, C1 controls and bidirectional overrides draws none of them on
// any screen (page, paper, search, related, answer, status), colour off.
func TestUntrustedTextIsInert(t *testing.T) {
	lib := testLibrary(t)
	ctx := context.Background()
	const id = "evil\x1b]0;pwned\x07"
	text := "Cancer cells \x1b[2Jevade the immune\u009b31m system by expressing PD-L1 \u202eevil\u202c, which binds PD-1 on T cells."
	e := embed.NewLocal()
	vs, err := e.EmbedDocuments(ctx, []string{text, text})
	if err != nil {
		t.Fatal(err)
	}
	p := store.Paper{ID: id, Title: "Evil \x1b]0;pwned\x07title\x1b[2J", Abstract: text, Source: "jsonl",
		Authors: []string{"A. \x1b[31mRed"}, Affiliations: []string{"Lab\u009b2J"}, Categories: []string{"cs.\x1b[2JLG"},
		Tags: []store.Tag{{Name: "tag\x1b]0;x\x07", Source: "corpus"}}, Published: time.Date(2026, 5, 24, 0, 0, 0, 0, time.UTC)}
	chunks := []store.Chunk{{Seq: 0, Text: text, Vector: vs[0]}, {Seq: 1, PageStart: 1, PageEnd: 1, Section: "1 Intro\x1b[2J", Text: text, Vector: vs[1]}}
	if _, err := lib.Put(ctx, p, chunks); err != nil {
		t.Fatal(err)
	}
	if err := lib.AddToTopic(ctx, "rl", []string{id}); err != nil {
		t.Fatal(err)
	}
	d := newDriver(t, backend(lib), browse.Options{Topic: "rl", Width: 100, Height: 30})
	inert := func(screen string) {
		t.Helper()
		s := d.screen()
		if strings.ContainsAny(s, "\x1b\x07\u009b\u202e\u202c") {
			t.Errorf("the %s screen draws a control character:\n%q", screen, s)
		}
	}
	d.contains("Evil ]0;pwned title")
	inert("page")
	d.keys("enter")
	d.contains("Red", "1 Intro")
	inert("paper")
	d.keys("G")
	inert("paper's end")
	d.keys("s")
	d.contains("saved evil")
	inert("status")
	d.keys("esc", "/", "cancer cells immune system", "enter")
	d.contains("Evil ]0;pwned title")
	inert("search")
	d.keys("esc", "r")
	d.contains("Related to evil")
	inert("related")
	d.keys("esc", "a", "How do cancer cells evade the immune system?", "enter")
	d.contains("Sources:")
	inert("answer")
}

// With arXiv reachable the header's momentum is arXiv's, as papers
// momentum counts it (here an arXiv faked at the wire: 12 papers in the
// last four weeks, 6 in the four before), in place of the library's.
func TestMomentumFromArxiv(t *testing.T) {
	var entries []arxiv.Entry
	for i := range 18 {
		days := 1 + i*2 // 12 within 27 days of now, 6 in the four weeks before
		if i >= 12 {
			days = 30 + (i-12)*4
		}
		at := now.AddDate(0, 0, -days)
		entries = append(entries, arxiv.Entry{ID: fmt.Sprintf("2605.%05d", i+1), Version: 1, Title: fmt.Sprintf("Agents %d", i),
			Summary: "An agent paper.", Published: at, Updated: at})
	}
	srv := arxivtest.NewServer(t, arxivtest.Options{Entries: entries})
	ax := arxiv.New()
	ax.APIURL, ax.PDFURL, ax.Delay = srv.APIURL(), srv.PDFURL(), -1
	be := backend(testLibrary(t))
	be.Arxiv = ax
	d := newDriver(t, be, browse.Options{Topic: "rl", Online: true, Width: 120, Height: 40})
	d.contains("12 papers in the last four weeks, up 100% on the four weeks before.", "Latest papers 30")
	t.Log(strings.SplitN(d.screen(), "\n", 3)[1])
	if strings.Contains(d.screen(), "(from the library)") {
		t.Errorf("the momentum is still the library's:\n%s", d.screen())
	}
	// where the counts come from: arXiv's, for the topic's query, beside
	// what the library holds (the topic's papers came from a corpus)
	saysFlat(t, d.screen(), "(on arXiv, for its query "+testTopicQuery(t)+"; the library holds 30 from these weeks)")
	off := newDriver(t, backend(testLibrary(t)), browse.Options{Topic: "rl", Online: true, Width: 120, Height: 40})
	off.contains("30 papers in the last four weeks", "(from the library)")

	// arXiv counts none for the query: the page says so, and what the
	// library holds (it showed 0 papers and a flat chart, no more)
	none := arxivtest.NewServer(t, arxivtest.Options{})
	ax0 := arxiv.New()
	ax0.APIURL, ax0.PDFURL, ax0.Delay = none.APIURL(), none.PDFURL(), -1
	be0 := backend(testLibrary(t))
	be0.Arxiv = ax0
	z := newDriver(t, be0, browse.Options{Topic: "rl", Online: true, Width: 120, Height: 40})
	saysFlat(t, z.screen(), "0 papers in the last four weeks", "(on arXiv, for its query "+testTopicQuery(t)+"; the library holds 30 from these weeks;")
}

// saysFlat checks that the screen, its lines joined, says each of want.
func saysFlat(t *testing.T, screen string, want ...string) {
	t.Helper()
	flat := strings.Join(strings.Fields(screen), " ")
	for _, w := range want {
		if !strings.Contains(flat, w) {
			t.Errorf("the screen does not say %q:\n%s", w, screen)
		}
	}
}

// testTopicQuery is the query of the test library's topic.
func testTopicQuery(t *testing.T) string {
	tp, err := testLibrary(t).Topic(context.Background(), "rl")
	if err != nil {
		t.Fatal(err)
	}
	return tp.Query
}

// v asks each of the page's newest papers a question: the table papers
// review draws, one column more with each v; Esc goes back to the page.
func TestReviewView(t *testing.T) {
	d := newDriver(t, backend(testLibrary(t)), browse.Options{Topic: "rl", Width: 120, Height: 40})
	d.keys("v")
	d.contains("Ask each of 20 papers: ")
	d.keys("Method: What method does it propose?", "enter")
	d.contains("Review 20 papers of rl x 1 question · offline, 0 cells cached", "Paper", "Method", "1. ECHO", "topic-001")
	d.keys("v", "Which benchmarks are used?", "enter")
	d.golden("review_120x40")
	d.contains("x 2 questions · offline, 20 cells cached", "Benchmarks")
	d.keys("v", "What method does it propose?", "enter")
	d.contains("is asked twice")
	d.keys("esc")
	d.contains("Latest papers")
	d = newDriver(t, backend(testLibrary(t)), browse.Options{Topic: "rl", Width: 80, Height: 24})
	d.keys("v", "How much better is it?", "enter", "v", "Datasets", "enter", "v", "Limitations", "enter", "v", "Base models", "enter")
	d.golden("review_80x24")
}
