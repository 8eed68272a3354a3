package ask

import (
	"context"
	"io"
	"time"
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
	Retrieve RetrieveOptions
	// Answer tunes the answer (model, extractive, quality).
	Answer Options
}

// Ask retrieves the passages of r's library that best match question and
// answers from them: the one path of `papers ask` and of the answer
// harness (eval), so both measure the same thing. It returns what Answer
// returns, with Result.Retrieval set to the time retrieval took; a
// retrieval failure is returned with a nil Result.
func (r *Retriever) Ask(ctx context.Context, question string, llm LLM, opts AskOptions, out io.Writer) (*Result, error) {
	start := time.Now()
	passages, aopts, err := r.Evidence(ctx, question, llm, opts)
	if err != nil {
		return nil, err
	}
	retrieval := time.Since(start)
	res, err := Answer(ctx, passages, question, llm, aopts, out)
	if res != nil {
		res.Retrieval = retrieval
		res.Passages = len(passages)
	}
	return res, err
}

// Evidence is the first half of Ask: the passages it answers from and the
// answer options it uses (for tuning the answer on fixed passages).
func (r *Retriever) Evidence(ctx context.Context, question string, llm LLM, opts AskOptions) ([]Passage, Options, error) {
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
	if opts.K <= 0 && (llm == nil || opts.Answer.Extractive) && !opts.Answer.Quality {
		k = DefaultExtractiveK
		if ro.PerPaper == 0 {
			ro.PerPaper = extractivePerPaper
		}
	}
	ro.K = k
	passages, err := r.Retrieve(ctx, question, ro)
	if err != nil {
		return nil, Options{}, err
	}
	a := opts.Answer
	a.MaxPassages = k
	return passages, a, nil
}
