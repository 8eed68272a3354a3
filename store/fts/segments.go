package fts

import (
	"cmp"
	"container/heap"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
	"sort"
	"sync"

	"github.com/papers-cli/papers/internal/leview"
	"github.com/papers-cli/papers/internal/sections"
)

// An index that changes by parts is a Set of immutable Indexes (segments),
// each with the documents deleted from it since it was written. BM25 over
// the set is exact: the collection statistics (live documents, their
// tokens, and each term's live document frequency) are summed over the
// parts minus what their deleted documents held, which Deleted records when
// documents are deleted. Scores are therefore bit for bit those of one
// Index built from the live documents alone (TestSetMatchesOneIndex).

// Deleted is a set of deleted documents of one Index together with what
// BM25 must leave out of the statistics for them: their tokens and, per
// term, how many of them hold it. It is immutable; Index.Delete returns a
// new one.
type Deleted struct {
	docs   []uint32 // ascending
	bits   []uint64 // docs as a bitmap over the index's documents
	tokens uint64   // the deleted documents' lengths, summed
	terms  []uint32 // ascending term numbers (of the index) ...
	counts []uint32 // ... and how many deleted documents hold each
}

// Len is the number of deleted documents (0 for nil).
func (d *Deleted) Len() int {
	if d == nil {
		return 0
	}
	return len(d.docs)
}

// Has reports whether document doc is deleted (false for nil).
func (d *Deleted) Has(doc int) bool {
	return d != nil && doc>>6 < len(d.bits) && d.bits[doc>>6]&(1<<(doc&63)) != 0
}

// Docs returns the deleted documents, ascending. The caller must not
// modify them.
func (d *Deleted) Docs() []uint32 {
	if d == nil {
		return nil
	}
	return d.docs
}

func (d *Deleted) tokenCount() uint64 {
	if d == nil {
		return 0
	}
	return d.tokens
}

// df returns how many deleted documents hold term number t.
func (d *Deleted) df(t int) int {
	if d == nil {
		return 0
	}
	i, ok := slices.BinarySearch(d.terms, uint32(t))
	if !ok {
		return 0
	}
	return int(d.counts[i])
}

// Delete returns the deletions of x made of prev's (nil for none) and docs
// (in any order; documents already deleted are ignored). It costs a few
// nanoseconds per distinct term of each newly deleted document, plus a
// copy of prev.
func (x *Index) Delete(prev *Deleted, docs []uint32) (*Deleted, error) {
	fresh := make([]uint32, 0, len(docs))
	for _, d := range docs {
		if int(d) >= len(x.docLen) {
			return nil, fmt.Errorf("fts: delete document %d of an index of %d", d, len(x.docLen))
		}
		if !prev.Has(int(d)) {
			fresh = append(fresh, d)
		}
	}
	slices.Sort(fresh)
	fresh = slices.Compact(fresh)
	out := &Deleted{tokens: prev.tokenCount(), bits: make([]uint64, (len(x.docLen)+63)/64)}
	out.docs = make([]uint32, 0, prev.Len()+len(fresh))
	var pd []uint32
	if prev != nil {
		pd = prev.docs
	}
	i, j := 0, 0
	for i < len(pd) || j < len(fresh) {
		if j == len(fresh) || i < len(pd) && pd[i] < fresh[j] {
			out.docs = append(out.docs, pd[i])
			i++
		} else {
			out.docs = append(out.docs, fresh[j])
			j++
		}
	}
	for _, d := range out.docs {
		out.bits[d>>6] |= 1 << (d & 63)
	}
	var terms []uint32
	for _, d := range fresh {
		lo, hi, err := x.docRange(int(d))
		if err != nil {
			return nil, err
		}
		terms = append(terms, x.fwdTerm[lo:hi]...)
		out.tokens += uint64(x.docLen[d])
	}
	slices.Sort(terms)
	var pt, pc []uint32
	if prev != nil {
		pt, pc = prev.terms, prev.counts
	}
	i = 0
	for j := 0; i < len(pt) || j < len(terms); {
		var t uint32
		var c uint32
		switch {
		case j == len(terms) || i < len(pt) && pt[i] < terms[j]:
			t, c = pt[i], pc[i]
			i++
		default:
			t = terms[j]
			for j < len(terms) && terms[j] == t {
				c++
				j++
			}
			if i < len(pt) && pt[i] == t {
				c += pc[i]
				i++
			}
		}
		if int(t) >= len(x.termEnd) {
			return nil, ErrCorrupt
		}
		out.terms = append(out.terms, t)
		out.counts = append(out.counts, c)
	}
	return out, nil
}

// docRange returns where document d's forward entries are.
func (x *Index) docRange(d int) (lo, hi uint32, err error) {
	if d < 0 || d >= len(x.docLen) {
		return 0, 0, ErrCorrupt
	}
	if d > 0 {
		lo = x.docEnd[d-1]
	}
	hi = x.docEnd[d]
	if lo > hi || int(hi) > len(x.fwdTerm) {
		return 0, 0, ErrCorrupt
	}
	return lo, hi, nil
}

// Deleted's encoding (little-endian, 4-byte aligned from its start):
//
//	magic | docs u32 | terms u32 | tokens u64 | docs [docs]u32
//	| terms [terms]u32 | counts [terms]u32
const delMagic = "PAPDEL01"

// AppendBinary appends d's encoding to dst (nil encodes no deletions).
func (d *Deleted) AppendBinary(dst []byte) []byte {
	var e Deleted
	if d != nil {
		e = *d
	}
	le := binary.LittleEndian
	dst = append(dst, delMagic...)
	dst = le.AppendUint32(dst, uint32(len(e.docs)))
	dst = le.AppendUint32(dst, uint32(len(e.terms)))
	dst = le.AppendUint64(dst, e.tokens)
	dst = append(dst, leview.Bytes(e.docs)...)
	dst = append(dst, leview.Bytes(e.terms)...)
	return append(dst, leview.Bytes(e.counts)...)
}

// ParseDeleted reads deletions of x encoded by AppendBinary. It checks that
// they fit x (documents and terms in range and ascending, no term deleted
// from more documents than hold it, the token count) and copies what it
// keeps, so b may be reused.
func ParseDeleted(b []byte, x *Index) (*Deleted, error) {
	const head = 8 + 4 + 4 + 8
	if len(b) < head || string(b[:8]) != delMagic {
		return nil, ErrCorrupt
	}
	le := binary.LittleEndian
	nd, nt := int(le.Uint32(b[8:])), int(le.Uint32(b[12:]))
	if nd > len(x.docLen) || nt > len(x.termEnd) || len(b) != head+4*nd+8*nt {
		return nil, ErrCorrupt
	}
	d := &Deleted{
		docs:   slices.Clone(leview.Of[uint32](b[head:], nd)),
		terms:  slices.Clone(leview.Of[uint32](b[head+4*nd:], nt)),
		counts: slices.Clone(leview.Of[uint32](b[head+4*nd+4*nt:], nt)),
		bits:   make([]uint64, (len(x.docLen)+63)/64),
	}
	var tokens uint64
	for i, doc := range d.docs {
		if int(doc) >= len(x.docLen) || i > 0 && doc <= d.docs[i-1] {
			return nil, ErrCorrupt
		}
		d.bits[doc>>6] |= 1 << (doc & 63)
		tokens += uint64(x.docLen[doc])
	}
	if tokens != le.Uint64(b[16:]) {
		return nil, ErrCorrupt
	}
	d.tokens = tokens
	for i, t := range d.terms {
		if int(t) >= len(x.termEnd) || i > 0 && t <= d.terms[i-1] || d.counts[i] == 0 || int(d.counts[i]) > x.df(int(t)) {
			return nil, ErrCorrupt
		}
	}
	return d, nil
}

// df is the number of documents holding term number i.
func (x *Index) df(i int) int {
	lo, hi := x.postRange(i)
	return int(hi - lo)
}

func (x *Index) postRange(i int) (lo, hi uint32) {
	if i > 0 {
		lo = x.postEnd[i-1]
	}
	return lo, x.postEnd[i]
}

// Part is one segment of a Set: an index and the documents deleted from
// it (nil for none).
type Part struct {
	X   *Index
	Del *Deleted
}

// Set is several indexes searched as one. Document i of part p is
// document Base(p)+i of the set; deleted documents keep their numbers but
// are never scored and count in no statistic. It is read-only and safe for
// concurrent use.
type Set struct {
	parts []Part
	base  []int
	docs  int
	live  int
	avgdl float64

	normOnce sync.Once
	norm     [][]float64 // per part and document: k1*(1-b+b*|d|/avgdl)
}

// norms returns, per part and document, the length term of BM25's
// denominator, computed once per set (a division fewer per posting).
func (s *Set) norms() [][]float64 {
	s.normOnce.Do(func() {
		s.norm = make([][]float64, len(s.parts))
		for p, part := range s.parts {
			n := make([]float64, len(part.X.docLen))
			for d, l := range part.X.docLen {
				n[d] = k1 * (1 - b + b*float64(l)/s.avgdl)
			}
			s.norm[p] = n
		}
	})
	return s.norm
}

// NewSet returns the set of parts, in that order.
func NewSet(parts ...Part) *Set {
	s := &Set{parts: parts, base: make([]int, len(parts))}
	var tokens uint64
	for i, p := range parts {
		s.base[i] = s.docs
		s.docs += p.X.Docs()
		s.live += p.X.Docs() - p.Del.Len()
		tokens += p.X.tokens - p.Del.tokenCount()
	}
	if s.live > 0 {
		s.avgdl = float64(tokens) / float64(s.live)
	}
	return s
}

// Docs is the number of document numbers of the set, deleted ones included.
func (s *Set) Docs() int { return s.docs }

// Live is the number of documents not deleted.
func (s *Set) Live() int { return s.live }

// Base is the set's number of part p's document 0.
func (s *Set) Base(p int) int { return s.base[p] }

// locate returns the part and the part's document number of document g.
func (s *Set) locate(g int) (p, d int, err error) {
	if g < 0 || g >= s.docs {
		return 0, 0, ErrCorrupt
	}
	p = sort.Search(len(s.base), func(i int) bool { return s.base[i] > g }) - 1
	return p, g - s.base[p], nil
}

// DF is the number of live documents holding term t.
func (s *Set) DF(t string) int {
	df := 0
	for _, p := range s.parts {
		if i := p.X.lookup(t); i >= 0 {
			df += p.X.df(i) - p.Del.df(i)
		}
	}
	return df
}

// IDF returns the inverse document frequency Score uses for term t (0 for
// a term no live document holds).
func (s *Set) IDF(t string) float64 {
	df := s.DF(t)
	if df <= 0 {
		return 0
	}
	return idf(float64(s.live), float64(df))
}

// Score adds to acc[d], for every live document d holding any of terms,
// the BM25 score d gets for a query that ORs terms; see Index.Score, whose
// formula this is with the statistics of the set's live documents. acc
// must have Docs() entries; deleted documents are not touched.
//
// A query with many postings is scored by one goroutine per CPU, each over
// a range of documents (postings are sorted by document): every document's
// score is still the sum of its terms' shares in query order, so results
// do not depend on the number of goroutines.
func (s *Set) Score(terms []string, weights []float64, acc []float64) error {
	if len(acc) != s.docs {
		return errors.New("fts: score array and index differ in length")
	}
	if weights != nil && len(weights) != len(terms) {
		return errors.New("fts: terms and weights differ in length")
	}
	n := float64(s.live)
	type found struct{ part, term int }
	type planned struct {
		w    float64
		hold []found
	}
	var plan []planned
	postings := 0
	for ti, t := range terms {
		var hold []found
		df := 0
		for p, part := range s.parts {
			if i := part.X.lookup(t); i >= 0 {
				df += part.X.df(i) - part.Del.df(i)
				postings += part.X.df(i)
				hold = append(hold, found{p, i})
			}
		}
		if df <= 0 {
			continue
		}
		w := idf(n, float64(df))
		if weights != nil {
			w *= weights[ti]
		}
		plan = append(plan, planned{w, hold})
	}
	if len(plan) == 0 {
		return nil
	}
	norms := s.norms()
	// Documents are scored a block at a time, every term's postings in the
	// block before the next block: the block's scores and length terms
	// (16 bytes a document) stay in the CPU's cache for all the terms,
	// instead of being read from memory again for each term (at a million
	// documents, 16 MB per term of the query). Each document's score is
	// still the sum of its terms' shares in query order.
	scoreRange := func(g0, g1 int) error {
		for b0 := g0; b0 < g1; b0 += scoreBlock {
			b1 := min(b0+scoreBlock, g1)
			for _, pl := range plan {
				for _, h := range pl.hold {
					part, base := s.parts[h.part], s.base[h.part]
					lo, hi := max(b0-base, 0), min(b1-base, part.X.Docs())
					if lo >= hi {
						continue
					}
					if err := part.X.scoreTerm(h.term, pl.w, norms[h.part], part.Del, acc[base:base+part.X.Docs()], lo, hi); err != nil {
						return err
					}
				}
			}
		}
		return nil
	}
	workers := 1
	if postings >= parallelPostings {
		workers = min(runtime.GOMAXPROCS(0), 8)
	}
	if workers == 1 {
		return scoreRange(0, s.docs)
	}
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[w] = scoreRange(s.docs*w/workers, s.docs*(w+1)/workers)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// scoreBlock is how many documents Score scores at a time (their scores
// and length terms, 256 KB, fit a core's L2 cache).
const scoreBlock = 1 << 14

// parallelPostings is how many postings a query needs to be scored by more
// than one goroutine (a variable for tests).
var parallelPostings = 1 << 17

// scoreTerm adds term number i's share of the score, with weight w (idf
// times the query weight), to acc[lo:hi], skipping the documents in del;
// norm holds each document's length term (Set.norms).
func (x *Index) scoreTerm(i int, w float64, norm []float64, del *Deleted, acc []float64, lo, hi int) error {
	plo, phi := x.postRange(i)
	docs, tfs := x.postDoc[plo:phi], x.postTF[plo:phi]
	if lo > 0 || hi < len(acc) {
		// The postings of documents lo to hi-1: they ascend by document.
		a := sort.Search(len(docs), func(j int) bool { return int(docs[j]) >= lo })
		z := a + sort.Search(len(docs)-a, func(j int) bool { return int(docs[a+j]) >= hi })
		docs, tfs = docs[a:z], tfs[a:z]
	}
	for j, d := range docs {
		if int(d) < lo || int(d) >= hi || int(d) >= len(norm) {
			return ErrCorrupt
		}
		if del != nil && del.Has(int(d)) {
			continue
		}
		f := float64(tfs[j])
		acc[d] += w * (f * (k1 + 1)) / (f + norm[d])
	}
	return nil
}

// Expand is Index.Expand over the set: docs are set document numbers, and
// idf is the set's.
func (s *Set) Expand(docs []int, weights []float64, exclude []string, n int, minIDF float64) ([]string, error) {
	if len(weights) != len(docs) {
		return nil, errors.New("fts: documents and weights differ in length")
	}
	e := NewExpansion(exclude)
	for di, g := range docs {
		p, d, err := s.locate(g)
		if err != nil {
			return nil, err
		}
		x := s.parts[p].X
		lo, hi, err := x.docRange(d)
		if err != nil {
			return nil, err
		}
		l := max(int(x.docLen[d]), 1)
		for j := lo; j < hi; j++ {
			t := x.fwdTerm[j]
			if int(t) >= len(x.termEnd) {
				return nil, ErrCorrupt
			}
			e.Add(x.termAt(int(t)), int(x.fwdTF[j]), l, weights[di])
		}
	}
	return e.Top(n, minIDF, s.IDF), nil
}

// Expansion picks the terms of pseudo-relevance feedback (Set.Expand) from
// the documents' term lists, for indexes that keep them elsewhere (a
// library in PostgreSQL): Add every term of every feedback document, then
// Top.
type Expansion struct {
	skip  map[string]bool
	share map[string]float64
}

// NewExpansion returns an Expansion that leaves out the terms of exclude
// (the query's own).
func NewExpansion(exclude []string) *Expansion {
	skip := make(map[string]bool, len(exclude))
	for _, t := range exclude {
		skip[t] = true
	}
	return &Expansion{skip: skip, share: map[string]float64{}}
}

// Add counts term, which occurs tf times (head occurrences weighing
// HeadWeight) in a feedback document of docLen tokens weighing weight.
func (e *Expansion) Add(term string, tf, docLen int, weight float64) {
	if !e.skip[term] {
		e.share[term] += weight * float64(tf) / float64(max(docLen, 1))
	}
}

// Top returns up to n of the terms added, by their share times idf(term),
// leaving out those whose idf is under minIDF; ties go to the
// alphabetically first term.
func (e *Expansion) Top(n int, minIDF float64, idf func(string) float64) []string {
	type cand struct {
		term string
		w    float64
	}
	cands := make([]cand, 0, len(e.share))
	for t, w := range e.share {
		if idf := idf(t); idf >= minIDF {
			cands = append(cands, cand{t, w * idf})
		}
	}
	slices.SortFunc(cands, func(a, b cand) int {
		if c := cmp.Compare(b.w, a.w); c != 0 {
			return c
		}
		return cmp.Compare(a.term, b.term)
	})
	out := make([]string, 0, min(n, len(cands)))
	for _, c := range cands[:min(n, len(cands))] {
		out = append(out, c.term)
	}
	return out
}

// noTerm marks a term of a part that the merged index does not keep (all
// the documents holding it were deleted).
const noTerm = math.MaxUint32

// Merge writes to w, from offset off, the index of the live documents of
// parts, renumbered by remap: remap[p][d] is the new number of part p's
// document d, or -1 exactly for the documents parts[p].Del holds. The new
// numbers must run from 0 to the number of live documents minus one, each
// used once, ascending with d within each part. The bytes written are
// those AppendBinary gives for a Builder fed the same documents in the new
// order, so a merged index is the index a build from nothing would make
// (TestMergeMatchesBuild). It returns the encoding's size.
//
// It streams: the inputs are read in order and the output written through
// buffers, and what it holds is a few bytes per document and per term
// (the renumbering, and the merged dictionary as views of the inputs').
// progress, if not nil, is called after every million or so entries read,
// so that a caller can release the pages of mapped inputs as it goes.
func Merge(w io.WriterAt, off int64, parts []Part, remap [][]int32, progress func()) (int64, error) {
	tick := func(n uint32) {
		if progress != nil && n&(1<<20-1) == 0 {
			progress()
		}
	}
	if len(remap) != len(parts) {
		return 0, errors.New("fts: merge: one renumbering per part needed")
	}
	// The inverse renumbering: new document -> (part, document).
	nDocs := 0
	for p, part := range parts {
		if len(remap[p]) != part.X.Docs() {
			return 0, fmt.Errorf("fts: merge: part %d has %d documents, its renumbering %d", p, part.X.Docs(), len(remap[p]))
		}
		nDocs += part.X.Docs() - part.Del.Len()
	}
	invPart := make([]uint32, nDocs)
	invDoc := make([]uint32, nDocs)
	seen := make([]bool, nDocs)
	nPost, tokens := 0, uint64(0)
	for p, part := range parts {
		last := int32(-1)
		for d, nd := range remap[p] {
			if nd < 0 {
				if !part.Del.Has(d) {
					return 0, fmt.Errorf("fts: merge: live document %d of part %d has no new number", d, p)
				}
				continue
			}
			if part.Del.Has(d) || int(nd) >= nDocs || seen[nd] || nd <= last {
				return 0, fmt.Errorf("fts: merge: bad new number %d for document %d of part %d", nd, d, p)
			}
			seen[nd], last = true, nd
			invPart[nd], invDoc[nd] = uint32(p), uint32(d)
			lo, hi, err := part.X.docRange(d)
			if err != nil {
				return 0, err
			}
			nPost += int(hi - lo)
			tokens += uint64(part.X.docLen[d])
		}
	}
	seen = nil

	// The merged dictionary: the union of the parts' terms, without those
	// no live document holds.
	tmap := make([][]uint32, len(parts))
	for p, part := range parts {
		tmap[p] = make([]uint32, len(part.X.termEnd))
	}
	var outTerms []string
	var outDF []uint32
	h := &termHeap{parts: parts}
	for p, part := range parts {
		if len(part.X.termEnd) > 0 {
			h.cur = append(h.cur, termCursor{p, 0})
		}
	}
	heap.Init(h)
	for h.Len() > 0 {
		t := h.term(0)
		var group []termCursor
		live := 0
		for h.Len() > 0 && h.term(0) == t {
			c := h.cur[0]
			group = append(group, c)
			part := parts[c.part]
			live += part.X.df(c.i) - part.Del.df(c.i)
			if c.i+1 < len(part.X.termEnd) {
				h.cur[0].i++
				heap.Fix(h, 0)
			} else {
				heap.Pop(h)
			}
		}
		id := uint32(noTerm)
		if live > 0 {
			id = uint32(len(outTerms))
			outTerms = append(outTerms, t)
			outDF = append(outDF, uint32(live))
		}
		for _, c := range group {
			tmap[c.part][c.i] = id
		}
	}
	sumDF := 0
	for _, df := range outDF {
		sumDF += int(df)
	}
	if sumDF != nPost {
		return 0, fmt.Errorf("fts: merge: the deletions' statistics disagree with the documents (%d postings, %d entries): %w", sumDF, nPost, ErrCorrupt)
	}

	nTerms := len(outTerms)
	lay := layoutOf(nDocs, nTerms, nPost)
	hdr := make([]byte, headerSize)
	putHeader(hdr, nDocs, nTerms, nPost, tokens)
	if _, err := w.WriteAt(hdr, off); err != nil {
		return 0, err
	}
	sec := func(at int) *sections.Writer { return sections.New(w, off+int64(at), 1<<20) }
	docLen, docEnd := sec(lay.docLen), sec(lay.docEnd)
	fwdTerm, fwdTF := sec(lay.fwdTerm), sec(lay.fwdTF)
	var e uint32
	for nd := range nDocs {
		part := parts[invPart[nd]]
		d := int(invDoc[nd])
		lo, hi, _ := part.X.docRange(d) // checked above
		for j := lo; j < hi; j++ {
			t := part.X.fwdTerm[j]
			if int(t) >= len(tmap[invPart[nd]]) || tmap[invPart[nd]][t] == noTerm {
				return 0, ErrCorrupt
			}
			fwdTerm.U32(tmap[invPart[nd]][t])
			fwdTF.U16(part.X.fwdTF[j])
			tick(e + j - lo + 1)
		}
		e += hi - lo
		docLen.U32(part.X.docLen[d])
		docEnd.U32(e)
	}
	termEnd, postEnd, termBytes := sec(lay.termEnd), sec(lay.postEnd), sec(lay.terms)
	postDoc, postTF := sec(lay.postDoc), sec(lay.postTF)
	cur := make([]int, len(parts)) // per part, its next term to look at
	var tb, pe uint32
	type posting struct{ doc, tf uint32 }
	var buf []posting
	for j, t := range outTerms {
		tb += uint32(len(t))
		pe += outDF[j]
		termBytes.Write([]byte(t))
		termEnd.U32(tb)
		postEnd.U32(pe)
		buf = buf[:0]
		for p, part := range parts {
			for cur[p] < len(tmap[p]) && (tmap[p][cur[p]] == noTerm || tmap[p][cur[p]] < uint32(j)) {
				cur[p]++
			}
			if cur[p] == len(tmap[p]) || tmap[p][cur[p]] != uint32(j) {
				continue
			}
			lo, hi := part.X.postRange(cur[p])
			for k := lo; k < hi; k++ {
				d := part.X.postDoc[k]
				if int(d) >= len(remap[p]) {
					return 0, ErrCorrupt
				}
				if nd := remap[p][d]; nd >= 0 {
					buf = append(buf, posting{uint32(nd), uint32(part.X.postTF[k])})
				}
			}
		}
		// The parts' documents interleave in the new order only where
		// their papers do; usually each list follows the one before.
		ordered := true
		for i := 1; i < len(buf) && ordered; i++ {
			ordered = buf[i-1].doc < buf[i].doc
		}
		if !ordered {
			slices.SortFunc(buf, func(a, b posting) int { return cmp.Compare(a.doc, b.doc) })
		}
		if len(buf) != int(outDF[j]) {
			return 0, ErrCorrupt
		}
		for i, q := range buf {
			postDoc.U32(q.doc)
			postTF.U16(uint16(q.tf))
			tick(pe - outDF[j] + uint32(i) + 1)
		}
	}
	for _, s := range []*sections.Writer{docLen, docEnd, termEnd, postEnd, postDoc, fwdTerm, postTF, fwdTF, termBytes} {
		if err := s.Flush(); err != nil {
			return 0, err
		}
	}
	return int64(lay.terms) + int64(tb), nil
}

type termCursor struct{ part, i int }

// termHeap orders the parts' next terms, ties by part.
type termHeap struct {
	parts []Part
	cur   []termCursor
}

func (h *termHeap) term(k int) string { return h.parts[h.cur[k].part].X.termAt(h.cur[k].i) }
func (h *termHeap) Len() int          { return len(h.cur) }
func (h *termHeap) Less(a, b int) bool {
	if ta, tb := h.term(a), h.term(b); ta != tb {
		return ta < tb
	}
	return h.cur[a].part < h.cur[b].part
}
func (h *termHeap) Swap(a, b int) { h.cur[a], h.cur[b] = h.cur[b], h.cur[a] }
func (h *termHeap) Push(v any)    { h.cur = append(h.cur, v.(termCursor)) }
func (h *termHeap) Pop() any {
	v := h.cur[len(h.cur)-1]
	h.cur = h.cur[:len(h.cur)-1]
	return v
}
