package ask

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/papers-cli/papers/internal/safetext"
	"github.com/papers-cli/papers/llm"
	"github.com/papers-cli/papers/prompts"
)

// Quality-mode defaults.
const (
	qualityCandidates = 20 // passages summarised and scored
	qualityKeep       = 6  // summaries the answer is written from
	qualityParallel   = 4  // concurrent model calls
	qualityMinScore   = 4  // relevance (0-10) a summary needs to be kept
	plainPassages     = 8  // passages of a plain answer (the default of Options.MaxPassages)
)

// judgement is the model's reading of one passage for the question.
type judgement struct {
	Relevance int    `json:"relevance"`
	Summary   string `json:"summary"`
}

// qualityAnswer gathers evidence the way strong literature agents do: the
// model summarises each candidate passage for the question and scores its
// relevance (bounded parallel calls; the first hard error cancels the rest),
// the best summaries are kept, and the answer is written from them with
// citations to the underlying passages and pages.
func qualityAnswer(ctx context.Context, ev []evidence, question string, model llm.LLM, opts Options, res *Result, out io.Writer, start time.Time) error {
	n := opts.MaxPassages
	if n <= 0 {
		n = qualityCandidates
	}
	ev = ev[:min(n, len(ev))]
	par := opts.Parallel
	if par <= 0 {
		par = qualityParallel
	}
	judged := make([]judgement, len(ev))
	usage := make([]llm.Usage, len(ev))
	unreadable := make([]bool, len(ev))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(par)
	for i := range ev {
		g.Go(func() error {
			j, u, err := judge(gctx, model, question, i+1, &ev[i])
			usage[i] = u
			if errors.Is(err, errUnreadable) || errors.Is(err, llm.ErrEmptyReply) ||
				err == nil && j.Relevance >= qualityMinScore && strings.TrimSpace(j.Summary) == "" {
				unreadable[i] = true
				return nil
			}
			if err != nil {
				return fmt.Errorf("summarise passage %s: %w", ev[i].ChunkID, err)
			}
			judged[i] = j
			return nil
		})
	}
	err := g.Wait()
	for _, u := range usage {
		res.Usage.Add(u)
	}
	if err != nil {
		return err
	}
	switch k := countTrue(unreadable); {
	case k == len(ev):
		// No judgement to go by: answer from the passages themselves, as
		// without --quality, rather than claim the library has nothing.
		res.Mode = ModeLLM
		res.Warnings = append(res.Warnings, fmt.Sprintf("the model's judgements of the passages were unusable (not the JSON asked for); answered from the best %d passages directly, as without --quality", min(plainPassages, len(ev))))
		return generate(ctx, ev[:min(plainPassages, len(ev))], nil, question, model, res, out, start)
	case k > 0:
		res.Warnings = append(res.Warnings, fmt.Sprintf("the model's judgement of %d passage(s) was unusable (not the JSON asked for); they were left out", k))
	}

	idx := make([]int, 0, len(ev))
	for i, j := range judged {
		if j.Relevance >= qualityMinScore && strings.TrimSpace(j.Summary) != "" {
			idx = append(idx, i)
		}
	}
	if len(idx) == 0 {
		return ErrNoEvidence
	}
	// Most relevant first; ties keep the retrieval order.
	sort.SliceStable(idx, func(a, b int) bool { return judged[idx[a]].Relevance > judged[idx[b]].Relevance })
	keep := opts.QualityKeep
	if keep <= 0 {
		keep = qualityKeep
	}
	idx = idx[:min(keep, len(idx))]
	kept := make([]evidence, len(idx))
	summaries := make([]string, len(idx))
	for k, i := range idx {
		kept[k] = ev[i]
		summaries[k] = judged[i].Summary
	}
	return generate(ctx, kept, summaries, question, model, res, out, start)
}

var errUnreadable = errors.New("unreadable judgement")

// judge asks the model to summarise and score one passage. A passage too
// long for the model is shortened (up to three times).
func judge(ctx context.Context, model llm.LLM, question string, n int, e *evidence) (judgement, llm.Usage, error) {
	var total llm.Usage
	text := e.Text
	for try := 0; ; try++ {
		p, err := prompts.Evidence(prompts.EvidenceInput{Question: question,
			Passage: prompts.Passage{N: n, Source: sourceLabel(e), Title: e.Paper.Title, Text: text}})
		if err != nil {
			return judgement{}, total, err
		}
		c, err := model.Complete(ctx, llm.Request{Messages: []llm.Message{{Role: "system", Content: p.System}, {Role: "user", Content: p.User}}, MaxTokens: 400}, nil)
		if c != nil {
			total.Add(c.Usage)
		}
		if errors.Is(err, llm.ErrContextTooLong) && try < 3 {
			text = firstWords(text, max(50, len(strings.Fields(text))/2))
			continue
		}
		if err != nil {
			return judgement{}, total, err
		}
		j, ok := parseJudgement(c.Text)
		if !ok {
			return judgement{}, total, errUnreadable
		}
		return j, total, nil
	}
}

// parseJudgement reads {"relevance": R, "summary": "S"} from a reply that may
// wrap it in prose or a Markdown fence, and clamps R to 0-10.
func parseJudgement(s string) (judgement, bool) {
	i, k := strings.Index(s, "{"), strings.LastIndex(s, "}")
	if i < 0 || k < i {
		return judgement{}, false
	}
	var raw struct {
		Relevance json.Number `json:"relevance"`
		Summary   string      `json:"summary"`
	}
	if json.Unmarshal([]byte(s[i:k+1]), &raw) != nil {
		return judgement{}, false
	}
	f, err := raw.Relevance.Float64()
	if err != nil {
		return judgement{}, false
	}
	r := int(f + 0.5)
	r = max(0, min(10, r))
	return judgement{Relevance: r, Summary: strings.TrimSpace(safetext.Clean(raw.Summary))}, true
}

func countTrue(b []bool) int {
	n := 0
	for _, v := range b {
		if v {
			n++
		}
	}
	return n
}
