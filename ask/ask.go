package ask

import (
	"context"
	"fmt"
	"io"
	"sort"
	"time"

	"github.com/papers-cli/papers/ask/rank"
	"github.com/papers-cli/papers/llm"
	"github.com/papers-cli/papers/retrieve"
	"github.com/papers-cli/papers/store"
)

// DefaultK is how many passages a model is given when AskOptions.K is 0
// (DefaultQualityK in quality mode). Retrieval finds the papers; the
// passages given are the best of those papers by the answer model's
// ranking (package rank), not retrieval's own order.
const (
	DefaultK        = 8
	DefaultQualityK = 20
	// retrieveK is how many passages retrieval returns to choose the
	// papers from.
	retrieveK = 20
)

// AskOptions tune Ask: what is retrieved and how it is answered.
type AskOptions struct {
	// K is how many passages a model is given (0: DefaultK, or
	// DefaultQualityK with Answer.Quality). Offline answers read the
	// whole of the papers they answer from.
	K int
	// Retrieve selects the papers (Filter) and the retrieval Mode; its K is
	// ignored. With Filter.IDs naming one paper, the question is asked of
	// that paper alone (ask --paper).
	Retrieve retrieve.Options
	// Answer tunes the answer (model, extractive, quality).
	Answer Options
}

// Ask answers question from r's library: retrieval finds the papers that
// may answer it (the paper it names, or the one it is asked of, or the
// papers of the best passages; several for a topic question), the answer
// model of package rank ranks each paper's paragraphs, and the answer is
// composed offline from its choices, or written by model from the
// passages it ranks best. It is the one path of `papers ask`, the MCP ask
// tool and the answer harnesses (eval), so all measure the same thing.
// It returns what Answer returns, with Result.Retrieval set to the time
// retrieval and ranking took; a retrieval failure is returned with a nil
// Result.
func Ask(ctx context.Context, r *retrieve.Retriever, question string, model llm.LLM, opts AskOptions, out io.Writer) (*Result, error) {
	start := time.Now()
	ro := opts.Retrieve
	ro.K = retrieveK
	if len(ro.Filter.IDs) > 0 {
		ro.PerPaper = -1 // asking named papers: any number of passages from each
	}
	var passages []retrieve.Passage
	if len(ro.Filter.IDs) > 0 {
		// asked of named papers: they are read whole, whatever matches
		papers, err := r.Index.List(ctx, store.Filter{IDs: ro.Filter.IDs})
		if err != nil {
			return nil, err
		}
		for _, p := range papers {
			passages = append(passages, retrieve.Passage{PaperID: p.ID, Paper: p})
		}
	} else {
		var err error
		if passages, err = r.Retrieve(ctx, question, ro); err != nil {
			return nil, err
		}
	}
	sc := scopeOf(question, passages, ro.Filter)
	var pts []*paperText
	for _, p := range sc.papers {
		chunks, err := r.Index.Chunks(ctx, p.ID)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", p.ID, err)
		}
		pts = append(pts, readPaper(p, chunks))
	}
	res, err := answerPapers(ctx, question, sc, pts, model, opts, out, start)
	if res != nil {
		res.Retrieval = res.ranked.Sub(start)
		res.Passages = len(passages)
	}
	return res, err
}

// Answer answers question from the given passages alone, as Ask does from
// whole papers: the passages of each paper are read as its text. Without a
// model, or with opts.Extractive, the answer is composed offline; else the
// model answers from the passages ranked best. See Result for what it
// holds; when no passage answers, it returns a Result with Abstained set
// and ErrNoEvidence, having written nothing to out. Model failures are
// *llm.LLMError; cancellation returns the context's error.
func Answer(ctx context.Context, passages []retrieve.Passage, question string, model llm.LLM, opts Options, out io.Writer) (*Result, error) {
	start := time.Now()
	sc := scopeOf(question, passages, store.Filter{})
	byPaper := map[string][]store.Chunk{}
	for _, p := range passages {
		byPaper[p.PaperID] = append(byPaper[p.PaperID], store.Chunk{PaperID: p.PaperID, Seq: p.Seq,
			PageStart: p.PageStart, PageEnd: p.PageEnd, Section: p.Section, Role: p.Role, Text: p.Text})
	}
	var pts []*paperText
	for _, p := range sc.papers {
		cs := byPaper[p.ID]
		sort.Slice(cs, func(i, j int) bool { return cs[i].Seq < cs[j].Seq })
		pts = append(pts, readPaper(p, cs))
	}
	return answerFrom(ctx, question, sc, pts, fromPassages(passages), model, AskOptions{Answer: opts, K: opts.MaxPassages}, out, start)
}

// answerPapers ranks each paper's paragraphs for the question and answers:
// offline from the ranking's choices, or by the model from the passages
// holding the best paragraphs.
func answerPapers(ctx context.Context, question string, sc scope, pts []*paperText, model llm.LLM, opts AskOptions, out io.Writer, start time.Time) (*Result, error) {
	return answerFrom(ctx, question, sc, pts, nil, model, opts, out, start)
}

// answerFrom is answerPapers; a model given passages (given != nil) answers
// from them as they are, best first, not from the ranking's.
func answerFrom(ctx context.Context, question string, sc scope, pts []*paperText, given []evidence, model llm.LLM, opts AskOptions, out io.Writer, start time.Time) (*Result, error) {
	res := &Result{Question: question, Citations: []Citation{}, Warnings: []string{}, Evidence: []Evidence{}}
	a := opts.Answer
	switch {
	case a.Quality && model == nil:
		return nil, ErrNeedsModel
	case model == nil || a.Extractive:
		res.Mode = ModeExtractive
	case a.Quality:
		res.Mode, res.Model = ModeQuality, model.Model()
	default:
		res.Mode, res.Model = ModeLLM, model.Model()
	}
	if !sc.named && !sc.topic {
		byMentions(question, pts)
	}
	m := rank.Default()
	q := rank.ParseQuestion(question)
	for _, pt := range pts {
		pt.named = sc.named
	}
	if res.Mode != ModeExtractive || sc.topic || sc.named {
		for _, pt := range pts {
			pt.choose(m, q)
		}
	} else {
		// the first paper that answers, and the next to compare with: the
		// others are read only when these do not answer
		answering := 0
		for _, pt := range pts {
			pt.choose(m, q)
			if !pt.abstains() {
				answering++
			}
			if answering == 2 {
				break
			}
		}
	}
	if res.Mode == ModeExtractive && sc.named && len(pts) == 1 && a.Generic != nil && !q.YesNo() {
		if quote, unstated, ok := a.Generic(pts[0].paper, pts[0].chunks, question); ok {
			if quote == "" {
				res.ranked, res.Elapsed, res.Abstained = time.Now(), time.Since(start), true
				return res, abstention{fmt.Sprintf("%s does not state %s.", paperName(&pts[0].paper), unstated)}
			}
			pts[0].pin(quote)
		}
	}
	res.ranked = time.Now()
	if len(pts) == 0 {
		res.Abstained = true
		return res, noAnswer(question, sc, pts)
	}
	k := opts.K
	if k <= 0 {
		k = DefaultK
		if res.Mode == ModeQuality {
			k = DefaultQualityK
		}
	}
	ev := given
	if ev == nil {
		ev = bestPassages(sc, pts, k)
	}
	ev = ev[:min(k, len(ev))]
	for _, e := range ev {
		res.Given = append(res.Given, e.Text)
	}
	var err error
	if res.Mode == ModeExtractive {
		err = offlineAnswer(question, q, sc, pts, res, out)
	} else {
		if res.Mode == ModeQuality {
			err = qualityAnswer(ctx, ev, question, model, a, res, out, start)
		} else {
			err = generate(ctx, ev, nil, question, model, res, out, start)
		}
	}
	res.Elapsed = time.Since(start)
	if err != nil && isNoEvidence(err) {
		res.Abstained = true
		res.Answer, res.ShortAnswer = "", ""
		res.Citations, res.Evidence = []Citation{}, []Evidence{}
	}
	return res, err
}

// offlineAnswer composes the answer of the ranking's choices: the named
// paper's, the best paper's, or a line from each paper of a topic.
func offlineAnswer(question string, q rank.Question, sc scope, pts []*paperText, res *Result, out io.Writer) error {
	c := &composer{res: res, chunk: map[string]int{}}
	if sc.topic {
		if n := c.answerTopic(pts, q); n > 0 {
			return c.write(out)
		}
		return noAnswer(question, sc, pts)
	}
	if sc.named && metadataQuestion(question) {
		c.answerMetadata(pts[0], question)
		return c.write(out)
	}
	best := -1
	for i, pt := range pts {
		if pt.model == nil || pt.abstains() {
			continue
		}
		if best < 0 || pt.choice.Unanswerable < pts[best].choice.Unanswerable-paperMargin {
			best = i
		}
	}
	if best < 0 {
		return noAnswer(question, sc, pts)
	}
	c.answerOne(pts[best], q)
	return c.write(out)
}

// byMentions orders papers by how many of the question's names they
// mention, most first, keeping retrieval's order among equals.
func byMentions(question string, pts []*paperText) {
	keys := keyWords(question)
	if len(keys) == 0 {
		return
	}
	n := map[*paperText]int{}
	for _, pt := range pts {
		for _, k := range keys {
			if mentions(pt, k) {
				n[pt]++
			}
		}
	}
	sort.SliceStable(pts, func(i, j int) bool { return n[pts[i]] > n[pts[j]] })
}

// paperMargin is how much less likely not to answer a paper found lower
// by retrieval must be to be answered from instead.
const paperMargin = 0.1

// bestPassages are the passages a model answers from: for each paper, the
// chunks holding its best paragraphs in the ranking's order, papers taking
// turns (a topic question gives each of its papers a say), k at most.
func bestPassages(sc scope, pts []*paperText, k int) []evidence {
	var out []evidence
	seen := map[string]bool{}
	for round := 0; len(out) < k; round++ {
		added := false
		for _, pt := range pts {
			if pt.model == nil || round >= len(pt.choice.Ranked) || len(out) >= k {
				continue
			}
			added = true
			para := pt.paras[pt.choice.Ranked[round].Index]
			id := store.ChunkID(para.PaperID, para.Seq)
			if seen[id] {
				continue
			}
			seen[id] = true
			ch := pt.chunkOf(para.Seq)
			e := evidence{ChunkID: id, Paper: pt.paper, PageStart: ch.PageStart, PageEnd: ch.PageEnd, Section: ch.Section,
				Text: ch.Text, Score: pt.choice.Ranked[round].Prob}
			out = append(out, e)
		}
		if !added {
			break
		}
	}
	return out
}
