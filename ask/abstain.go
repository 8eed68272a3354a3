package ask

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/papers-cli/papers/ask/rank"
	"github.com/papers-cli/papers/internal/lazyre"
	"github.com/papers-cli/papers/internal/safetext"
	"github.com/papers-cli/papers/store"
)

// abstention is an answer's refusal: a sentence saying what the library
// does not state. It is ErrNoEvidence.
type abstention struct{ msg string }

func (a abstention) Error() string        { return a.msg }
func (a abstention) Is(target error) bool { return target == ErrNoEvidence }

func isNoEvidence(err error) bool { return errors.Is(err, ErrNoEvidence) }

// noAnswer is the refusal of a question no paper answers: it names what
// none of the papers mentions when the question's names or rare words
// stand in none of them, else the paper asked of, else the library, and
// quotes the question.
func noAnswer(question string, sc scope, pts []*paperText) error {
	if len(pts) == 0 && sc.filtered {
		return abstention{"the library holds no evidence for this: no paper the filters leave matches the question"}
	}
	// what no paper mentions: the question's names, else its focus, else
	// its words that papers seldom use
	var missing []string
	if !rank.ParseQuestion(question).YesNo() {
		missing = commonDetails(question, pts)
	}
	for _, words := range [][]string{keyWords(question), focusOf(question), specificWords(question), contentWords(question)} {
		if len(missing) > 0 {
			break
		}
		for _, w := range words {
			held := false
			for _, pt := range pts {
				if mentions(pt, w) || mentionsStem(pt, w) {
					held = true
					break
				}
			}
			if !held {
				missing = append(missing, w)
			}
		}
		if len(missing) > 0 {
			break
		}
	}
	who := "None of the library's papers"
	if sc.named && len(pts) == 1 {
		who = paperName(&pts[0].paper)
	}
	if len(missing) > 0 {
		verb := "mentions"
		if who != "None of the library's papers" {
			verb = "does not mention"
		}
		return abstention{fmt.Sprintf("%s %s %s.", who, verb, orList(missing))}
	}
	if who == "None of the library's papers" {
		return abstention{fmt.Sprintf("None of the library's papers states an answer to “%s”", strings.TrimSpace(question))}
	}
	return abstention{fmt.Sprintf("%s does not state an answer to “%s”", who, strings.TrimSpace(question))}
}

// keyWords are the words of a question a paper must mention to answer
// it: its names (capitalised or with digits, not at its start) and, when
// it has none, nothing: common words are everywhere.
func keyWords(question string) []string {
	var out []string
	for i, w := range strings.Fields(question) {
		w = strings.Trim(w, "?.,;:!\"'()[]“”’")
		if w == "" || i == 0 && !nameLike(w, false) {
			continue
		}
		if strings.HasSuffix(w, "'s") || strings.HasSuffix(w, "’s") {
			w = w[:len(w)-2]
		}
		if nameLike(w, i == 0) && !capitalisedCommon(w) && !genericAcronyms[strings.ToLower(w)] {
			out = append(out, w)
		}
	}
	return out
}

// mentions reports whether the paper's title or text (its paragraphs as
// an answer reads them: no reference list) holds the name w:
// its letters and digits, in order, as consecutive words of the paper,
// whatever stands between them ("DeepSeek-R1-Zero" is in "DeepSeek-R1-
// Zero", "GPT-3" in "GPT 3"), a plural s allowed either way ("GPUs" is in
// "single-GPU"); never inside a longer
// word ("ECHO" is not in "echoes").
func mentions(pt *paperText, w string) bool {
	if pt.words == nil {
		pt.words = wordsOf(pt.paper.Title)
		for _, p := range pt.paras {
			pt.words = append(pt.words, wordsOf(p.Text)...)
		}
	}
	name := strings.Join(wordsOf(w), "")
	if name == "" {
		return false
	}
	if acronym(w) && spelledOut(pt.words, name) {
		return true // "PPO" in "Proximal Policy Optimization"
	}
	for i := range pt.words {
		rest := name
		for j := i; j < len(pt.words) && j < i+4; j++ {
			pw := pt.words[j]
			switch {
			case rest == pw || rest+"s" == pw || len(rest) > 3 && rest == pw+"s":
				return true
			case strings.HasPrefix(rest, pw):
				rest = rest[len(pw):]
				continue
			}
			break
		}
	}
	return false
}

// mentionsStem reports whether the paper's title or text holds a word of
// w's stem ("trained" is in a paper that writes "training"): what a
// refusal may say a paper does not mention.
func mentionsStem(pt *paperText, w string) bool {
	st := rank.Stems(w)
	if len(st) != 1 {
		return false
	}
	if pt.stems == nil {
		pt.stems = map[string]bool{}
		for _, s := range rank.Stems(pt.paper.Title) {
			pt.stems[s] = true
		}
		for _, p := range pt.paras {
			for _, s := range rank.Stems(p.Text) {
				pt.stems[s] = true
			}
		}
	}
	return pt.stems[st[0]]
}

// acronym reports a word of 2 to 6 capitals (a final s allowed).
func acronym(w string) bool {
	w = strings.TrimSuffix(w, "s")
	if len(w) < 2 || len(w) > 6 {
		return false
	}
	for _, r := range w {
		if !unicode.IsUpper(r) {
			return false
		}
	}
	return true
}

// spelledOut reports consecutive words whose initials spell the
// lower-cased acronym a.
func spelledOut(words []string, a string) bool {
	for i := 0; i+len(a) <= len(words); i++ {
		ok := true
		for k := 0; k < len(a); k++ {
			if words[i+k][0] != a[k] {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// wordsOf are the runs of letters and digits of s, lower-cased.
func wordsOf(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// missingNames are the names the question asks about that the paper never
// mentions: a paper that never names HotpotQA does not report a score on
// it, whatever else it shares with the question.
func (pt *paperText) missingNames(question string) []string {
	var out []string
	for _, w := range keyWords(question) {
		if !mentions(pt, w) {
			out = append(out, w)
		}
	}
	return out
}

// details are experimental details a paper states, when it does, in
// words of its own kind: a learning rate is written "learning rate" (or
// "lr"), an optimizer by its name. Each is the question's words (a
// regular expression) and what a paper that states it writes.
var details = []struct {
	asked, written *lazyre.Regexp
	name           string
}{
	{lazyre.New(`(?i)\blearning[- ]rates?\b`), lazyre.New(`(?i)\b(learning[- ]rates?|lr)\b`), "a learning rate"},
	{lazyre.New(`(?i)\bbatch[- ]?sizes?\b`), lazyre.New(`(?i)\b(batch(es)?|mini-?batch(es)?|batch[- ]?sizes?)\b`), "a batch size"},
	{lazyre.New(`(?i)\b(gpus?|gpu[- ]hours?|tpus?)\b`), lazyre.New(`(?i)\b(gpus?|tpus?|[avh]\d{2,3}s?|titan|tesla|rtx|cuda|graphics (cards?|processors?))\b`), "GPUs"},
	{lazyre.New(`(?i)\bepochs?\b`), lazyre.New(`(?i)\bepochs?\b`), "epochs"},
	{lazyre.New(`(?i)\b(which|what) optimi[sz]er\b|\boptimi[sz]er (is|was|does|did)\b`), lazyre.New(`(?i)\b(optimi[sz]ers?|adam\w*|sgd|adagrad|adadelta|rmsprop|adafactor|lamb|momentum|l-?bfgs|gradient descent)\b`), "an optimizer"},
	{lazyre.New(`(?i)\bdropout\b`), lazyre.New(`(?i)\bdrop-?out\b`), "dropout"},
	{lazyre.New(`(?i)\bweight[- ]decay\b`), lazyre.New(`(?i)\b(weight[- ]decay|l2 (penalty|regulari[sz]ation))\b`), "weight decay"},
	{lazyre.New(`(?i)\bwarm-?up\b`), lazyre.New(`(?i)\bwarm-?up\b`), "a warm-up"},
	{lazyre.New(`(?i)\bhow many (trainable |learnable |model )?parameters\b|\bnumber of (trainable |model )?parameters\b`), lazyre.New(`(?i)\b(parameters|params|weights)\b|\b\d+(\.\d+)?\s?[mb]\b`), "its parameter count"},
}

// commonDetails are the experimental details the question asks of that
// none of pts writes of.
func commonDetails(question string, pts []*paperText) []string {
	if len(pts) == 0 {
		return nil
	}
	out := pts[0].missingDetails(question)
	for _, pt := range pts[1:] {
		out = slices.DeleteFunc(out, func(d string) bool { return !slices.Contains(pt.missingDetails(question), d) })
	}
	return out
}

// missingDetails are the experimental details the question asks the
// value of that the paper never writes of (a paper that never writes
// "learning rate" or "lr" does not state the learning rate it used). A
// yes/no question is left to the model ("Do they use dropout?" of a
// paper that never does is answered No).
func (pt *paperText) missingDetails(question string) []string {
	var out []string
	for _, d := range details {
		if !d.asked.MatchString(question) {
			continue
		}
		held := d.written.MatchString(pt.paper.Title)
		for _, p := range pt.paras {
			if held {
				break
			}
			held = d.written.MatchString(p.Text)
		}
		if !held {
			out = append(out, d.name)
		}
	}
	return out
}

// orList joins words as "A", "A or B", "A, B or C".
func orList(ws []string) string {
	switch len(ws) {
	case 0:
		return ""
	case 1:
		return ws[0]
	}
	return strings.Join(ws[:len(ws)-1], ", ") + " or " + ws[len(ws)-1]
}

// paperName names a paper in a sentence: its short name, else its title's
// head in quotes, with its id.
func paperName(p *store.Paper) string {
	if n := shortName(p); n != "" {
		return fmt.Sprintf("%s (%s)", n, p.ID)
	}
	head := strings.TrimSpace(strings.SplitN(safetext.OneLine(tidy(p.Title, "")), ":", 2)[0])
	if head == "" {
		return p.ID
	}
	return fmt.Sprintf("“%s” (%s)", head, p.ID)
}

// specificWords are the question's words that papers at large seldom
// use (rank's specific words: not cue words, in under 2% of paragraphs),
// as the question writes them.
func specificWords(question string) []string {
	m := rank.Default()
	var out []string
	for i, w := range strings.Fields(question) {
		w = strings.Trim(w, "?.,;:!\"'()[]“”’")
		if w == "" || i == 0 || nameLike(w, false) {
			continue
		}
		if m.Specific(w) {
			out = append(out, w)
		}
	}
	return out
}

// contentWords are the question's words that are not function words,
// as it writes them (what a search that found nothing did not find).
func contentWords(question string) []string {
	var out []string
	for _, w := range strings.Fields(question) {
		w = strings.Trim(w, "?.,;:!\"'()[]“”’")
		if len(rank.Stems(w)) == 1 && !rank.Stopword(strings.ToLower(w)) {
			out = append(out, w)
		}
	}
	return out
}

// focusOf is focus as a list: empty or one compound.
func focusOf(question string) []string {
	if f := focus(question); f != "" {
		return []string{f}
	}
	return nil
}

// genericHeads are nouns that end a question's focus without making it a
// thing a paper names ("retrieval method", "main result").
var genericHeads = map[string]bool{
	"method": true, "methods": true, "approach": true, "approaches": true, "model": true, "models": true,
	"way": true, "ways": true, "value": true, "values": true, "score": true, "scores": true, "technique": true,
	"techniques": true, "algorithm": true, "algorithms": true, "data": true, "dataset": true, "datasets": true,
	"setting": true, "settings": true, "result": true, "results": true, "task": true, "tasks": true, "type": true,
	"types": true, "kind": true, "kinds": true, "part": true, "parts": true, "role": true, "component": true,
	"components": true, "baseline": true, "baselines": true, "system": true, "systems": true, "metric": true,
	"metrics": true, "feature": true, "features": true, "benchmark": true, "benchmarks": true, "step": true,
	"steps": true, "problem": true, "problems": true, "idea": true, "ideas": true, "strategy": true, "strategies": true,
}

// focusStops end a question's focus.
var focusStops = map[string]bool{
	"does": true, "do": true, "did": true, "is": true, "are": true, "was": true, "were": true, "has": true,
	"have": true, "had": true, "can": true, "could": true, "will": true, "would": true, "and": true, "or": true,
	"of": true, "in": true, "on": true, "for": true, "to": true, "from": true, "with": true, "by": true, "at": true,
}

// focus is the compound a what- or which-question asks for ("What
// learning rate does ...", "Which batch size ..."): two to four lower-case
// words after the question word, the last not a generic noun; "" for
// other questions. A paper that never writes it does not state it.
func focus(question string) string {
	ws := strings.Fields(strings.TrimRight(question, "?"))
	if len(ws) < 3 {
		return ""
	}
	switch strings.ToLower(ws[0]) {
	case "what", "which":
	default:
		return ""
	}
	var f []string
	for _, w := range ws[1:] {
		lw := strings.ToLower(strings.Trim(w, ",;:"))
		if focusStops[lw] || lw != w || strings.ContainsAny(w, ",;:") && len(f) > 0 {
			break
		}
		f = append(f, lw)
		if len(f) == 4 {
			break
		}
	}
	if len(f) < 2 || genericHeads[f[len(f)-1]] || f[0] == "the" || f[0] == "a" || f[0] == "an" {
		return ""
	}
	return strings.Join(f, " ")
}

// metadataRe asks who wrote a paper, or when it appeared.
var metadataRe = lazyre.New(`(?i)^\s*(?:who\s+(?:wrote|authored|are\s+the\s+authors\s+of|is\s+the\s+author\s+of|published|created|developed)|(?:who|what)\s+(?:are|were)\s+(?:the\s+)?authors|(?:list|name)\s+the\s+authors|when\s+was\s+.{1,80}\s+(?:published|released|posted))\b`)

// metadataQuestion reports a question about a paper's authors or date,
// which its record answers rather than its text.
func metadataQuestion(q string) bool { return metadataRe.MatchString(q) }

// answerMetadata answers who wrote a paper, or when it appeared, from its
// record, citing its title and abstract.
func (c *composer) answerMetadata(pt *paperText, question string) {
	p := &pt.paper
	e := evidence{ChunkID: store.ChunkID(p.ID, 0), Paper: *p, Section: "abstract"}
	if len(pt.chunks) > 0 {
		e.Text = pt.chunks[0].Text
	}
	n := len(c.res.Citations) + 1
	c.res.Citations = append(c.res.Citations, citationFor(n, &e))
	var short string
	if strings.HasPrefix(strings.ToLower(strings.TrimSpace(question)), "when") {
		short = "date unknown"
		if !p.Published.IsZero() {
			short = p.Published.Format("2 January 2006")
		}
		fmt.Fprintf(&c.b, "%s was published on %s [%d]\n", paperName(p), short, n)
	} else {
		short = "authors unknown"
		if len(p.Authors) > 0 {
			short = strings.Join(p.Authors, ", ")
		}
		fmt.Fprintf(&c.b, "%s was written by %s [%d]\n", paperName(p), short, n)
	}
	c.res.ShortAnswer = short
	c.res.Citations[n-1].CitedBy = append(c.res.Citations[n-1].CitedBy, strings.TrimSpace(c.b.String()))
}
