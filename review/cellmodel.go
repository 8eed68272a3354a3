package review

import (
	"cmp"
	_ "embed"
	"encoding/json"
	"hash/fnv"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/papers-cli/papers/ask/rank"
	"github.com/papers-cli/papers/internal/lazyre"
	"github.com/papers-cli/papers/store"
)

// Which sentence a generic cell quotes is chosen, for the kinds QASPER
// asks enough questions of (now the datasets: 162 on train), by a linear
// model fit on sentences written by others (`go run ./review/train`: the
// annotators' evidence for QASPER train's questions of the kind are the
// positives, the paper's other sentences the negatives; a softmax over
// each paper's sentences, rank.Fit), over general features: the cue
// rules' matches and score (as features, not gates), where the sentence
// stands (abstract, first pages, introduction, conclusion, the
// experiments, its place in the paper), what it says of itself (our,
// this paper, a name, a citation, a link) and its words (hashed unigrams
// and bigrams). Which sentences may answer, and so whether the paper
// states the cell at all, stays the rules' call (minCues).

//go:embed cellmodel.json
var cellModelJSON []byte

// CellModel is the fitted choice of a generic cell's sentence: per kind
// name (KindNames), its weights.
type CellModel struct {
	// Buckets is how many hashed word features a sentence's words fall
	// into.
	Buckets int                  `json:"buckets"`
	Kinds   map[string]KindModel `json:"kinds"`
}

// KindModel is one kind's weights, by feature name (see cellFeatures): a
// sentence's score is the dot product of its features with them.
type KindModel struct {
	W map[string]float64 `json:"w"`
}

// KindNames are the generic kinds by name, in the order of the columns of
// a literature review (bench/review/grid).
var KindNames = []string{"problem", "method", "better", "datasets", "limitations", "code"}

var kindByName = map[string]intent{"problem": problemIntent, "method": methodIntent, "better": gainIntent, "datasets": dataIntent, "limitations": limitIntent, "code": codeIntent}

func (k intent) name() string {
	for n, i := range kindByName {
		if i == k {
			return n
		}
	}
	return ""
}

var (
	cellModelOnce sync.Once
	cellModel     *CellModel
)

// embeddedCellModel is the model embedded in the binary; nil when it
// holds no kind.
func embeddedCellModel() *CellModel {
	cellModelOnce.Do(func() {
		var m CellModel
		if err := json.Unmarshal(cellModelJSON, &m); err != nil {
			panic("review: embedded cell model: " + err.Error())
		}
		if len(m.Kinds) > 0 {
			cellModel = &m
		}
	})
	return cellModel
}

// kindModel is kind k's fitted model, ok false when it has none.
func (m *CellModel) kindModel(k intent) (KindModel, bool) {
	if m == nil {
		return KindModel{}, false
	}
	km, ok := m.Kinds[k.name()]
	return km, ok
}

// Sentence is one prose sentence of a paper as the cell model sees it for
// a kind.
type Sentence struct {
	Text     string
	Section  string
	Seq      int // its chunk's
	Features rank.Vector
}

// Sentences are the prose sentences of a paper (its record and chunks)
// that a cell of the kind named kind may quote, with their features, for
// the trainer.
func Sentences(p store.Paper, chunks []store.Chunk, kind string, buckets int) []Sentence {
	k := kindByName[kind]
	t := newPaperText(p, chunks)
	cands, isSurvey := t.candidates(k)
	pc := newPaperCues(t.paper)
	pc.survey = isSurvey
	out := make([]Sentence, len(cands))
	for i, c := range cands {
		out[i] = Sentence{Text: c.text, Section: c.chunk.Section, Seq: c.chunk.Seq, Features: cellFeatures(k, cands, i, pc, buckets)}
	}
	return out
}

// citesWork is a reference to another work in a sentence: a number in
// brackets, or QASPER's placeholder for it.
var citesWork = lazyre.New(`\[\d{1,3}([,–-]\s*\d{1,3})*\]|\bBIBREF\d`)

// urlLike is a link in a sentence.
var urlLike = lazyre.New(`https?://|www\.|\.(com|org|io|net)/`)

// cellFeatures are the features of candidate i of cands for kind k.
func cellFeatures(k intent, cands []candidate, i int, pc paperCues, buckets int) rank.Vector {
	c := cands[i]
	s := strings.ToLower(c.text)
	var v rank.Vector
	add := func(name string, x float64) {
		if x != 0 && !math.IsNaN(x) {
			v.Names = append(v.Names, name)
			v.Values = append(v.Values, x)
		}
	}
	flag := func(name string, b bool) {
		if b {
			add(name, 1)
		}
	}
	add("rule", min(c.score, 8)/4)
	flag("rule-min", c.score > 0 && c.score >= minCues[k])
	for j, re := range sentenceCues[k] {
		flag("cue"+strconv.Itoa(j), re.MatchString(s))
	}
	switch k {
	case problemIntent:
		for j, re := range contextCues {
			flag("ctx"+strconv.Itoa(j), re.MatchString(s))
		}
	case limitIntent:
		for j, re := range weakLimitCues {
			flag("weak"+strconv.Itoa(j), re.MatchString(s))
		}
	}
	sec := c.chunk.Section
	flag("abstract", c.chunk.Seq == 0)
	flag("page1", upTo(c.chunk, 1))
	flag("page2", upTo(c.chunk, 2) && !upTo(c.chunk, 1))
	flag("intro", c.chunk.Seq != 0 && introSection.MatchString(sec))
	flag("end", endSection.MatchString(sec))
	flag("limit-section", c.chunk.Seq != 0 && limitSection.MatchString(sec))
	flag("data-section", dataSection.MatchString(sec))
	flag("other-section", c.chunk.Seq != 0 && otherSection.MatchString(sec))
	rel := float64(i) / float64(max(1, len(cands)-1))
	add("place", rel)
	add("place2", rel*rel)
	flag("first-in-paragraph", c.prev == "")
	flag("self", self.MatchString(s))
	flag("named", pc.named(c.text))
	add("on-topic", float64(min(4, pc.onTopic(c.text)))/4)
	flag("proposes", proposes.MatchString(s))
	flag("future", futurePlan.MatchString(s))
	flag("result-number", resultNumber.MatchString(notResult.ReplaceAllString(s, " ")))
	flag("qualitative-gain", qualitativeGain.MatchString(s))
	flag("code-link", codeLink.MatchString(s))
	flag("url", urlLike.MatchString(s))
	flag("archive-link", archiveLink.MatchString(s))
	flag("code-release", codeRelease.MatchString(s))
	flag("artefact", artefact.MatchString(s))
	flag("available-at", availableAt.MatchString(s))
	flag("released-passive", releasedPassive.MatchString(s))
	flag("others-release", othersRelease.MatchString(s))
	flag("own-system", ownSystem.MatchString(s))
	flag("back-reference", backReference.MatchString(s))
	flag("title", pc.isTitle(c.text))
	add("names", float64(min(4, datasetNames(c.text, pc.name)))/4)
	flag("cites", citesWork.MatchString(c.text))
	add("gap", flag01(pc.gap, c.text))
	add("survey", b01(pc.survey))
	if buckets > 0 {
		for _, h := range wordBuckets(s, buckets) {
			add("w"+strconv.Itoa(h), 1)
		}
	}
	return v
}

func flag01(gap map[string]int, s string) float64 {
	_, ok := gap[s]
	return b01(ok)
}

func b01(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// wordBuckets are the distinct buckets of a lower-cased sentence's words
// and pairs of words, a number read as the word "0".
func wordBuckets(s string, n int) []int {
	var ws []string
	for _, w := range strings.FieldsFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r > 127)
	}) {
		if w[0] >= '0' && w[0] <= '9' {
			w = "0"
		}
		ws = append(ws, w)
	}
	seen := map[int]bool{}
	var out []int
	put := func(s string) {
		h := fnv.New32a()
		h.Write([]byte(s))
		b := int(h.Sum32() % uint32(n))
		if !seen[b] {
			seen[b] = true
			out = append(out, b)
		}
	}
	for i, w := range ws {
		put(w)
		if i > 0 {
			put(ws[i-1] + " " + w)
		}
	}
	return out
}

// modelOrder is the order of the candidates the rules accept for kind k
// (minCues) under k's model km, best first, earliest of equals.
func modelOrder(k intent, km KindModel, buckets int, cands []candidate, pc paperCues) []int {
	var order []int
	scores := make([]float64, len(cands))
	for i, c := range cands {
		if c.score > 0 && c.score >= minCues[k] {
			scores[i] = cellFeatures(k, cands, i, pc, buckets).Dot(km.W)
			order = append(order, i)
		}
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(scores[b], scores[a]) })
	return order
}
