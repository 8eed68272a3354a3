package ask

import (
	"context"
	"io"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/papers-cli/papers/llm"
	"github.com/papers-cli/papers/retrieve"
	"github.com/papers-cli/papers/store"
	"github.com/papers-cli/papers/textseg"
)

// DefaultK is how many passages an answer is given when AskOptions.K is 0
// (DefaultQualityK in quality mode). An offline answer reads more
// (DefaultExtractiveK, up to extractivePerPaper of one paper): it only
// cites the passages it quotes, and the sentence that answers is often in
// the fourth or fifth passage of the right paper.
const (
	DefaultK           = 8
	DefaultQualityK    = 20
	DefaultExtractiveK = 12
	extractivePerPaper = 8
)

// AskOptions tune Ask: what is retrieved and how it is answered.
type AskOptions struct {
	// K is how many passages the answer is given (0: DefaultK, or
	// DefaultQualityK with Answer.Quality).
	K int
	// Retrieve selects the papers (Filter) and the retrieval Mode; its K is
	// ignored (see K). With Filter.IDs set, any number of passages may come
	// from one paper, as when asking one paper.
	Retrieve retrieve.Options
	// Answer tunes the answer (model, extractive, quality).
	Answer Options
}

// Ask retrieves the passages of r's library that best match question and
// answers from them: the one path of `papers ask` and of the answer
// harness (eval), so both measure the same thing. It returns what Answer
// returns, with Result.Retrieval set to the time retrieval took; a
// retrieval failure is returned with a nil Result.
func Ask(ctx context.Context, r *retrieve.Retriever, question string, model llm.LLM, opts AskOptions, out io.Writer) (*Result, error) {
	start := time.Now()
	passages, aopts, err := Evidence(ctx, r, question, model, opts)
	if err != nil {
		return nil, err
	}
	retrieval := time.Since(start)
	res, err := Answer(ctx, passages, question, model, aopts, out)
	if res != nil {
		res.Retrieval = retrieval
		res.Passages = len(slices.DeleteFunc(slices.Clone(passages), func(p retrieve.Passage) bool { return p.Neighbour }))
	}
	return res, err
}

// retriever is the retrieval the answer reads passages through: a
// retrieve.Retriever, with the reading on (completing sentences, finding
// where a name is introduced, neighbours) that answers need.
type retriever struct{ *retrieve.Retriever }

// Evidence is the first half of Ask: the passages it answers from and the
// answer options it uses (for tuning the answer on fixed passages).
func Evidence(ctx context.Context, rt *retrieve.Retriever, question string, model llm.LLM, opts AskOptions) ([]retrieve.Passage, Options, error) {
	r := retriever{rt}
	k := opts.K
	if k <= 0 {
		k = DefaultK
		if opts.Answer.Quality {
			k = DefaultQualityK
		}
	}
	ro := opts.Retrieve
	if len(ro.Filter.IDs) > 0 && ro.PerPaper == 0 {
		ro.PerPaper = -1 // asking named papers: any number of passages from each
	}
	if opts.K <= 0 && (model == nil || opts.Answer.Extractive) && !opts.Answer.Quality {
		k = DefaultExtractiveK
		if ro.PerPaper == 0 {
			ro.PerPaper = extractivePerPaper
		}
	}
	ro.K = k
	ro.Prose = true // answers quote prose, never a table's cells or a caption
	passages, err := r.Retrieve(ctx, question, ro)
	if err != nil {
		return nil, Options{}, err
	}
	if err := r.complete(ctx, passages); err != nil {
		return nil, Options{}, err
	}
	if model == nil || opts.Answer.Extractive {
		if passages, err = r.introductions(ctx, question, passages, ro.Filter); err != nil {
			return nil, Options{}, err
		}
		if passages, err = r.neighbours(ctx, passages); err != nil {
			return nil, Options{}, err
		}
	}
	a := opts.Answer
	a.MaxPassages = k
	return passages, a, nil
}

// complete ends each passage that stops inside a sentence (a chunk ends at
// a page break, and a sentence running onto the next page is cut there)
// with the rest of that sentence, from the paper's next chunk: "...
// DeepSeek-R1 could achieve an" + "accuracy of over 70%.". The passage keeps
// its pages and citation.
func (r retriever) complete(ctx context.Context, ps []retrieve.Passage) error {
	var ids []string
	for _, p := range ps {
		if p.Seq > 0 && cutShort(p.Text) {
			ids = append(ids, store.ChunkID(p.PaperID, p.Seq+1))
		}
	}
	if len(ids) == 0 {
		return nil
	}
	next, err := r.Index.ChunkTexts(ctx, ids)
	if err != nil {
		return err
	}
	for i := range ps {
		p := &ps[i]
		n, ok := next[store.ChunkID(p.PaperID, p.Seq+1)]
		if !ok || p.Seq == 0 || !cutShort(p.Text) || !n.Role.Prose() {
			continue
		}
		if rest := continuation(p.Text, n.Text); rest != "" {
			p.Text += " " + rest
		}
	}
	return nil
}

// namesThing finds where a text names a thing: "..., referred to as
// PaSa-7b", "we call this X", "X, dubbed ...".
var namesThing = regexp.MustCompile(`(?i)\b(?:referred to|denoted|known|abbreviated)(?: \w+){0,3} as\b|\b(?:called|named|dubbed|termed|we call)\b`)

// introductions puts, in place of the last of ps, the chunk that
// introduces a name of the question ("We sequentially trained the Selector
// and Crawler, both based on the Qwen2.5-7b, ..., referred to as PaSa-7b")
// when retrieval did not bring it: a question about a system asks what it
// is made of or built on, which the sentence naming it says in words the
// question does not share. The chunk is searched for by the name alone,
// among the papers of the best three passages.
func (r retriever) introductions(ctx context.Context, question string, ps []retrieve.Passage, f store.Filter) ([]retrieve.Passage, error) {
	es := entities(question)
	if len(es) == 0 || len(ps) < 2 {
		return ps, nil
	}
	have := map[string]bool{}
	var ids []string
	for i, p := range ps {
		have[p.ChunkID] = true
		if i < 3 && !slices.Contains(ids, p.PaperID) {
			ids = append(ids, p.PaperID)
		}
	}
	f.IDs = ids
	for _, e := range es[:min(len(es), 2)] {
		hits, err := r.Lexical(ctx, e.text, introScan, f)
		if err != nil {
			return nil, err
		}
		var cand []string
		for _, h := range hits {
			if !have[h.ID] {
				cand = append(cand, h.ID)
			}
		}
		if len(cand) == 0 {
			continue
		}
		texts, err := r.Index.ChunkTexts(ctx, cand)
		if err != nil {
			return nil, err
		}
		for _, id := range cand {
			c, ok := texts[id]
			if !ok || !introducesName(c.Text, e) {
				continue
			}
			got, err := r.Hydrate(ctx, []retrieve.Scored{{ID: id, Score: ps[len(ps)-1].Score}})
			if err != nil {
				return nil, err
			}
			if len(got) == 1 {
				got[0].Rank = len(ps)
				ps[len(ps)-1] = got[0]
				return ps, nil // one: it takes the weakest passage's place
			}
		}
	}
	return ps, nil
}

// introScan is how many chunks matching a name are read for the one
// introducing it.
const introScan = 40

// introducesName reports a sentence of text that names e: e is among the
// three words after a naming phrase ("referred to as PaSa-7b", "we call it
// X"; not "also known as the uniform mode, a feature of the Bethe
// lattice").
func introducesName(text string, e entity) bool {
	for _, s := range textseg.Sentences(strings.Join(strings.Fields(text), " ")) {
		for _, loc := range namesThing.FindAllStringIndex(s, -1) {
			after := strings.Fields(s[loc[1]:])
			if newNameIndex(strings.Join(after[:min(len(after), 3)], " ")).has(e) {
				return true
			}
		}
	}
	return false
}

// neighbourOf is how many of the best passages an offline answer reads on
// into the chunk that follows (when retrieval did not bring it).
const neighbourOf = 6

// neighbours appends to ps, marked Neighbour, the chunk that follows each
// of its first neighbourOf passages in its paper when ps lacks it: a list
// or a paragraph the chunker cut goes on there ("there are some clear
// limitations ..." and the last two of them), and the offline answer reads
// its lead's list and followers on into it. They are never an answer's
// lead, only what follows one.
func (r retriever) neighbours(ctx context.Context, ps []retrieve.Passage) ([]retrieve.Passage, error) {
	have := map[string]bool{}
	for _, p := range ps {
		have[p.ChunkID] = true
	}
	var ids []string
	for _, p := range ps[:min(len(ps), neighbourOf)] {
		if id := store.ChunkID(p.PaperID, p.Seq+1); !have[id] {
			have[id] = true
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return ps, nil
	}
	next, err := r.Index.ChunkTexts(ctx, ids)
	if err != nil {
		return nil, err
	}
	papers := map[string]store.Paper{}
	for _, p := range ps {
		papers[p.PaperID] = p.Paper
	}
	for _, id := range ids {
		c, ok := next[id]
		if !ok || !c.Role.Prose() {
			continue // the paper's last chunk, or a table, caption, ... after it
		}
		ps = append(ps, retrieve.Passage{ChunkID: id, PaperID: c.PaperID, Seq: c.Seq, PageStart: c.PageStart, PageEnd: c.PageEnd,
			Section: c.Section, Role: c.Role.OfChunk(), Text: c.Text, Paper: papers[c.PaperID], Neighbour: true})
	}
	return ps, nil
}

// cutShort reports text that ends inside a sentence.
func cutShort(text string) bool {
	t := strings.TrimRight(text, " \n")
	if t == "" {
		return false
	}
	r, _ := utf8.DecodeLastRuneInString(t)
	return !strings.ContainsRune(".!?:;)]”\"'’", r)
}

// continuation is the end of text's last sentence as next holds it: after
// the words text ends with (the next chunk repeats trailing sentences), else
// from its start when it opens in lower case, up to the end of the sentence.
func continuation(text, next string) string {
	words := strings.Fields(text)
	tail := strings.Join(words[max(0, len(words)-6):], " ")
	flat := strings.Join(strings.Fields(next), " ")
	if i := strings.Index(flat, tail); i >= 0 {
		flat = strings.TrimSpace(flat[i+len(tail):])
	} else if r, _ := utf8.DecodeRuneInString(flat); !unicode.IsLower(r) {
		return ""
	}
	if s := textseg.Sentences(flat); len(s) > 0 && textseg.WordCount(s[0]) <= 60 {
		return s[0]
	}
	return ""
}
