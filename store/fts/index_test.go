package fts

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

type doc struct{ head, body []string }

// naiveBM25 scores docs for terms straight from the definition, a head
// occurrence counting HeadWeight times.
func naiveBM25(docs []doc, terms []string, weights []float64) []float64 {
	total := 0
	for _, d := range docs {
		total += len(d.head) + len(d.body)
	}
	avgdl := float64(total) / float64(len(docs))
	out := make([]float64, len(docs))
	for ti, t := range terms {
		nHit := 0
		for _, d := range docs {
			if slices.Contains(d.head, t) || slices.Contains(d.body, t) {
				nHit++
			}
		}
		idf := math.Max(math.Log((float64(len(docs))-float64(nHit)+0.5)/(float64(nHit)+0.5)), 1e-6)
		w := 1.0
		if weights != nil {
			w = weights[ti]
		}
		for i, d := range docs {
			f := 0.0
			for _, x := range d.head {
				if x == t {
					f += HeadWeight
				}
			}
			for _, x := range d.body {
				if x == t {
					f++
				}
			}
			if f > 0 {
				out[i] += w * idf * f * (k1 + 1) / (f + k1*(1-b+b*float64(len(d.head)+len(d.body))/avgdl))
			}
		}
	}
	return out
}

func terms(s string) []string {
	var out []string
	for t := range Terms(s) {
		out = append(out, string(t))
	}
	return out
}

// TestScoreMatchesDefinition builds an index of SciFact abstracts (titles
// shared by runs of documents, as a paper's chunks share its title) and
// checks Score against BM25 computed from the definition.
func TestScoreMatchesDefinition(t *testing.T) {
	corpus := readCorpus(t)[:600]
	bl := NewBuilder()
	var docs []doc
	for i, d := range corpus {
		title, body, _ := strings.Cut(d, "\n")
		if i%3 != 0 {
			title = strings.SplitN(corpus[i-i%3], "\n", 2)[0]
		}
		bl.Add(title, body)
		docs = append(docs, doc{terms(title), terms(body)})
	}
	x, err := Parse(bl.AppendBinary(nil))
	if err != nil {
		t.Fatal(err)
	}
	if x.Docs() != len(docs) {
		t.Fatalf("Docs() = %d, want %d", x.Docs(), len(docs))
	}
	for _, q := range []string{
		"vitamin D deficiency increases the risk of fractures",
		"cells cells CELL", // a term listed three times counts three times
		"nonexistentword", "",
		"The of and in a", // words in nearly every document: idf at its floor
	} {
		qt := terms(q)
		var weights []float64
		if len(qt) > 0 && len(q)%2 == 0 {
			weights = make([]float64, len(qt))
			for i := range weights {
				weights[i] = 0.5 + float64(i)
			}
		}
		acc := make([]float64, x.Docs())
		if err := x.Score(qt, weights, acc); err != nil {
			t.Fatal(err)
		}
		want := naiveBM25(docs, qt, weights)
		matched := 0
		for i := range acc {
			if math.Abs(acc[i]-want[i]) > 1e-9*math.Max(1, want[i]) {
				t.Fatalf("%q doc %d: %v, want %v", q, i, acc[i], want[i])
			}
			if acc[i] > 0 {
				matched++
			}
		}
		t.Logf("%q: %d documents match", q, matched)
	}
	if got := QueryTerms("Cells, cells and CÉLLS; cell"); strings.Join(got, " ") != "cell and cell" {
		t.Errorf("QueryTerms = %q, want distinct words stemmed (cell and cell)", got)
	}
}

// TestParseRejectsDamage checks that truncated or damaged encodings are
// refused or, where the damage is in the postings, reported by Score;
// nothing panics.
func TestParseRejectsDamage(t *testing.T) {
	bl := NewBuilder()
	for _, d := range readCorpus(t)[:50] {
		title, body, _ := strings.Cut(d, "\n")
		bl.Add(title, body)
	}
	enc := bl.AppendBinary(nil)
	if Size(enc) != len(enc) {
		t.Fatalf("Size = %d, encoding %d bytes", Size(enc), len(enc))
	}
	for n := 0; n < len(enc); n += 1 + n/7 {
		if _, err := Parse(enc[:n]); err == nil {
			t.Fatalf("a truncation to %d of %d bytes parsed", n, len(enc))
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	q := terms("cancer cells tumour growth patients risk")
	for range 2000 {
		bad := bytes.Clone(enc)
		i := r.IntN(len(bad))
		bad[i] ^= byte(1 + r.IntN(255))
		x, err := Parse(bad)
		if err != nil {
			continue
		}
		_ = x.Score(q, nil, make([]float64, x.Docs()))
	}
	// A document number out of range is caught by Score.
	x, _ := Parse(enc)
	bad := bytes.Clone(enc)
	nDocs := x.Docs()
	postDoc := layoutOf(nDocs, len(x.termEnd), len(x.postDoc)).postDoc
	for i := range len(x.postDoc) {
		binary.LittleEndian.PutUint32(bad[postDoc+4*i:], uint32(nDocs+i))
	}
	x, err := Parse(bad)
	if err != nil {
		t.Fatal(err)
	}
	if err := x.Score(q, nil, make([]float64, x.Docs())); err != ErrCorrupt {
		t.Errorf("Score over document numbers out of range = %v, want ErrCorrupt", err)
	}
}

func TestExpand(t *testing.T) {
	bl := NewBuilder()
	for _, d := range []string{
		"apples and bananas with cherries",
		"apples, bananas and durians",
		"bananas",
		"zebras",
		"zebras and lions",
		"lions",
	} {
		bl.Add("", d)
	}
	x, err := Parse(bl.AppendBinary(nil))
	if err != nil {
		t.Fatal(err)
	}
	// "and" is in half the documents: idf at its floor, below minIDF.
	got, err := x.Expand([]int{0, 1}, []float64{0.75, 0.25}, []string{"appl"}, 3, 0.1)
	if err != nil {
		t.Fatal(err)
	}
	// cherri and with: 0.75/5*idf(1 doc), tied, alphabetical; durian:
	// 0.25/4*idf(1 doc); banana: (0.75/5+0.25/4)*idf(3 of 6 docs), at the
	// floor.
	if want := "cherri with durian"; strings.Join(got, " ") != want {
		t.Errorf("Expand = %q, want %q", got, want)
	}
	if _, err := x.Expand([]int{6}, []float64{1}, nil, 3, 0); err != ErrCorrupt {
		t.Errorf("Expand of a document out of range = %v, want ErrCorrupt", err)
	}
}
