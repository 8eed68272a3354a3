package eval

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode"
)

// QASPER (Dasigi et al., NAACL 2021) asks questions written from a paper's
// title and abstract of its full text; annotators answered them with
// spans, free text, yes/no or "Unanswerable", and marked the paragraphs
// that hold the answer. This file reads it in the project's format (see
// shared/data/qasper/README.md) and scores predictions with its official
// metrics, as the reference scorer score.py does.

// QASPERQuestion is one question of a QASPER split.
type QASPERQuestion struct {
	ID      string         `json:"q_id"`
	Paper   string         `json:"paper"` // the corpus _id of its paper
	Q       string         `json:"q"`
	Answers []QASPERAnswer `json:"answers"`
}

// QASPERAnswer is one annotator's answer.
type QASPERAnswer struct {
	Type     string   `json:"type"` // extractive, abstractive, boolean, none
	Text     string   `json:"text"` // the spans joined with ", ", "Yes"/"No", or "Unanswerable"
	Spans    []string `json:"spans,omitempty"`
	Evidence []string `json:"evidence"` // gold paragraphs, verbatim
}

// QASPERPrediction is one line of a predictions file in score.py's format.
type QASPERPrediction struct {
	ID       string   `json:"q_id"`
	Answer   string   `json:"answer"`
	Evidence []string `json:"evidence"`
}

// QASPERFiles returns the corpus and questions files of a QASPER
// directory: corpus.jsonl or corpus.jsonl.gz, and the same of questions.
func QASPERFiles(dir string) (corpus, questions string, err error) {
	find := func(name string) (string, error) {
		for _, n := range []string{name + ".jsonl", name + ".jsonl.gz"} {
			p := filepath.Join(dir, n)
			if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
				return p, nil
			}
		}
		return "", fmt.Errorf("%s has no %s.jsonl or %s.jsonl.gz: give the directory of a QASPER split in the project's format (see shared/data/qasper/README.md)", dir, name, name)
	}
	if corpus, err = find("corpus"); err != nil {
		return "", "", err
	}
	if questions, err = find("questions"); err != nil {
		return "", "", err
	}
	return corpus, questions, nil
}

// OpenMaybeGzip opens a file, through gzip when its name ends in .gz.
func OpenMaybeGzip(path string) (io.ReadCloser, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	if !strings.HasSuffix(path, ".gz") {
		return f, nil
	}
	zr, err := gzip.NewReader(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return struct {
		io.Reader
		io.Closer
	}{zr, f}, nil
}

// ReadQASPER finds a QASPER split's files in dir (see QASPERFiles) and
// reads its questions: the corpus's path, for the caller to read as it
// needs, and the questions.
func ReadQASPER(dir string) (corpus string, qs []QASPERQuestion, err error) {
	corpus, questions, err := QASPERFiles(dir)
	if err != nil {
		return "", nil, err
	}
	qs, err = ReadQASPERQuestions(questions)
	return corpus, qs, err
}

// ReadQASPERQuestions reads a questions file (JSONL, gzipped or not).
func ReadQASPERQuestions(path string) ([]QASPERQuestion, error) {
	rc, err := OpenMaybeGzip(path)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	var out []QASPERQuestion
	sc := bufio.NewScanner(rc)
	sc.Buffer(nil, 64<<20)
	for n := 1; sc.Scan(); n++ {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var q QASPERQuestion
		if err := json.Unmarshal(sc.Bytes(), &q); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		if q.ID == "" || q.Paper == "" || strings.TrimSpace(q.Q) == "" {
			return nil, fmt.Errorf("%s:%d: a question needs q_id, paper and q", path, n)
		}
		out = append(out, q)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if len(out) == 0 {
		return nil, errors.New(path + " holds no question")
	}
	return out, nil
}

// QASPERScores are QASPER's official metrics over a question set, in
// percent, as score.py reports them.
type QASPERScores struct {
	AnswerF1       float64            `json:"answer_f1"`
	AnswerF1ByType map[string]float64 `json:"answer_f1_by_type"`
	QuestionsBy    map[string]int     `json:"questions_by_type"`
	EvidenceF1     float64            `json:"evidence_f1"`
	// EvidenceF1Collapsed compares evidence with white space collapsed on
	// both sides (not official: the gold keeps the annotation tool's
	// stray spaces).
	EvidenceF1Collapsed float64 `json:"evidence_f1_collapsed"`
	Questions           int     `json:"questions"`
	Missing             int     `json:"missing"` // questions without a prediction, scored 0
}

// qasperTypes are the answer types, in score.py's order.
var qasperTypes = []string{"extractive", "abstractive", "boolean", "none"}

// ScoreQASPER scores predictions (by question id) on qs: Answer-F1 is the
// token F1 of the predicted answer against each annotator's, the best
// annotator counted; Evidence-F1 the F1 of the predicted paragraphs
// against each annotator's, as exact strings. A question without a
// prediction scores 0.
func ScoreQASPER(qs []QASPERQuestion, preds map[string]QASPERPrediction) QASPERScores {
	s := QASPERScores{AnswerF1ByType: map[string]float64{}, QuestionsBy: map[string]int{}}
	sums := map[string]float64{}
	var ans, ev, evc float64
	for _, q := range qs {
		if len(q.Answers) == 0 {
			continue
		}
		s.Questions++
		p, ok := preds[q.ID]
		if !ok {
			s.Missing++
			continue
		}
		best, bestType := -1.0, ""
		bestEv, bestEvc := 0.0, 0.0
		for _, a := range q.Answers {
			ref := a.Text
			var gold []string
			if a.Type == "none" {
				ref = "Unanswerable"
			} else {
				gold = a.Evidence
			}
			if f := TokenF1(p.Answer, ref); f > best {
				best, bestType = f, a.Type
			}
			bestEv = max(bestEv, evidenceF1(p.Evidence, gold))
			bestEvc = max(bestEvc, evidenceF1(collapseAll(p.Evidence), collapseAll(gold)))
		}
		ans += best
		sums[bestType] += best
		s.QuestionsBy[bestType]++
		ev += bestEv
		evc += bestEvc
	}
	if s.Questions > 0 {
		n := float64(s.Questions)
		s.AnswerF1, s.EvidenceF1, s.EvidenceF1Collapsed = 100*ans/n, 100*ev/n, 100*evc/n
	}
	for _, t := range qasperTypes {
		s.AnswerF1ByType[t] = 0
		if k := s.QuestionsBy[t]; k > 0 {
			s.AnswerF1ByType[t] = 100 * sums[t] / float64(k)
		} else {
			s.QuestionsBy[t] = 0
		}
	}
	return s
}

// TokenF1 is SQuAD's token F1 between a prediction and a reference, after
// normalising both (lower case, no punctuation, no articles).
func TokenF1(pred, ref string) float64 {
	p, g := strings.Fields(normaliseAnswer(pred)), strings.Fields(normaliseAnswer(ref))
	count := map[string]int{}
	for _, w := range g {
		count[w]++
	}
	overlap := 0
	for _, w := range p {
		if count[w] > 0 {
			count[w]--
			overlap++
		}
	}
	if overlap == 0 {
		return 0
	}
	prec, rec := float64(overlap)/float64(len(p)), float64(overlap)/float64(len(g))
	return 2 * prec * rec / (prec + rec)
}

// normaliseAnswer is score.py's normalise: lower case, no ASCII
// punctuation (Python's string.punctuation), the articles a, an and the
// dropped where they are whole words (Python's \b(a|an|the)\b), white
// space collapsed.
func normaliseAnswer(s string) string {
	runes := []rune(strings.ToLower(s))
	kept := runes[:0]
	for _, r := range runes {
		if r < 128 && (unicode.IsPunct(r) || unicode.IsSymbol(r)) {
			continue
		}
		kept = append(kept, r)
	}
	var b strings.Builder
	for i := 0; i < len(kept); {
		if !wordRune(kept[i]) {
			b.WriteRune(kept[i])
			i++
			continue
		}
		j := i
		for j < len(kept) && wordRune(kept[j]) {
			j++
		}
		switch w := string(kept[i:j]); w {
		case "a", "an", "the":
			b.WriteByte(' ')
		default:
			b.WriteString(w)
		}
		i = j
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

// wordRune is Python's \w for str patterns.
func wordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || unicode.IsMark(r)
}

// evidenceF1 is score.py's evidence_f1: precision over the predicted list
// and recall over the gold one, as lists, of their sets' overlap.
func evidenceF1(pred, gold []string) float64 {
	if len(pred) == 0 && len(gold) == 0 {
		return 1
	}
	set := map[string]bool{}
	for _, p := range pred {
		set[p] = true
	}
	overlap := 0
	seen := map[string]bool{}
	for _, g := range gold {
		if set[g] && !seen[g] {
			seen[g] = true
			overlap++
		}
	}
	if overlap == 0 {
		return 0
	}
	prec, rec := float64(overlap)/float64(len(pred)), float64(overlap)/float64(len(gold))
	return 2 * prec * rec / (prec + rec)
}

func collapseAll(xs []string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = strings.Join(strings.Fields(x), " ")
	}
	return out
}

// QASPERPapers reads a corpus's papers as QASPER's evidence is written:
// each paper's paragraphs (the lines of its text), by _id.
func QASPERPapers(path string) (map[string][]string, error) {
	rc, err := OpenMaybeGzip(path)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	out := map[string][]string{}
	sc := bufio.NewScanner(rc)
	sc.Buffer(nil, 64<<20)
	for n := 1; sc.Scan(); n++ {
		var rec struct {
			ID   json.RawMessage `json:"_id"`
			Text string          `json:"text"`
		}
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		var id string
		if err := json.Unmarshal(rec.ID, &id); err != nil {
			id = strings.TrimSpace(string(rec.ID)) // a numeric _id
		}
		var lines []string
		for _, l := range strings.Split(rec.Text, "\n") {
			if strings.TrimSpace(l) != "" {
				lines = append(lines, l)
			}
		}
		out[id] = lines
	}
	return out, sc.Err()
}

// EvidenceParagraphs returns the paragraphs of a paper (as QASPERPapers
// gives them) that hold the quoted sentences, each once, in the quotes'
// order; white space is ignored in matching, and the paragraphs are
// returned verbatim, as QASPER's gold evidence is.
func EvidenceParagraphs(paras []string, quotes []string) []string {
	flat := make([]string, len(paras))
	for i, p := range paras {
		flat[i] = strings.Join(strings.Fields(p), " ")
	}
	out := []string{}
	seen := map[int]bool{}
	for _, q := range quotes {
		q = strings.Join(strings.Fields(q), " ")
		if q == "" {
			continue
		}
		for i, f := range flat {
			if strings.Contains(f, q) {
				if !seen[i] {
					seen[i] = true
					out = append(out, paras[i])
				}
				break
			}
		}
	}
	return out
}

// EvidenceRecall reports whether any annotator's text evidence (figure and
// table evidence left out) stands whole in one of the given passages:
// whether a model given them could have read the answer. ok is false for
// questions without text evidence, which do not count.
func EvidenceRecall(q QASPERQuestion, given []string) (found, ok bool) {
	flat := make([]string, len(given))
	for i, g := range given {
		flat[i] = strings.Join(strings.Fields(g), " ")
	}
	for _, a := range q.Answers {
		for _, e := range a.Evidence {
			if strings.HasPrefix(e, "FLOAT SELECTED") {
				continue
			}
			e = strings.Join(strings.Fields(e), " ")
			if e == "" {
				continue
			}
			ok = true
			for _, f := range flat {
				if strings.Contains(f, e) {
					return true, true
				}
			}
		}
	}
	return false, ok
}

// LatencyOf is the median, 95th percentile and mean of ds, in ms.
func LatencyOf(ds []time.Duration) QALatency { return qaLatency(ds) }
