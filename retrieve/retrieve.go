package retrieve

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/papers-cli/papers/embed"
	"github.com/papers-cli/papers/internal/cite"
	"github.com/papers-cli/papers/role"
	"github.com/papers-cli/papers/store"
)

// Passage is one retrieved chunk with the paper it belongs to: the unit that
// search prints and that answers cite.
//
// Retrieve returns passages best first; Rank is the 1-based position in that
// list. Score is the fused relevance score of the mode used (higher is
// better); it orders one result list and is not comparable across queries or
// modes.
type Passage struct {
	ChunkID   string `json:"chunk"` // store.ChunkID(PaperID, Seq): "<paper id>#<seq>"
	PaperID   string `json:"id"`
	Seq       int    `json:"seq"`        // 0 is the title+abstract chunk
	PageStart int    `json:"page_start"` // 1-based page span of the chunk; 0 for the abstract
	PageEnd   int    `json:"page_end"`
	Section   string `json:"section,omitempty"` // section heading in force, if detected
	// Role is what the chunk's text is (role.Body for prose; role.Table,
	// role.Caption, role.Figure, role.Footnote, role.Reference,
	// role.Equation): answers quote prose only.
	Role  role.Role   `json:"role"`
	Text  string      `json:"text"`
	Score float64     `json:"score"`
	Rank  int         `json:"rank"`
	Paper store.Paper `json:"-"` // the paper's metadata (title, version, authors, ...)
	// Neighbour marks a chunk that was not retrieved but follows a
	// retrieved one in its paper, added for the offline answer to read a
	// list or paragraph on into it (Rank and Score are 0).
	Neighbour bool `json:"neighbour,omitempty"`
}

// Pages renders the page span for people and citations: "" for the
// abstract, "3" for one page, "3-4" for a span.
func (p Passage) Pages() string { return cite.Pages(p.PageStart, p.PageEnd) }

// Mode selects the retrieval signals.
type Mode string

// The retrieval modes: Hybrid fuses lexical BM25 (with pseudo-relevance
// feedback, see Retriever.Feedback) with dense similarity; BM25 and Dense
// use one signal alone.
const (
	Hybrid Mode = "hybrid"
	BM25   Mode = "bm25"
	Dense  Mode = "dense"
)

// ParseMode accepts "hybrid", "bm25" and "dense"; "" means Hybrid.
func ParseMode(s string) (Mode, error) {
	switch Mode(s) {
	case "", Hybrid:
		return Hybrid, nil
	case BM25, Dense:
		return Mode(s), nil
	}
	return "", fmt.Errorf("unknown retrieval mode %q (want hybrid, bm25 or dense)", s)
}

// The defaults of Options.
const (
	DefaultK        = 10 // passages
	DefaultPerPaper = 3  // passages of one paper
)

// Options tunes Retrieve. The zero value asks for the DefaultK best
// passages in hybrid mode, at most DefaultPerPaper from one paper.
type Options struct {
	K        int  // passages to return (default DefaultK)
	Mode     Mode // default Hybrid
	PerPaper int  // at most this many passages of one paper (default DefaultPerPaper; < 0: no limit)
	// Filter selects the papers searched: ids, categories, authors,
	// published since/until (see store.Filter; Limit is ignored).
	Filter store.Filter
}

func (o Options) withDefaults() Options {
	if o.K <= 0 {
		o.K = DefaultK
	}
	if o.Mode == "" {
		o.Mode = Hybrid
	}
	if o.PerPaper == 0 {
		o.PerPaper = DefaultPerPaper
	}
	return o
}

// Index is what retrieval needs of the library; *store.Library satisfies it.
type Index interface {
	// SearchText ranks chunks by BM25 over their text and paper title,
	// with the pseudo-relevance feedback fb.
	SearchText(ctx context.Context, query string, k int, f store.Filter, fb store.Feedback) ([]store.Hit, error)
	// SearchVectors ranks chunks by cosine similarity to q.
	SearchVectors(ctx context.Context, q []float32, k int, f store.Filter) ([]store.Hit, error)
	// ChunkTexts returns the chunks with the given ChunkIDs.
	ChunkTexts(ctx context.Context, ids []string) (map[string]store.Chunk, error)
	// List returns the papers f selects.
	List(ctx context.Context, f store.Filter) ([]store.Paper, error)
	// Chunks returns a paper's chunks in order (for answers, which read
	// the whole of the papers they answer from).
	Chunks(ctx context.Context, paperID string) ([]store.Chunk, error)
}

var _ Index = (*store.Library)(nil)

// Fusion says how hybrid retrieval combines its two ranked lists. The
// defaults (DefaultFusion) were tuned on the SciFact train split only.
type Fusion struct {
	// Method is "rrf" (reciprocal rank) or "score" (min-max normalised
	// scores, weighted sum).
	Method string
	// DenseWeight is the dense list's weight; the lexical list weighs 1.
	DenseWeight float64
	// RRFK is the rank offset of reciprocal-rank fusion.
	RRFK float64
	// Depth is how many candidates each list contributes (at least 2K).
	Depth int
}

// DefaultFusion is the hybrid configuration tuned on the SciFact train
// split with the local embedder (BENCHMARKS.md, "Retrieval"): min-max score
// fusion beat reciprocal rank (0.709 vs 0.703 nDCG@10 at best), and the
// lexical list carries nearly all the weight because the local embedder is
// lexical too (alone it scores 0.55 to BM25's 0.72): dense weights 0, 0.02,
// 0.05 and 0.1 gave 0.7163, 0.7169, 0.7168 and 0.7161.
var DefaultFusion = Fusion{Method: "score", DenseWeight: 0.02, RRFK: 60, Depth: 300}

// SemanticFusion is the hybrid configuration for the openai: and ollama:
// embedders. Its dense weight is a prior, not a measurement (no model could
// be reached here): with min-max normalised scores, a semantic ranking
// usually earns a weight of the order of the lexical one's. Tune it with
// papers eval --dense-weight.
var SemanticFusion = Fusion{Method: "score", DenseWeight: 0.5, RRFK: 60, Depth: 300}

// FusionFor returns the default fusion for an embedder: DefaultFusion for
// the local one (or none), SemanticFusion for the others.
func FusionFor(e embed.Embedder) Fusion {
	if e == nil || strings.HasPrefix(e.Name(), "local/") {
		return DefaultFusion
	}
	return SemanticFusion
}

// DefaultFeedback is the pseudo-relevance feedback of the lexical ranking,
// tuned on the SciFact train split (BENCHMARKS.md, "Retrieval"): the query
// grows by the 20 terms most typical of its 10 best chunks, its own terms
// weighing 3 each. It raised hybrid nDCG@10 from 0.7086 to 0.7161.
var DefaultFeedback = store.Feedback{Docs: 10, Terms: 20, QueryWeight: 3, MinIDF: 1}

// Retriever finds the passages of a library that best match a query. Its
// fields are set once before use; it is then safe for concurrent use.
type Retriever struct {
	Index    Index
	Embedder embed.Embedder  // must be the embedder that made the library's vectors
	Fusion   Fusion          // zero value: FusionFor(Embedder)
	Feedback *store.Feedback // nil: DefaultFeedback; &store.Feedback{} for plain BM25
}

// Retrieve returns up to opt.K passages for query, best first, at most
// opt.PerPaper from one paper, among the papers opt.Filter selects. Ties are
// broken by chunk id, so the order is deterministic. No match is not an
// error: the result is empty (callers map that to "no evidence").
func (r *Retriever) Retrieve(ctx context.Context, query string, opt Options) ([]Passage, error) {
	opt = opt.withDefaults()
	fu := r.Fusion
	if fu.Method == "" {
		fu = FusionFor(r.Embedder)
	}
	depth := max(fu.Depth, 2*opt.K)
	if opt.PerPaper > 0 {
		// Diversification drops candidates: fetch more when few per paper
		// are allowed.
		depth = max(depth, 3*opt.K)
	}
	f := opt.Filter

	// The two rankings run at once: each is a scan of its own half of the
	// index (and the dense one may wait for an embedding server).
	var lex, dense []Scored
	g, gctx := errgroup.WithContext(ctx)
	if opt.Mode != Dense {
		g.Go(func() (err error) {
			lex, err = r.Lexical(gctx, query, depth, f)
			return err
		})
	}
	if opt.Mode != BM25 {
		g.Go(func() (err error) {
			dense, err = r.dense(gctx, query, depth, f)
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	if opt.Mode == Hybrid {
		// Vector matches under the noise floor are what unrelated texts
		// reach: in a fusion they only pad the tail with passages that share
		// nothing with the query, and alone they are no evidence, not a weak
		// result. (Dense mode returns the nearest neighbours whatever they
		// are.)
		floor := r.noiseFloor()
		dense = slices.DeleteFunc(dense, func(s Scored) bool { return s.Score < floor })
	}
	if len(dense) > 0 && (opt.Mode == Dense || len(lex) == 0) {
		// No chunk holds a word of the query: what the vectors find must
		// still share something with it (for embedders that can tell).
		// All the candidates are sifted, not the nearest few k: a larger
		// k must find what a smaller one does, and more (keeping the 3k
		// nearest first left -k 1 empty where -k 10 found 7).
		var err error
		enough := func(kept []Scored) bool { return len(diversify(kept, opt.K, opt.PerPaper)) == opt.K }
		if dense, err = r.overlapping(ctx, query, dense, enough); err != nil {
			return nil, err
		}
	}
	var ranked []Scored
	switch opt.Mode {
	case BM25:
		ranked = lex
	case Dense:
		ranked = dense
	default:
		ranked = fu.fuse(lex, dense)
	}
	return r.Hydrate(ctx, diversify(ranked, opt.K, opt.PerPaper))
}

// noiseFloor is the similarity below which the embedder's best match means
// nothing (embedders that know it say so; 0 otherwise).
func (r *Retriever) noiseFloor() float64 {
	if n, ok := r.Embedder.(interface{ NoiseFloor() float64 }); ok {
		return n.NoiseFloor()
	}
	return 0
}

// overlapper is an embedder that can tell a real match from hash noise
// (embed.Local: a shared word or character 5-gram).
type overlapper interface {
	Overlaps(query, text string) bool
}

// overlapping keeps the ranked chunks that share something with the query,
// when the embedder can tell; all of them otherwise (see sift).
func (r *Retriever) overlapping(ctx context.Context, query string, ranked []Scored, enough func([]Scored) bool) ([]Scored, error) {
	ov, ok := r.Embedder.(overlapper)
	if !ok {
		return ranked, nil
	}
	return r.sift(ctx, ranked, func(c store.Chunk) bool { return ov.Overlaps(query, c.Text) }, enough)
}

// sift keeps the ranked chunks that keep accepts, reading them in rank
// order a batch at a time, and stops once enough says the chunks kept so
// far suffice: what it keeps is always a prefix of what sifting them all
// would keep.
func (r *Retriever) sift(ctx context.Context, ranked []Scored, keep func(store.Chunk) bool, enough func([]Scored) bool) ([]Scored, error) {
	var kept []Scored
	for lo := 0; lo < len(ranked) && !enough(kept); {
		batch := ranked[lo:min(len(ranked), lo+max(32, 2*len(kept)))]
		lo += len(batch)
		ids := make([]string, len(batch))
		for i, s := range batch {
			ids[i] = s.ID
		}
		chunks, err := r.Index.ChunkTexts(ctx, ids)
		if err != nil {
			return nil, err
		}
		for _, s := range batch {
			if c, ok := chunks[s.ID]; ok && keep(c) {
				kept = append(kept, s)
			}
		}
	}
	return kept, nil
}

func (fu Fusion) fuse(lex, dense []Scored) []Scored {
	lists, w := [][]Scored{lex, dense}, []float64{1, fu.DenseWeight}
	if fu.Method == "rrf" {
		return FuseRRF(lists, w, fu.RRFK)
	}
	return FuseScores(lists, w)
}

// Lexical ranks up to k chunks of the papers f selects by BM25 over their
// text and title, with the retriever's feedback, best first (ties by chunk
// id). A query with no content words matches nothing.
func (r *Retriever) Lexical(ctx context.Context, query string, k int, f store.Filter) ([]Scored, error) {
	// Stop words only slow FTS5 down (they match nearly every chunk) and
	// move no ranking on SciFact.
	words := embed.ContentWords(query)
	if len(words) == 0 {
		return nil, nil
	}
	fb := DefaultFeedback
	if r.Feedback != nil {
		fb = *r.Feedback
	}
	hits, err := r.Index.SearchText(ctx, strings.Join(words, " "), k, f, fb)
	if err != nil {
		return nil, err
	}
	return fromHits(hits, false), nil
}

func (r *Retriever) dense(ctx context.Context, query string, k int, f store.Filter) ([]Scored, error) {
	if r.Embedder == nil {
		return nil, errors.New("dense retrieval needs an embedder")
	}
	q, err := r.Embedder.EmbedQuery(ctx, query)
	if err != nil {
		return nil, fmt.Errorf("embed the query: %w", err)
	}
	if isZero(q) {
		return nil, nil // nothing in the query the embedder could use
	}
	hits, err := r.Index.SearchVectors(ctx, q, k, f)
	if err != nil {
		return nil, err
	}
	return fromHits(hits, true), nil
}

// fromHits converts store hits; dense hits with no positive similarity
// share nothing with the query and are dropped.
func fromHits(hits []store.Hit, dense bool) []Scored {
	out := make([]Scored, 0, len(hits))
	for _, h := range hits {
		if dense && h.Score <= 0 {
			continue
		}
		out = append(out, Scored{ID: h.ChunkID, Score: float64(h.Score)})
	}
	sortScored(out) // the store breaks ties by (paper, seq); we use chunk id throughout
	return out
}

func isZero(v []float32) bool {
	for _, x := range v {
		if x != 0 {
			return false
		}
	}
	return true
}

// diversify keeps the first k of ranked with at most perPaper chunks of one
// paper (perPaper < 0: no limit).
func diversify(ranked []Scored, k, perPaper int) []Scored {
	out := make([]Scored, 0, min(k, len(ranked)))
	count := map[string]int{}
	for _, s := range ranked {
		if len(out) == k {
			break
		}
		pid, _, err := store.ParseChunkID(s.ID)
		if err != nil {
			continue
		}
		if perPaper > 0 && count[pid] >= perPaper {
			continue
		}
		count[pid]++
		out = append(out, s)
	}
	return out
}

// Hydrate fetches the text and paper of each ranked chunk: the passages,
// ranked as given (a chunk deleted since it was ranked is left out).
func (r *Retriever) Hydrate(ctx context.Context, ranked []Scored) ([]Passage, error) {
	if len(ranked) == 0 {
		return nil, nil
	}
	ids := make([]string, len(ranked))
	var pids []string
	seen := map[string]bool{}
	for i, s := range ranked {
		ids[i] = s.ID
		pid, _, _ := store.ParseChunkID(s.ID)
		if !seen[pid] {
			seen[pid] = true
			pids = append(pids, pid)
		}
	}
	chunks, err := r.Index.ChunkTexts(ctx, ids)
	if err != nil {
		return nil, err
	}
	papers, err := r.Index.List(ctx, store.Filter{IDs: pids})
	if err != nil {
		return nil, err
	}
	byID := make(map[string]store.Paper, len(papers))
	for _, p := range papers {
		byID[p.ID] = p
	}
	out := make([]Passage, 0, len(ranked))
	for _, s := range ranked {
		c, ok := chunks[s.ID]
		if !ok {
			continue // deleted since the search: skip rather than fail
		}
		out = append(out, Passage{
			ChunkID: s.ID, PaperID: c.PaperID, Seq: c.Seq, PageStart: c.PageStart, PageEnd: c.PageEnd,
			Section: c.Section, Role: c.Role.OfChunk(), Text: c.Text, Score: s.Score, Rank: len(out) + 1, Paper: byID[c.PaperID],
		})
	}
	return out, nil
}
