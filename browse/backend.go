package browse

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/papers-cli/papers/ask"
	"github.com/papers-cli/papers/library"
	"github.com/papers-cli/papers/related"
	"github.com/papers-cli/papers/retrieve"
	"github.com/papers-cli/papers/review"
	"github.com/papers-cli/papers/store"
	"github.com/papers-cli/papers/topic"
)

// Backend is what the page reads and does: the library behind it. The
// model calls it only from tea.Cmds, never from Update or View.
type Backend interface {
	Topics(ctx context.Context) ([]store.Topic, error)
	// Page loads a topic's page, or the whole library's for "": its
	// newest limit papers (0: all of them).
	Page(ctx context.Context, topic string, limit int) (*Page, error)
	// OnlineMomentum measures the topic on arXiv (nil, nil when there is
	// no arXiv to ask).
	OnlineMomentum(ctx context.Context, t store.Topic) (*topic.Momentum, error)
	Paper(ctx context.Context, id string) (*Detail, error)
	SetSaved(ctx context.Context, id string, save bool) error
	// Ask answers question from the papers f selects, writing the answer
	// as it comes to w, in the mode `papers ask` would use.
	Ask(ctx context.Context, question string, f store.Filter, w io.Writer) (*ask.Result, error)
	Search(ctx context.Context, query string, f store.Filter) ([]retrieve.Passage, error)
	Related(ctx context.Context, id, topic string) ([]related.Result, error)
	// Review fills a literature-review table of papers x cols offline, as
	// papers review does (sharing its cache of cells).
	Review(ctx context.Context, papers []store.Paper, cols []review.Column) (*review.Table, error)
	// URL is where o opens a paper: its PDF when the library keeps one,
	// else its page ("" when it has neither).
	URL(p store.Paper) string
}

// Page is what the page shows: the topic (zero for the whole library),
// its momentum and its papers, newest first, without abstracts.
type Page struct {
	Topic    store.Topic
	All      bool // the whole library, not a topic
	Momentum *topic.Momentum
	// Held is the topic's momentum counted from the library, kept when
	// arXiv's replaces Momentum: the page says how the two differ (a
	// topic filled from a corpus may hold papers arXiv's count of its
	// query does not see).
	Held   *topic.Momentum
	Papers []store.Paper
	// Total is how many papers the page has: more than len(Papers) when
	// only the newest were loaded (the model then loads the rest).
	Total int
}

// Partial reports whether the page holds only its newest papers.
func (pg *Page) Partial() bool { return pg != nil && len(pg.Papers) < pg.Total }

// FirstPapers is how many papers the first frame loads: screens full, so
// that it shows at once however large the library; the rest follows.
const FirstPapers = 100

// Detail is one paper opened: its record with the abstract, and its
// chunks (text, pages and section; no vectors).
type Detail struct {
	Paper  store.Paper
	Chunks []store.Chunk
}

// Library is the Backend of a library session: it reads the session's
// library and asks, searches and relates through the session, as the
// commands do.
type Library struct {
	s   *library.Session
	Lib *store.Library // the session's library
	// Extractive answers offline even when the session has a model, as
	// papers ask --extractive.
	Extractive bool
	// Arxiv, if not nil, measures momentum on arXiv as `papers momentum`
	// does; the page shows the library's count until it answers.
	Arxiv topic.Arxiv
	// Now is the clock of momentum (nil: time.Now).
	Now func() time.Time

	mu  sync.Mutex
	rel *related.Index // built by the first Related
}

var _ Backend = (*Library)(nil)

// NewLibrary is the Backend of s's library, which must exist. Answers use
// the session's model (none: extractive).
func NewLibrary(ctx context.Context, s *library.Session) (*Library, error) {
	lib, err := s.Store(ctx)
	if err != nil {
		return nil, err
	}
	return &Library{s: s, Lib: lib}, nil
}

func (b *Library) now() time.Time {
	if b.Now != nil {
		return b.Now()
	}
	return time.Now()
}

// Topics returns the followed topics.
func (b *Library) Topics(ctx context.Context) ([]store.Topic, error) {
	return b.Lib.Topics(ctx)
}

// Page loads the page of topic name, or of the whole library for "",
// with its newest limit papers (0: all).
func (b *Library) Page(ctx context.Context, name string, limit int) (*Page, error) {
	pg := &Page{All: name == ""}
	f := store.Filter{Brief: true, Limit: limit}
	var err error
	if name != "" {
		if pg.Topic, err = b.Lib.Topic(ctx, name); err != nil {
			return nil, err
		}
		f.Topics = []string{pg.Topic.Name}
		pg.Momentum, err = topic.MomentumOffline(ctx, b.Lib, pg.Topic, b.now())
		pg.Held = pg.Momentum
	} else {
		pg.Momentum, err = topic.MomentumLibrary(ctx, b.Lib, b.now())
	}
	if err != nil {
		return nil, err
	}
	if pg.Papers, err = b.Lib.List(ctx, f); err != nil {
		return nil, err
	}
	pg.Total = len(pg.Papers)
	if limit > 0 && len(pg.Papers) == limit {
		if pg.All {
			pg.Total, _, err = b.Lib.Count(ctx)
		} else {
			pg.Total = pg.Topic.Papers
		}
		if err != nil {
			return nil, err
		}
		pg.Total = max(pg.Total, len(pg.Papers))
	}
	return pg, nil
}

// OnlineMomentum asks arXiv, when there is an arXiv to ask.
func (b *Library) OnlineMomentum(ctx context.Context, t store.Topic) (*topic.Momentum, error) {
	if b.Arxiv == nil {
		return nil, nil
	}
	return topic.MomentumOnline(ctx, b.Arxiv, t, b.now())
}

// Paper loads paper id with its abstract and chunks.
func (b *Library) Paper(ctx context.Context, id string) (*Detail, error) {
	p, err := b.Lib.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	cs, err := b.Lib.Chunks(ctx, id)
	if err != nil {
		return nil, err
	}
	return &Detail{Paper: p, Chunks: cs}, nil
}

// SetSaved saves or unsaves paper id.
func (b *Library) SetSaved(ctx context.Context, id string, save bool) error {
	var err error
	if save {
		_, err = b.Lib.Save(ctx, []string{id})
	} else {
		_, err = b.Lib.Unsave(ctx, []string{id})
	}
	return err
}

// Ask answers as `papers ask` does, on the papers f selects.
func (b *Library) Ask(ctx context.Context, question string, f store.Filter, w io.Writer) (*ask.Result, error) {
	return b.s.Ask(ctx, question, library.AskOptions{Filter: f, Extractive: b.Extractive}, w)
}

// Search returns the passages `papers search` would, 20 at most.
func (b *Library) Search(ctx context.Context, query string, f store.Filter) ([]retrieve.Passage, error) {
	ps, _, err := b.s.Search(ctx, query, library.SearchOptions{K: 20, Filter: f})
	return ps, err
}

// Related returns the papers most like id (in topic, when given). The
// paper-vector collection is built once, by the first call.
func (b *Library) Related(ctx context.Context, id, topicName string) ([]related.Result, error) {
	b.mu.Lock()
	x := b.rel
	b.mu.Unlock()
	if x == nil {
		var err error
		if x, err = related.Open(ctx, b.Lib); err != nil {
			return nil, err
		}
		b.mu.Lock()
		if b.rel == nil {
			b.rel = x
		} else {
			x.Close()
			x = b.rel
		}
		b.mu.Unlock()
	}
	hits, err := x.Related(ctx, id, related.Options{K: related.DefaultK, Topic: topicName})
	if err != nil {
		return nil, err
	}
	return related.Papers(ctx, b.Lib, hits)
}

// Review fills the table offline, as papers review does without --llm.
func (b *Library) Review(ctx context.Context, papers []store.Paper, cols []review.Column) (*review.Table, error) {
	spec := review.Spec{Columns: cols, Max: len(papers)}
	for _, p := range papers {
		spec.Papers = append(spec.Papers, p.ID)
	}
	res, err := b.s.Review(ctx, spec, library.ReviewOptions{})
	if res == nil {
		return nil, err
	}
	return res.Table, err
}

// Close releases what Related built.
func (b *Library) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.rel != nil {
		err := b.rel.Close()
		b.rel = nil
		return err
	}
	return nil
}

// URL is the PDF the library downloaded for p, when it did, else p's page.
func (b *Library) URL(p store.Paper) string {
	if p.Version > 0 && p.ArxivID != "" {
		name := strings.ReplaceAll(fmt.Sprintf("%sv%d", p.ArxivID, p.Version), "/", "_") + ".pdf"
		path := filepath.Join(b.Lib.Dir(), store.PDFCacheDir, name)
		if _, err := os.Stat(path); err == nil {
			return "file://" + path
		}
	}
	switch {
	case p.URL != "":
		return p.URL
	case p.ArxivID != "":
		return "https://arxiv.org/abs/" + p.ArxivID
	case p.Source == "arxiv":
		return "https://arxiv.org/abs/" + p.ID
	}
	return ""
}
