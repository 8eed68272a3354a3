// Package related finds the papers of the library most like a paper, at the
// level of papers: one vector each (store.PaperVectors: the mean of its
// chunk vectors), held in a chromem-go collection whose metadata carries
// each paper's topics, categories and year for chromem's `where` filters.
//
// chromem-go v0.7.0 has traps this package steps around (DESIGN.md): a
// query asking for more results than the collection holds is an error, so
// n is clamped to Count(); `where` is exact match only, so a paper's
// several topics and categories are one key each ("topic:NAME" = "1"),
// and a date range (Options.Since) is applied to the results, asking for
// more until enough pass; results share the collection's maps, which are
// never modified here; and ties come back in random order, so results are
// sorted by (score, id) and a query whose last place is a tie asks for
// more until the tie is whole. The results are then exactly those of a
// brute-force scan over the same vectors ranked the same way.
package related

import (
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/philippgille/chromem-go"

	"github.com/papers-cli/papers/store"
)

// DefaultK is how many related papers Related returns when Options.K is 0.
const DefaultK = 10

// ErrNoVector is returned for a paper that has no vector (no chunk
// vector: nothing to compare it by), or is not in the library.
var ErrNoVector = errors.New("has no vector to compare")

// Options narrow and size a query. Zero fields do not narrow.
type Options struct {
	K        int       // results (0: DefaultK)
	Topic    string    // only papers of this followed topic (case-insensitive)
	Category string    // only papers in this category ("cs.CL") or archive ("cs")
	Year     int       // only papers published this year
	Since    time.Time // only papers published on or after this
	// Exclude are papers never returned besides the query paper itself.
	Exclude []string
}

// Hit is one related paper: its id and the cosine similarity of its vector
// with the query's, higher first.
type Hit struct {
	ID    string  `json:"id"`
	Score float32 `json:"score"`
}

// Index is the chromem-go collection of a library's paper vectors (above
// MaxChromem papers, a scan of them). It is safe for concurrent queries.
// It holds the PaperVectors it was built from, which must stay open while
// it is used.
type Index struct {
	pv   *store.PaperVectors
	coll *chromem.Collection // nil: queries scan pv
}

// Build puts every paper of pv in a new in-memory chromem-go collection
// (chromem's own persistence is not used: the vectors persist in the
// library, see store.PaperVectors).
//
// The papers are added by one worker per CPU, each adding its share with
// AddDocument (safe for concurrent use): what it costs is its check that
// the vector is normalised (a norm in float64) and its copy of the
// metadata, per document; chromem's AddDocuments would start a goroutine
// per document for the same work.
func Build(ctx context.Context, pv *store.PaperVectors) (*Index, error) {
	if len(pv.Papers) > MaxChromem {
		return &Index{pv: pv}, nil // ranked by a scan (scan.go)
	}
	db := chromem.NewDB()
	coll, err := db.CreateCollection("papers", nil, noEmbedding)
	if err != nil {
		return nil, fmt.Errorf("related: %w", err)
	}
	workers := max(1, min(runtime.GOMAXPROCS(0), len(pv.Papers)/1024))
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var keys keyCache
			lo, hi := w*len(pv.Papers)/workers, (w+1)*len(pv.Papers)/workers
			for i := lo; i < hi; i++ {
				if (i-lo)%1024 == 0 && ctx.Err() != nil {
					errs[w] = ctx.Err()
					return
				}
				p := pv.Papers[i]
				doc := chromem.Document{ID: p.ID, Metadata: keys.metadataOf(p), Embedding: pv.Vector(i)}
				if err := coll.AddDocument(ctx, doc); err != nil {
					errs[w] = fmt.Errorf("related: add paper %s: %w", p.ID, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, err
	}
	return &Index{pv: pv, coll: coll}, nil
}

// noEmbedding is the collection's embedding function: every document and
// query comes with its vector, so it is never called.
func noEmbedding(context.Context, string) ([]float32, error) {
	return nil, errors.New("related: paper vectors come from the library, not from text")
}

// keyCache makes each metadata key and year string once, and one metadata
// map for all the papers whose metadata is the same: the papers of a
// library share a few hundred combinations of topics, categories and
// year. Sharing is safe because neither chromem-go nor this package ever
// writes a document's metadata after it is added.
type keyCache struct {
	topics, categories map[string]string
	years              map[int]string
	maps               map[string]map[string]string // by signature
	sig                []byte
}

// metadataOf is a paper's chromem metadata: one key per topic, category and
// archive (where is exact match on one value), and the year.
func (k *keyCache) metadataOf(p store.PaperMeta) map[string]string {
	if k.topics == nil {
		k.topics, k.categories, k.years, k.maps = map[string]string{}, map[string]string{}, map[int]string{}, map[string]map[string]string{}
	}
	// The signature: the numbers of topics and categories, each of them
	// length-prefixed, then the year if known; equal signatures give equal
	// maps.
	k.sig = binary.AppendUvarint(k.sig[:0], uint64(len(p.Topics)))
	k.sig = binary.AppendUvarint(k.sig, uint64(len(p.Categories)))
	for _, list := range [][]string{p.Topics, p.Categories} {
		for _, s := range list {
			k.sig = binary.AppendUvarint(k.sig, uint64(len(s)))
			k.sig = append(k.sig, s...)
		}
	}
	if !p.Published.IsZero() {
		k.sig = binary.AppendVarint(k.sig, int64(p.Published.Year()))
	}
	if m, ok := k.maps[string(k.sig)]; ok {
		return m
	}
	m := make(map[string]string, 1+len(p.Topics)+2*len(p.Categories))
	for _, t := range p.Topics {
		m[cached(k.topics, t, topicKey)] = "1"
	}
	for _, c := range p.Categories {
		m[cached(k.categories, c, categoryKey)] = "1"
		if a, _, ok := strings.Cut(c, "."); ok {
			m[cached(k.categories, a, categoryKey)] = "1"
		}
	}
	if !p.Published.IsZero() {
		y := p.Published.Year()
		s, ok := k.years[y]
		if !ok {
			s = strconv.Itoa(y)
			k.years[y] = s
		}
		m["year"] = s
	}
	k.maps[string(k.sig)] = m
	return m
}

// cached returns mk(name) from c, making it once.
func cached(c map[string]string, name string, mk func(string) string) string {
	s, ok := c[name]
	if !ok {
		s = mk(name)
		c[name] = s
	}
	return s
}

func topicKey(name string) string    { return "topic:" + strings.ToLower(strings.TrimSpace(name)) }
func categoryKey(name string) string { return "category:" + strings.ToLower(strings.TrimSpace(name)) }

// where is the chromem filter of o; nil (never an empty map) for none.
func (o Options) where() map[string]string {
	var w map[string]string
	set := func(k, v string) {
		if w == nil {
			w = map[string]string{}
		}
		w[k] = v
	}
	if o.Topic != "" {
		set(topicKey(o.Topic), "1")
	}
	if o.Category != "" {
		set(categoryKey(o.Category), "1")
	}
	if o.Year != 0 {
		set("year", strconv.Itoa(o.Year))
	}
	return w
}

// Len is the number of papers in the index.
func (x *Index) Len() int { return len(x.pv.Papers) }

// Has reports whether paper id has a vector in the index.
func (x *Index) Has(id string) bool { return x.pv.Index(id) >= 0 }

// Related returns the papers most like paper id (never id itself), best
// first, ties by id. A paper without a vector is ErrNoVector.
func (x *Index) Related(ctx context.Context, id string, o Options) ([]Hit, error) {
	i := x.pv.Index(id)
	if i < 0 {
		return nil, fmt.Errorf("paper %s %w", id, ErrNoVector)
	}
	o.Exclude = append(slices.Clip(o.Exclude), id)
	return x.query(ctx, x.pv.Vector(i), o)
}

// SeeAlso returns the papers most like the papers ids taken together (the
// normalised sum of their vectors), none of ids, best first: what an
// answer citing ids does not cite but a reader may want. Ids without a
// vector are passed over; none with one gives no hits.
func (x *Index) SeeAlso(ctx context.Context, ids []string, o Options) ([]Hit, error) {
	q := make([]float32, x.pv.Dims)
	n := 0
	for _, id := range ids {
		if i := x.pv.Index(id); i >= 0 {
			for d, v := range x.pv.Vector(i) {
				q[d] += v
			}
			n++
		}
	}
	if n == 0 {
		return nil, nil
	}
	o.Exclude = append(slices.Clip(o.Exclude), ids...)
	return x.query(ctx, q, o)
}

// query ranks the papers o allows by similarity to q.
func (x *Index) query(ctx context.Context, q []float32, o Options) ([]Hit, error) {
	k := o.K
	if k <= 0 {
		k = DefaultK
	}
	total := x.Len()
	if total == 0 || isZero(q) {
		return nil, nil
	}
	if x.coll == nil {
		return x.scan(ctx, q, o, k)
	}
	where := o.where()
	skip := make(map[string]bool, len(o.Exclude))
	for _, id := range o.Exclude {
		skip[id] = true
	}
	n := k + len(skip)
	for {
		n = min(n, total) // chromem refuses n > Count()
		res, err := x.coll.QueryEmbedding(ctx, q, n, where, nil)
		if err != nil {
			return nil, fmt.Errorf("related: %w", err)
		}
		hits := make([]Hit, 0, len(res))
		lowest := float32(0)
		for j, r := range res {
			if j == 0 || r.Similarity < lowest {
				lowest = r.Similarity
			}
			if skip[r.ID] || !o.Since.IsZero() && x.before(r.ID, o.Since) {
				continue
			}
			hits = append(hits, Hit{ID: r.ID, Score: r.Similarity})
		}
		sortHits(hits)
		// Complete when chromem returned every document the filter lets
		// through (fewer than asked), or when the last place kept scores
		// above the lowest returned: every paper scoring more was among
		// the results, ties included.
		if len(res) < n || n == total || len(hits) >= k && hits[k-1].Score > lowest {
			return hits[:min(k, len(hits))], nil
		}
		n *= 2
	}
}

// before reports whether paper id was published before t (or when unknown).
func (x *Index) before(id string, t time.Time) bool {
	i := x.pv.Index(id)
	return i < 0 || x.pv.Papers[i].Published.IsZero() || x.pv.Papers[i].Published.Before(t)
}

// sortHits orders hits by score, highest first, then by id.
func sortHits(hits []Hit) {
	slices.SortFunc(hits, func(a, b Hit) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
}

func isZero(v []float32) bool {
	for _, f := range v {
		if f != 0 {
			return false
		}
	}
	return true
}

// Library is what Open and Papers read.
type Library interface {
	PaperVectors(ctx context.Context) (*store.PaperVectors, error)
	List(ctx context.Context, f store.Filter) ([]store.Paper, error)
}

var _ Library = (*store.Library)(nil)

// Open reads lib's paper vectors and builds their index; Close releases
// them.
func Open(ctx context.Context, lib Library) (*Index, error) {
	pv, err := lib.PaperVectors(ctx)
	if err != nil {
		return nil, err
	}
	x, err := Build(ctx, pv)
	if err != nil {
		pv.Close()
		return nil, err
	}
	return x, nil
}

// Close releases the paper vectors the index was built from.
func (x *Index) Close() error { return x.pv.Close() }

// Result is a related paper with its record.
type Result struct {
	Paper store.Paper
	Score float32
}

// Papers reads the records of hits (without abstracts), in their order; a
// paper removed since the index was built is left out.
func Papers(ctx context.Context, lib Library, hits []Hit) ([]Result, error) {
	if len(hits) == 0 {
		return nil, nil
	}
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.ID
	}
	ps, err := lib.List(ctx, store.Filter{IDs: ids, Brief: true})
	if err != nil {
		return nil, err
	}
	byID := make(map[string]store.Paper, len(ps))
	for _, p := range ps {
		byID[p.ID] = p
	}
	out := make([]Result, 0, len(hits))
	for _, h := range hits {
		if p, ok := byID[h.ID]; ok {
			out = append(out, Result{Paper: p, Score: h.Score})
		}
	}
	return out, nil
}

// Find returns the papers of lib most like paper id (Index.Related), with
// their records: what papers related prints. A paper without a vector is
// ErrNoVector.
func Find(ctx context.Context, lib Library, id string, o Options) ([]Result, error) {
	x, err := Open(ctx, lib)
	if err != nil {
		return nil, err
	}
	defer x.Close()
	hits, err := x.Related(ctx, id, o)
	if err != nil {
		return nil, err
	}
	return Papers(ctx, lib, hits)
}

// SeeAlsoK is how many papers `papers ask --json` lists under "see_also".
const SeeAlsoK = 5

// SeeAlso returns the k papers of lib most like the papers ids together
// (Index.SeeAlso), with their records: what an answer citing ids does not
// cite but its reader may want. No ids, or none with a vector, give none.
func SeeAlso(ctx context.Context, lib Library, ids []string, k int) ([]Result, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	x, err := Open(ctx, lib)
	if err != nil {
		return nil, err
	}
	defer x.Close()
	hits, err := x.SeeAlso(ctx, ids, Options{K: k})
	if err != nil {
		return nil, err
	}
	return Papers(ctx, lib, hits)
}
