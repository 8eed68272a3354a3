// Package rank chooses, for a question about a paper, the paragraphs that
// hold its answer and the sentences to quote, with a linear model fit on
// QASPER's training questions (questions by NLP practitioners over the
// full text of papers, with the paragraphs that answer them marked). The
// model's weights, its cue words, the document frequencies its idf comes
// from and the question-to-evidence word associations are written by
// `go run ./ask/train` from the shared data and embedded here; nothing in
// this package is tuned by hand on single questions.
package rank

import (
	"bufio"
	"bytes"
	"compress/gzip"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Model ranks paragraphs and sentences. The zero Model ranks by nothing;
// use Default, or Load what the trainer wrote.
type Model struct {
	// Cues are the question words whose meaning for where the answer
	// stands is learned (each with every section kind and paragraph
	// trait): the commonest content words of the training questions.
	Cues []string `json:"cues"`
	// Paragraph weighs a paragraph's features (see Featurize).
	Paragraph map[string]float64 `json:"paragraph"`
	// Sentence weighs a sentence's features as the one holding the
	// answer; Span a candidate short answer's within its sentence (see
	// Spans).
	Sentence map[string]float64 `json:"sentence"`
	Span     map[string]float64 `json:"span"`
	// YesNo weighs the features of a yes/no question and its best
	// sentence: their sum is the log-odds of yes.
	YesNo map[string]float64 `json:"yes_no"`
	// Abstain weighs the features of a question and the model's best
	// answer: their sum is the log-odds that the paper does not answer.
	Abstain map[string]float64 `json:"abstain"`
	// FullText weighs, for the sentence that holds the answer, the
	// QASPER-fit sentence score ("qasper") and a dozen plain features
	// (question words and names in it and its paragraph, its neighbours',
	// numbers for quantities): fit on questions written from papers' full
	// text (Train's extra set), which share the words of their answers
	// more than QASPER's, written from abstracts. Empty: the QASPER score
	// alone.
	FullText map[string]float64 `json:"full_text"`
	// Thresholds are the answer's decisions on the model's outputs.
	Thresholds Thresholds `json:"thresholds"`

	cue   map[string]bool
	cache *statsCache    // set while training
	docs  float64        // paragraphs the document frequencies were counted over
	df    map[string]int // stem -> paragraphs holding it
	assoc map[string]map[string]float64
}

// statsCache keeps papers' word counts by their first paragraph.
type statsCache struct {
	sync.Mutex
	stats map[*Paragraph][]paraStats
}

// Files written by the trainer and embedded.
var (
	//go:embed weights.json
	weightsJSON []byte
	//go:embed df.txt.gz
	dfGz []byte
	//go:embed assoc.txt.gz
	assocGz []byte
)

// Default is the embedded model. It panics if the embedded files are
// corrupt, which the package's tests rule out.
var Default = sync.OnceValue(func() *Model {
	m, err := Load(weightsJSON, dfGz, assocGz)
	if err != nil {
		panic("rank: embedded model: " + err.Error())
	}
	return m
})

// Load reads a model from the trainer's three files: the weights (JSON),
// the document frequencies and the word associations (gzipped text).
func Load(weights, df, assoc []byte) (*Model, error) {
	m := &Model{}
	if err := json.Unmarshal(weights, m); err != nil {
		return nil, fmt.Errorf("weights: %w", err)
	}
	if err := m.readDF(df); err != nil {
		return nil, fmt.Errorf("document frequencies: %w", err)
	}
	if err := m.readAssoc(assoc); err != nil {
		return nil, fmt.Errorf("associations: %w", err)
	}
	m.index()
	return m, nil
}

func (m *Model) index() {
	m.cue = map[string]bool{}
	for _, c := range m.Cues {
		m.cue[c] = true
	}
}

// idf is a stem's inverse document frequency over the training papers'
// paragraphs (a word they never hold counts as held by one).
func (m *Model) idf(s string) float64 {
	d := float64(max(m.df[s], 1))
	return math.Log(1 + (m.docs-d+0.5)/(d+0.5))
}

func gunzipLines(b []byte, fn func(fields []string) error) error {
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return err
	}
	sc := bufio.NewScanner(zr)
	for n := 1; sc.Scan(); n++ {
		if err := fn(strings.Fields(sc.Text())); err != nil {
			return fmt.Errorf("line %d: %w", n, err)
		}
	}
	return sc.Err()
}

// readDF reads "paragraphs N" then "stem df" lines.
func (m *Model) readDF(b []byte) error {
	m.df = map[string]int{}
	return gunzipLines(b, func(f []string) error {
		if len(f) != 2 {
			return fmt.Errorf("want 2 fields, got %d", len(f))
		}
		n, err := strconv.Atoi(f[1])
		if err != nil {
			return err
		}
		if f[0] == "paragraphs" && m.docs == 0 {
			m.docs = float64(n)
			return nil
		}
		m.df[f[0]] = n
		return nil
	})
}

// readAssoc reads "question-stem evidence-stem weight" lines.
func (m *Model) readAssoc(b []byte) error {
	m.assoc = map[string]map[string]float64{}
	return gunzipLines(b, func(f []string) error {
		if len(f) != 3 {
			return fmt.Errorf("want 3 fields, got %d", len(f))
		}
		w, err := strconv.ParseFloat(f[2], 64)
		if err != nil {
			return err
		}
		if m.assoc[f[0]] == nil {
			m.assoc[f[0]] = map[string]float64{}
		}
		m.assoc[f[0]][f[1]] = w
		return nil
	})
}

// WriteFiles writes the model as the three files Load reads, in a stable
// order (so that a retrained model diffs line by line).
func (m *Model) WriteFiles(weights, df, assoc io.Writer) error {
	b, err := json.MarshalIndent(struct {
		Cues       []string           `json:"cues"`
		Thresholds Thresholds         `json:"thresholds"`
		Paragraph  map[string]float64 `json:"paragraph"`
		Sentence   map[string]float64 `json:"sentence"`
		FullText   map[string]float64 `json:"full_text"`
		Span       map[string]float64 `json:"span"`
		YesNo      map[string]float64 `json:"yes_no"`
		Abstain    map[string]float64 `json:"abstain"`
	}{m.Cues, m.Thresholds, rounded(m.Paragraph), rounded(m.Sentence), rounded(m.FullText), rounded(m.Span), rounded(m.YesNo), rounded(m.Abstain)}, "", "  ")
	if err != nil {
		return err
	}
	if _, err := weights.Write(append(b, '\n')); err != nil {
		return err
	}
	var lines []string
	for s, n := range m.df {
		lines = append(lines, s+" "+strconv.Itoa(n))
	}
	sort.Strings(lines)
	lines = append([]string{"paragraphs " + strconv.Itoa(int(m.docs))}, lines...)
	if err := gzipLines(df, lines); err != nil {
		return err
	}
	lines = lines[:0]
	for a, bs := range m.assoc {
		for b, w := range bs {
			lines = append(lines, a+" "+b+" "+strconv.FormatFloat(w, 'f', 3, 64))
		}
	}
	sort.Strings(lines)
	return gzipLines(assoc, lines)
}

func gzipLines(w io.Writer, lines []string) error {
	zw, err := gzip.NewWriterLevel(w, gzip.BestCompression)
	if err != nil {
		return err
	}
	zw.ModTime = zw.ModTime.UTC() // zero: the output depends on the lines only
	for _, l := range lines {
		if _, err := io.WriteString(zw, l+"\n"); err != nil {
			return err
		}
	}
	return zw.Close()
}

// rounded keeps 4 decimals of each weight and drops zeros.
func rounded(w map[string]float64) map[string]float64 {
	out := map[string]float64{}
	for k, v := range w {
		r := math.Round(v*1e4) / 1e4
		if r != 0 {
			out[k] = r
		}
	}
	return out
}
