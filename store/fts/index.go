// Package fts is the library's lexical index: SQLite FTS5's "porter
// unicode61 remove_diacritics 2" tokenizer and its bm25() ranking,
// reimplemented over a flat inverted index that can be mapped from a file.
//
// FTS5 computes bm25() row by row for every row that matches any query
// term, about 3 µs each: a 10-word query over 100k chunks costs 0.2-0.3 s.
// Here a query walks the posting lists of its terms once, adding each
// document's share of the score into an array, which costs a few
// nanoseconds per posting (a block of documents at a time with all the
// terms, so that the block's scores stay in cache: Set.Score). Terms and scores agree with FTS5's exactly
// (TestTermsAgreeWithFTS5, and the store's TestSearchTextAgreesWithFTS5).
//
// An Index is immutable. The store's index changes by parts: a Set of
// indexes (segments), each with the documents deleted from it (Deleted),
// scored with exact collection statistics, and merged by Merge, which
// streams (segments.go).
package fts

import (
	"cmp"
	"encoding/binary"
	"errors"
	"math"
	"slices"

	"sort"

	"github.com/papers-cli/papers/internal/leview"
)

// BM25 parameters, as FTS5's bm25() fixes them. On the SciFact train split
// other values moved nDCG@10 by less than 0.001 (k1 0.9-1.5, b 0.4-0.9).
const (
	k1 = 1.2
	b  = 0.75
)

// Builder collects documents for an Index. Documents are numbered from 0
// in the order they are added.
type Builder struct {
	ids      map[string]uint32 // term -> provisional id
	names    []string          // provisional id -> term
	words    map[string]uint32 // folded word -> term id: stems each word once
	df       []uint32
	tf       []uint32 // per term, its count in the document being added
	docLen   []uint32
	docEnd   []uint32 // docEnd[d]: end of document d's entries
	entTerm  []uint32 // per document, its distinct terms ...
	entTF    []uint16 // ... and how often each occurs
	stemBuf  []byte
	lastHead string
	headIDs  []uint32
	distinct []uint32
}

// NewBuilder returns an empty Builder.
func NewBuilder() *Builder {
	return &Builder{ids: map[string]uint32{}, words: map[string]uint32{}, stemBuf: make([]byte, 0, maxStemmed+8)}
}

// HeadWeight is how many body occurrences one occurrence in a document's
// head is worth, as in FTS5's bm25(table, 2, 1) over (head, body) columns:
// on the SciFact train split a title weighing 2 gave nDCG@10 0.7094 against
// 0.7066 at 1 and 0.7087 at 3.
const HeadWeight = 2

// Add adds a document made of a head and a body, indexed as one: as FTS5
// does with a row's columns, a term's frequency is the sum of its
// occurrences (those in the head weighing HeadWeight) and the document's
// length counts every token once. Consecutive documents often share their head (a paper's title
// indexed with each of its chunks): it is tokenized once.
func (bl *Builder) Add(head, body string) {
	if head != bl.lastHead || bl.headIDs == nil {
		bl.lastHead = head
		bl.headIDs = bl.appendTerms(bl.headIDs[:0], head)
	}
	n := len(bl.headIDs)
	d := bl.distinct[:0]
	for _, id := range bl.headIDs {
		if bl.tf[id] == 0 {
			d = append(d, id)
		}
		bl.tf[id] += HeadWeight
	}
	for w := range Words(body) {
		id := bl.termID(w)
		if bl.tf[id] == 0 {
			d = append(d, id)
		}
		bl.tf[id]++
		n++
	}
	bl.docLen = append(bl.docLen, uint32(n))
	for _, id := range d {
		bl.entTerm = append(bl.entTerm, id)
		bl.entTF = append(bl.entTF, uint16(min(bl.tf[id], math.MaxUint16)))
		bl.df[id]++
		bl.tf[id] = 0
	}
	bl.docEnd = append(bl.docEnd, uint32(len(bl.entTerm)))
	bl.distinct = d
}

// termID returns the id of the term of the folded word w, adding it if new.
func (bl *Builder) termID(w []byte) uint32 {
	if id, ok := bl.words[string(w)]; ok {
		return id
	}
	id := bl.stemID(string(Stem(w, bl.stemBuf)))
	bl.words[string(w)] = id
	return id
}

// stemID returns the id of term t, adding it if new.
func (bl *Builder) stemID(t string) uint32 {
	id, ok := bl.ids[t]
	if !ok {
		id = uint32(len(bl.names))
		bl.names = append(bl.names, t)
		bl.ids[t] = id
		bl.df = append(bl.df, 0)
		bl.tf = append(bl.tf, 0)
	}
	return id
}

func (bl *Builder) appendTerms(ids []uint32, s string) []uint32 {
	for w := range Words(s) {
		ids = append(ids, bl.termID(w))
	}
	return ids
}

// Serialized layout (little-endian, every array 4-byte aligned from the
// start of the encoding; the caller aligns the start):
//
//	magic | docs u32 | terms u32 | postings u32 | 0 u32 | tokens u64
//	| docLen [docs]u32 | docEnd [docs]u32 | termEnd [terms]u32 | postEnd [terms]u32
//	| postDoc [postings]u32 | fwdTerm [postings]u32
//	| postTF [postings]u16 | fwdTF [postings]u16 | term bytes
//
// Terms are sorted bytewise; term i is termBytes[termEnd[i-1]:termEnd[i]]
// and its postings postDoc/postTF[postEnd[i-1]:postEnd[i]], by ascending
// document. The forward lists hold the same entries by document: document
// d's terms (by number) and frequencies are fwdTerm/fwdTF[docEnd[d-1]:docEnd[d]].
const magic = "PAPFTS03" // 02: head occurrences weigh HeadWeight; 03: forward lists

const headerSize = 8 + 4*4 + 8

// layout is where each array of an encoding starts.
type layout struct {
	docLen, docEnd, termEnd, postEnd, postDoc, fwdTerm, postTF, fwdTF, terms int
}

func layoutOf(nDocs, nTerms, nPost int) layout {
	var l layout
	l.docLen = headerSize
	l.docEnd = l.docLen + 4*nDocs
	l.termEnd = l.docEnd + 4*nDocs
	l.postEnd = l.termEnd + 4*nTerms
	l.postDoc = l.postEnd + 4*nTerms
	l.fwdTerm = l.postDoc + 4*nPost
	l.postTF = l.fwdTerm + 4*nPost
	l.fwdTF = l.postTF + 2*nPost
	l.terms = l.fwdTF + 2*nPost
	return l
}

// putHeader writes an encoding's header to b.
func putHeader(b []byte, nDocs, nTerms, nPost int, tokens uint64) {
	copy(b, magic)
	le := binary.LittleEndian
	le.PutUint32(b[8:], uint32(nDocs))
	le.PutUint32(b[12:], uint32(nTerms))
	le.PutUint32(b[16:], uint32(nPost))
	le.PutUint32(b[20:], 0)
	le.PutUint64(b[24:], tokens)
}

// counts reads the header of b; ok is false if b does not start with one.
func counts(b []byte) (nDocs, nTerms, nPost int, tokens uint64, ok bool) {
	if len(b) < headerSize || string(b[:8]) != magic {
		return 0, 0, 0, 0, false
	}
	le := binary.LittleEndian
	return int(le.Uint32(b[8:])), int(le.Uint32(b[12:])), int(le.Uint32(b[16:])), le.Uint64(b[24:]), true
}

// AppendBinary appends the index of the documents added so far to dst.
func (bl *Builder) AppendBinary(dst []byte) []byte {
	nTerms, nDocs, nPost := len(bl.names), len(bl.docLen), len(bl.entTerm)
	order := make([]uint32, nTerms) // sorted position -> provisional id
	for i := range order {
		order[i] = uint32(i)
	}
	slices.SortFunc(order, func(a, b uint32) int { return cmp.Compare(bl.names[a], bl.names[b]) })
	rank := make([]uint32, nTerms)  // provisional id -> sorted position
	start := make([]uint32, nTerms) // provisional id -> next posting slot
	termBytes := 0
	for i, id := range order {
		rank[id] = uint32(i)
		termBytes += len(bl.names[id])
	}
	var tokens uint64
	for _, l := range bl.docLen {
		tokens += uint64(l)
	}

	lay := layoutOf(nDocs, nTerms, nPost)
	o := len(dst)
	dst = slices.Grow(dst, lay.terms+termBytes)[:o+lay.terms+termBytes]
	b := dst[o:]
	putHeader(b, nDocs, nTerms, nPost, tokens)
	le := binary.LittleEndian
	for d, l := range bl.docLen {
		le.PutUint32(b[lay.docLen+4*d:], l)
		le.PutUint32(b[lay.docEnd+4*d:], bl.docEnd[d])
	}
	tb := lay.terms
	var pe uint32
	for i, id := range order {
		start[id] = pe
		pe += bl.df[id]
		tb += copy(b[tb:], bl.names[id])
		le.PutUint32(b[lay.termEnd+4*i:], uint32(tb-lay.terms))
		le.PutUint32(b[lay.postEnd+4*i:], pe)
	}
	e := 0
	for d, end := range bl.docEnd {
		for ; e < int(end); e++ {
			id := bl.entTerm[e]
			slot := int(start[id])
			start[id]++
			le.PutUint32(b[lay.postDoc+4*slot:], uint32(d))
			le.PutUint16(b[lay.postTF+2*slot:], bl.entTF[e])
			le.PutUint32(b[lay.fwdTerm+4*e:], rank[id])
			le.PutUint16(b[lay.fwdTF+2*e:], bl.entTF[e])
		}
	}
	return dst
}

// Index is a parsed index. It is read-only and safe for concurrent use; its
// arrays may be views of a mapped file, which must outlive it.
type Index struct {
	docLen  []uint32
	docEnd  []uint32
	termEnd []uint32
	postEnd []uint32
	postDoc []uint32
	postTF  []uint16
	fwdTerm []uint32
	fwdTF   []uint16
	terms   string
	tokens  uint64 // the documents' lengths, summed
	enc     []byte // what it was parsed from
}

// ErrCorrupt reports an encoding that is not a whole, consistent index.
var ErrCorrupt = errors.New("full-text index is torn or not ours")

// Parse reads an index encoded by AppendBinary from the start of b. On a
// little-endian machine, with b 4-byte aligned, the arrays are used in place
// (so b must outlive the Index); otherwise they are decoded. It checks sizes
// and the term, posting and document offsets; document and term numbers
// are checked as they are read.
func Parse(b []byte) (*Index, error) {
	nDocs, nTerms, nPost, tokens, ok := counts(b)
	if !ok {
		return nil, ErrCorrupt
	}
	lay := layoutOf(nDocs, nTerms, nPost)
	if len(b) < lay.terms {
		return nil, ErrCorrupt
	}
	x := &Index{
		docLen:  leview.Of[uint32](b[lay.docLen:], nDocs),
		docEnd:  leview.Of[uint32](b[lay.docEnd:], nDocs),
		termEnd: leview.Of[uint32](b[lay.termEnd:], nTerms),
		postEnd: leview.Of[uint32](b[lay.postEnd:], nTerms),
		postDoc: leview.Of[uint32](b[lay.postDoc:], nPost),
		fwdTerm: leview.Of[uint32](b[lay.fwdTerm:], nPost),
		postTF:  leview.Of[uint16](b[lay.postTF:], nPost),
		fwdTF:   leview.Of[uint16](b[lay.fwdTF:], nPost),
	}
	termBytes := 0
	if nTerms > 0 {
		termBytes = int(x.termEnd[nTerms-1])
	}
	if len(b)-lay.terms < termBytes {
		return nil, ErrCorrupt
	}
	x.terms = string(b[lay.terms : lay.terms+termBytes]) // a copy, small next to the postings
	var prevT, prevP uint32
	for i := range nTerms {
		t, q := x.termEnd[i], x.postEnd[i]
		if t <= prevT || q <= prevP && i > 0 || q == 0 {
			return nil, ErrCorrupt // every term has a byte and a posting
		}
		prevT, prevP = t, q
	}
	if int(prevP) != nPost {
		return nil, ErrCorrupt
	}
	prevP = 0
	for _, e := range x.docEnd {
		if e < prevP {
			return nil, ErrCorrupt
		}
		prevP = e
	}
	if int(prevP) != nPost {
		return nil, ErrCorrupt
	}
	x.tokens = tokens
	x.enc = b[:lay.terms+termBytes]
	return x, nil
}

// Encoding returns the bytes x was parsed from, to be written out.
func (x *Index) Encoding() []byte { return x.enc }

// Size is the length of the encoding that starts b (0 if b does not start
// with a whole header).
func Size(b []byte) int {
	nDocs, nTerms, nPost, _, ok := counts(b)
	if !ok {
		return 0
	}
	lay := layoutOf(nDocs, nTerms, nPost)
	size := lay.terms
	if nTerms > 0 && len(b) >= lay.terms {
		size += int(binary.LittleEndian.Uint32(b[lay.termEnd+4*(nTerms-1):]))
	}
	return size
}

// Docs is the number of documents indexed.
func (x *Index) Docs() int { return len(x.docLen) }

func (x *Index) termAt(i int) string {
	var lo uint32
	if i > 0 {
		lo = x.termEnd[i-1]
	}
	return x.terms[lo:x.termEnd[i]]
}

// IDF returns the inverse document frequency Score uses for term t (0 for
// a term no document holds).
func (x *Index) IDF(t string) float64 { return NewSet(Part{X: x}).IDF(t) }

// IDF is BM25's inverse document frequency, as FTS5 computes it, of a
// term held by nHit of n documents.
func IDF(n, nHit float64) float64 { return idf(n, nHit) }

func idf(n, nHit float64) float64 {
	idf := math.Log((n - nHit + 0.5) / (nHit + 0.5))
	if idf <= 0 {
		idf = 1e-6
	}
	return idf
}

// Expand returns up to n terms typical of docs, for pseudo-relevance
// feedback (RM3-like): every term of docs[i] earns weights[i] times its
// share of the document (frequency over length), and the terms rank by
// their total times their idf. Terms in exclude and terms whose idf is
// under minIDF (common everywhere) are left out. Ties go to the
// alphabetically first term.
func (x *Index) Expand(docs []int, weights []float64, exclude []string, n int, minIDF float64) ([]string, error) {
	return NewSet(Part{X: x}).Expand(docs, weights, exclude, n, minIDF)
}

// lookup returns the number of term t, or -1.
func (x *Index) lookup(t string) int {
	i := sort.Search(len(x.termEnd), func(i int) bool { return x.termAt(i) >= t })
	if i < len(x.termEnd) && x.termAt(i) == t {
		return i
	}
	return -1
}

// Score adds to acc[d], for every document d holding any of terms, the
// BM25 score d gets for a query that ORs terms (a term listed twice counts
// twice, as in FTS5), with FTS5's formula and constants:
//
//	sum over terms t of w(t) * idf(t) * f(t,d)*(k1+1) / (f(t,d) + k1*(1 - b + b*|d|/avgdl))
//	idf(t) = max(ln((N - n(t) + 0.5) / (n(t) + 0.5)), 1e-6)
//
// where w(t) is weights[i] for terms[i], or 1 when weights is nil (FTS5
// has no query weights). acc must have Docs() entries. Documents holding no
// term are not touched; the others gain a positive score (if the weights
// are positive). Terms are index terms (see Terms).
func (x *Index) Score(terms []string, weights []float64, acc []float64) error {
	return NewSet(Part{X: x}).Score(terms, weights, acc)
}

// QueryTerms returns the index terms of free text as a query: the terms of
// its distinct words, in order of first appearance.
func QueryTerms(s string) []string {
	seen := map[string]bool{}
	var out []string
	var buf [maxStemmed + 8]byte
	for w := range Words(s) {
		if seen[string(w)] {
			continue
		}
		seen[string(w)] = true
		out = append(out, string(Stem(w, buf[:0])))
	}
	return out
}

// DocLen is document d's length: its tokens, each counted once (as Add
// counts them for BM25's |d|).
func (x *Index) DocLen(d int) int { return int(x.docLen[d]) }

// Length is the length Add gives the document made of head and body.
func Length(head, body string) int {
	n := 0
	for range Words(head) {
		n++
	}
	for range Words(body) {
		n++
	}
	return n
}
