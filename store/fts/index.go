// Package fts is the library's lexical index: SQLite FTS5's "porter
// unicode61 remove_diacritics 2" tokenizer and its bm25() ranking,
// reimplemented over a flat inverted index that can be mapped from a file.
//
// FTS5 computes bm25() row by row for every row that matches any query
// term, about 3 µs each: a 10-word query over 100k chunks costs 0.2-0.3 s.
// Here a query walks the posting lists of its terms once, adding each
// document's share of the score into an array, which costs a few
// nanoseconds per posting. Terms and scores agree with FTS5's exactly
// (TestTermsAgreeWithFTS5, and the store's TestSearchTextAgreesWithFTS5).
package fts

import (
	"cmp"
	"encoding/binary"
	"errors"
	"math"
	"slices"
	"sort"
	"unsafe"
)

// BM25 parameters, as FTS5's bm25() fixes them.
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

// Add adds a document made of a head and a body, indexed as one (FTS5 sums
// a term's occurrences over the columns and counts a row's length over all
// of them). Consecutive documents often share their head (a paper's title
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
		bl.tf[id]++
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
	stem := Stem(w, bl.stemBuf)
	id, ok := bl.ids[string(stem)]
	if !ok {
		id = uint32(len(bl.names))
		bl.names = append(bl.names, string(stem))
		bl.ids[string(stem)] = id
		bl.df = append(bl.df, 0)
		bl.tf = append(bl.tf, 0)
	}
	bl.words[string(w)] = id
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
//	magic "PAPFTS01" | docs u32 | terms u32 | postings u32 | 0 u32 | tokens u64
//	| docLen [docs]u32 | termEnd [terms]u32 | postEnd [terms]u32
//	| postDoc [postings]u32 | postTF [postings]u16 | pad to 4 | term bytes
//
// Terms are sorted bytewise; term i is termBytes[termEnd[i-1]:termEnd[i]]
// and its postings postDoc[postEnd[i-1]:postEnd[i]], by ascending document.
const magic = "PAPFTS01"

const headerSize = 8 + 4*4 + 8

// AppendBinary appends the index of the documents added so far to dst.
func (bl *Builder) AppendBinary(dst []byte) []byte {
	nTerms, nDocs, nPost := len(bl.names), len(bl.docLen), len(bl.entTerm)
	order := make([]uint32, nTerms) // sorted position -> provisional id
	for i := range order {
		order[i] = uint32(i)
	}
	slices.SortFunc(order, func(a, b uint32) int { return cmp.Compare(bl.names[a], bl.names[b]) })
	start := make([]uint32, nTerms) // provisional id -> next posting slot
	termBytes := 0
	var tokens uint64
	for _, l := range bl.docLen {
		tokens += uint64(l)
	}

	o := len(dst)
	size := headerSize + 4*nDocs + 8*nTerms + 4*nPost + (2*nPost+3)&^3
	for _, id := range order {
		termBytes += len(bl.names[id])
	}
	dst = slices.Grow(dst, size+termBytes)[:o+size+termBytes]
	b := dst[o:]
	copy(b, magic)
	le := binary.LittleEndian
	le.PutUint32(b[8:], uint32(nDocs))
	le.PutUint32(b[12:], uint32(nTerms))
	le.PutUint32(b[16:], uint32(nPost))
	le.PutUint32(b[20:], 0)
	le.PutUint64(b[24:], tokens)
	p := headerSize
	for _, l := range bl.docLen {
		le.PutUint32(b[p:], l)
		p += 4
	}
	termEnd, postEnd := p, p+4*nTerms
	tb := size // term bytes
	var pe uint32
	for i, id := range order {
		start[id] = pe
		pe += bl.df[id]
		tb += copy(b[tb:], bl.names[id])
		le.PutUint32(b[termEnd+4*i:], uint32(tb-size))
		le.PutUint32(b[postEnd+4*i:], pe)
	}
	postDoc := postEnd + 4*nTerms
	postTF := postDoc + 4*nPost
	e := 0
	for d, end := range bl.docEnd {
		for ; e < int(end); e++ {
			slot := int(start[bl.entTerm[e]])
			start[bl.entTerm[e]]++
			le.PutUint32(b[postDoc+4*slot:], uint32(d))
			le.PutUint16(b[postTF+2*slot:], bl.entTF[e])
		}
	}
	return dst
}

// Index is a parsed index. It is read-only and safe for concurrent use; its
// arrays may be views of a mapped file, which must outlive it.
type Index struct {
	docLen  []uint32
	termEnd []uint32
	postEnd []uint32
	postDoc []uint32
	postTF  []uint16
	terms   string
	avgdl   float64
	enc     []byte // what it was parsed from
}

// ErrCorrupt reports an encoding that is not a whole, consistent index.
var ErrCorrupt = errors.New("full-text index is torn or not ours")

// Parse reads an index encoded by AppendBinary from the start of b. On a
// little-endian machine, with b 4-byte aligned, the arrays are used in place
// (so b must outlive the Index); otherwise they are decoded. It checks sizes
// and the term and posting offsets; document numbers are checked as they
// are read.
func Parse(b []byte) (*Index, error) {
	if len(b) < headerSize || string(b[:8]) != magic {
		return nil, ErrCorrupt
	}
	le := binary.LittleEndian
	nDocs, nTerms, nPost := int(le.Uint32(b[8:])), int(le.Uint32(b[12:])), int(le.Uint32(b[16:]))
	tokens := le.Uint64(b[24:])
	size := headerSize + 4*nDocs + 8*nTerms + 4*nPost + (2*nPost+3)&^3
	if nDocs < 0 || nTerms < 0 || nPost < 0 || len(b) < size {
		return nil, ErrCorrupt
	}
	p := headerSize
	x := &Index{}
	x.docLen = u32s(b[p:], nDocs)
	p += 4 * nDocs
	x.termEnd = u32s(b[p:], nTerms)
	p += 4 * nTerms
	x.postEnd = u32s(b[p:], nTerms)
	p += 4 * nTerms
	x.postDoc = u32s(b[p:], nPost)
	p += 4 * nPost
	x.postTF = u16s(b[p:], nPost)
	termBytes := 0
	if nTerms > 0 {
		termBytes = int(x.termEnd[nTerms-1])
	}
	if len(b)-size < termBytes {
		return nil, ErrCorrupt
	}
	x.terms = string(b[size : size+termBytes]) // a copy, small next to the postings
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
	if nDocs > 0 {
		x.avgdl = float64(tokens) / float64(nDocs)
	}
	x.enc = b[:size+termBytes]
	return x, nil
}

// Encoding returns the bytes x was parsed from, to be written out.
func (x *Index) Encoding() []byte { return x.enc }

// Size is the length of the encoding that starts b (0 if b does not start
// with a whole header).
func Size(b []byte) int {
	if len(b) < headerSize || string(b[:8]) != magic {
		return 0
	}
	le := binary.LittleEndian
	nDocs, nTerms, nPost := int(le.Uint32(b[8:])), int(le.Uint32(b[12:])), int(le.Uint32(b[16:]))
	size := headerSize + 4*nDocs + 8*nTerms + 4*nPost + (2*nPost+3)&^3
	if nTerms > 0 && len(b) >= size {
		size += int(le.Uint32(b[headerSize+4*nDocs+4*(nTerms-1):]))
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
//	sum over terms t of idf(t) * f(t,d)*(k1+1) / (f(t,d) + k1*(1 - b + b*|d|/avgdl))
//	idf(t) = max(ln((N - n(t) + 0.5) / (n(t) + 0.5)), 1e-6)
//
// acc must have Docs() entries. Documents holding no term are not touched;
// the others gain a positive score. Terms are index terms (see Terms).
func (x *Index) Score(terms []string, acc []float64) error {
	if len(acc) != len(x.docLen) {
		return errors.New("fts: score array and index differ in length")
	}
	n := float64(len(x.docLen))
	for _, t := range terms {
		i := x.lookup(t)
		if i < 0 {
			continue
		}
		var lo uint32
		if i > 0 {
			lo = x.postEnd[i-1]
		}
		docs, tfs := x.postDoc[lo:x.postEnd[i]], x.postTF[lo:x.postEnd[i]]
		nHit := float64(len(docs))
		idf := math.Log((n - nHit + 0.5) / (nHit + 0.5))
		if idf <= 0 {
			idf = 1e-6
		}
		for j, d := range docs {
			if int(d) >= len(acc) {
				return ErrCorrupt
			}
			f := float64(tfs[j])
			acc[d] += idf * (f * (k1 + 1)) / (f + k1*(1-b+b*float64(x.docLen[d])/x.avgdl))
		}
	}
	return nil
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

var littleEndian = func() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}()

// u32s and u16s view little-endian bytes as numbers without copying when
// the machine is little-endian and the bytes aligned, and decode them
// otherwise.
func u32s(b []byte, n int) []uint32 {
	if n == 0 {
		return nil
	}
	if littleEndian && uintptr(unsafe.Pointer(&b[0]))%4 == 0 {
		return unsafe.Slice((*uint32)(unsafe.Pointer(&b[0])), n)
	}
	out := make([]uint32, n)
	for i := range out {
		out[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	return out
}

func u16s(b []byte, n int) []uint16 {
	if n == 0 {
		return nil
	}
	if littleEndian && uintptr(unsafe.Pointer(&b[0]))%2 == 0 {
		return unsafe.Slice((*uint16)(unsafe.Pointer(&b[0])), n)
	}
	out := make([]uint16, n)
	for i := range out {
		out[i] = binary.LittleEndian.Uint16(b[2*i:])
	}
	return out
}
