package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/papers-cli/papers/ask"
	"github.com/papers-cli/papers/cost"
	"github.com/papers-cli/papers/internal/textkit"
	"github.com/papers-cli/papers/library"
	"github.com/papers-cli/papers/llm"
)

func init() { register(newAskCmd) }

type askOptions struct {
	*globalOptions
	filter   filterFlags
	llm      llmFlags
	embedder embedderFlags
	json     bool
	quality  bool
	noStream bool
	k        int

	question string
}

func newAskCmd(g *globalOptions) *cobra.Command {
	o := &askOptions{globalOptions: g}
	c := &cobra.Command{
		Use:   "ask QUESTION",
		Short: "Answer a question from your library, with citations to paper, version and page",
		Long: `ask retrieves the passages of your library that best match the question
(hybrid search, with the filters of search) and answers from them with
numbered citations [1], followed by the Sources: arXiv id and version, title,
first author, year, pages, section and URL.

With a model (--llm openai:MODEL or ollama:MODEL, PAPERS_LLM, or just
OPENAI_API_KEY for ` + llm.DefaultOpenAIModel + `) the answer is written by the model,
streamed as it arrives, and its citations are checked: a number that names no
retrieved passage is removed with a warning. Without a model, or with
--extractive, the answer is the most relevant sentences of the top passages,
labelled as extracted; no network is used.

--quality has the model summarise and score each of more passages first and
answers from the best summaries (more calls, better evidence).

When the library holds no evidence for the question, ask says so and exits 3
(--json: "abstained": true). OPENAI_BASE_URL points at any OpenAI-compatible
server (vLLM, llama.cpp, LM Studio); OLLAMA_HOST at Ollama.`,
		Example: `  papers ask "What is GRPO and how does it differ from PPO?"
  papers ask --paper 2501.12948 "How was DeepSeek-R1-Zero trained?"
  papers ask --llm ollama:llama3.1 --since 2025-01-01 "Which benchmarks do RL agents use?"
  papers ask --extractive "How much does ECHO improve pass@1?"
  papers ask --json "What reward does Co-ReAct optimize?" | jq -r '.citations[] | "\(.n) \(.id) \(.pages)"'`,
		Args: exactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if err := o.complete(c, args); err != nil {
				return err
			}
			return runAsk(c.Context(), o)
		},
	}
	o.filter.register(c, filterAll)
	o.llm.register(c, "answer offline from the passages' own sentences, even when a model is configured")
	o.embedder.register(c, "", "the embedder the library was built with (default: read from the library)")
	f := c.Flags()
	addJSON(c, &o.json, "print one JSON document: question, answer, mode, model, citations, abstained, usage, warnings")
	f.BoolVar(&o.quality, "quality", false, "summarise and score more passages with the model before answering (needs a model)")
	f.BoolVar(&o.noStream, "no-stream", false, "print the answer when it is complete instead of as it arrives")
	addK(c, &o.k, 0, "passages given to the answer (default 8; 20 with --quality; offline, 12)")
	return c
}

// complete checks the flags and takes the question.
func (o *askOptions) complete(c *cobra.Command, args []string) error {
	o.question = args[0]
	if strings.TrimSpace(o.question) == "" {
		return usageError("the question is empty")
	}
	// -k 0 leaves the number of passages to ask (see ask.AskOptions.K)
	return checkK(c, o.k)
}

func runAsk(ctx context.Context, o *askOptions) error {
	stdout, stderr := o.io.Out, o.io.ErrOut
	s, err := o.session(o.llm.set(!o.noStream))
	if err != nil {
		return err
	}
	defer s.Close()
	model, err := o.llm.resolve(s)
	if err != nil {
		return err
	}
	if o.quality && model == nil {
		return withHint(withExit(ask.ErrNeedsModel, ExitUsage),
			"choose one with --llm openai:MODEL (and OPENAI_API_KEY) or --llm ollama:MODEL, or drop --quality")
	}
	if _, err := o.filter.check(); err != nil {
		return err
	}
	start := time.Now()
	lib, err := libraryOf(ctx, s)
	if err != nil {
		return err
	}
	filter, err := o.filter.resolve(ctx, lib)
	if err != nil {
		return err
	}
	e, err := useEmbedder(ctx, s, o.embedder.spec)
	if err != nil {
		return err
	}
	var out io.Writer = stdout
	if o.json {
		out = nil
	}
	opened := time.Since(start) // opening the library counts as retrieval in -v
	res, err := s.Ask(ctx, o.question, library.AskOptions{K: o.k, Filter: filter, Embedder: e,
		Extractive: o.llm.extractive, Quality: o.quality}, out)
	reportUsage(o.globalOptions, s)
	if res != nil {
		for _, w := range res.Warnings {
			fmt.Fprintf(stderr, "warning: %s\n", w)
		}
		if o.verbose {
			fmt.Fprintf(stderr, "retrieval: %s in %s\n", textkit.Count(res.Passages, "passage"), (res.Retrieval + opened).Round(time.Millisecond))
			if res.Model != "" {
				fmt.Fprintf(stderr, "model %s: %d prompt + %d completion tokens; first token after %s; answer in %s\n",
					res.Model, res.Usage.PromptTokens, res.Usage.CompletionTokens,
					res.FirstToken.Round(time.Millisecond), res.Elapsed.Round(time.Millisecond))
			} else {
				fmt.Fprintf(stderr, "extractive answer in %s\n", res.Elapsed.Round(time.Millisecond))
			}
		}
		if o.json && (err == nil || errors.Is(err, ask.ErrNoEvidence)) {
			rec := askRecord{Result: res, SeeAlso: []seeAlsoRecord{}, Usage: s.Usage()}
			if !res.Abstained {
				sa, serr := seeAlso(ctx, s, res.CitedPapers())
				if serr != nil {
					return serr
				}
				rec.SeeAlso = sa
			}
			if jerr := writeJSON(stdout, rec); jerr != nil {
				return jerr
			}
		}
	}
	if errors.Is(err, ask.ErrNoEvidence) {
		// the reason ("no passage of ECHO states the learning rate") follows the sentinel's words
		return withHint(withExit(err, ExitNoEvidence), "rephrase the question, drop filters, or add papers: papers ingest QUERY")
	}
	return err
}

// askRecord is the --json document of ask: the answer, and the papers of
// the library most like those it cites (related.SeeAlso), not cited.
type askRecord struct {
	*ask.Result
	SeeAlso []seeAlsoRecord `json:"see_also"`
	// Usage is the model's tokens, calls and estimated cost (the answer's
	// own "usage", its tokens, with the calls and cost added).
	Usage cost.Usage `json:"usage"`
}

// seeAlsoRecord is one paper of "see_also".
type seeAlsoRecord struct {
	ID        string   `json:"id"`
	Title     string   `json:"title"`
	Authors   []string `json:"authors"`
	Published string   `json:"published"` // YYYY-MM-DD; "" when unknown
	URL       string   `json:"url"`
	Score     float32  `json:"score"` // cosine similarity to the cited papers together
}

func seeAlso(ctx context.Context, s *library.Session, cited []string) ([]seeAlsoRecord, error) {
	res, err := s.SeeAlso(ctx, cited)
	if err != nil {
		return nil, err
	}
	out := make([]seeAlsoRecord, 0, len(res))
	for _, r := range res {
		p := r.Paper
		if p.Authors == nil {
			p.Authors = []string{}
		}
		out = append(out, seeAlsoRecord{ID: p.ID, Title: p.Title, Authors: p.Authors, Published: textkit.Day(p.Published), URL: p.URL, Score: r.Score})
	}
	return out, nil
}
