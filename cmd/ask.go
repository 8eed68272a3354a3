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
	"github.com/papers-cli/papers/related"
	"github.com/papers-cli/papers/store"
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
OPENAI_API_KEY for ` + ask.DefaultOpenAIModel + `) the answer is written by the model,
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
	o.llm.register(c, g, "answer offline from the passages' own sentences, even when a model is configured")
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
	llm, err := o.llm.resolve(!o.noStream)
	if err != nil {
		return err
	}
	if o.quality && llm == nil {
		return withHint(withExit(ask.ErrNeedsModel, ExitUsage),
			"choose one with --llm openai:MODEL (and OPENAI_API_KEY) or --llm ollama:MODEL, or drop --quality")
	}
	if _, err := o.filter.check(); err != nil {
		return err
	}
	start := time.Now()
	lib, err := openExisting(ctx, o.globalOptions)
	if err != nil {
		return err
	}
	defer lib.Close()
	filter, err := o.filter.resolve(ctx, lib)
	if err != nil {
		return err
	}
	e, err := embedderFor(ctx, lib, o.embedder.spec, o.globalOptions)
	if err != nil {
		return err
	}
	var out io.Writer = stdout
	if o.json {
		out = nil
	}
	opened := time.Since(start) // opening the library counts as retrieval in -v
	r := &ask.Retriever{Index: lib, Embedder: e}
	res, err := r.Ask(ctx, o.question, llm, ask.AskOptions{K: o.k, Retrieve: ask.RetrieveOptions{Filter: filter},
		Answer: ask.Options{Extractive: o.llm.extractive, Quality: o.quality}}, out)
	if res != nil {
		for _, w := range res.Warnings {
			fmt.Fprintf(stderr, "warning: %s\n", w)
		}
		if o.verbose {
			fmt.Fprintf(stderr, "retrieval: %s in %s\n", plural(res.Passages, "passage"), (res.Retrieval + opened).Round(time.Millisecond))
			if res.Model != "" {
				fmt.Fprintf(stderr, "model %s: %d prompt + %d completion tokens; first token after %s; answer in %s\n",
					res.Model, res.Usage.PromptTokens, res.Usage.CompletionTokens,
					res.FirstToken.Round(time.Millisecond), res.Elapsed.Round(time.Millisecond))
			} else {
				fmt.Fprintf(stderr, "extractive answer in %s\n", res.Elapsed.Round(time.Millisecond))
			}
		}
		if o.json && (err == nil || errors.Is(err, ask.ErrNoEvidence)) {
			rec := askRecord{Result: res, SeeAlso: []seeAlsoRecord{}}
			if !res.Abstained {
				sa, serr := seeAlso(ctx, lib, res.CitedPapers())
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
	return askError(err)
}

// askRecord is the --json document of ask: the answer, and the papers of
// the library most like those it cites (related.SeeAlso), not cited.
type askRecord struct {
	*ask.Result
	SeeAlso []seeAlsoRecord `json:"see_also"`
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

func seeAlso(ctx context.Context, lib *store.Library, cited []string) ([]seeAlsoRecord, error) {
	res, err := related.SeeAlso(ctx, lib, cited, related.SeeAlsoK)
	if err != nil {
		return nil, err
	}
	out := make([]seeAlsoRecord, 0, len(res))
	for _, r := range res {
		p := r.Paper
		if p.Authors == nil {
			p.Authors = []string{}
		}
		out = append(out, seeAlsoRecord{ID: p.ID, Title: p.Title, Authors: p.Authors, Published: day(p.Published), URL: p.URL, Score: r.Score})
	}
	return out, nil
}

// askError adds the hint that names the fix to a model error. The key is
// never part of any message.
func askError(err error) error {
	var le *ask.LLMError
	errors.As(err, &le)
	url := ""
	if le != nil {
		url = le.URL
	}
	switch {
	case err == nil:
		return nil
	case errors.Is(err, ask.ErrNoAPIKey):
		return withHint(err, "export OPENAI_API_KEY=..., or use a local model with --llm ollama:MODEL (ollama serve), or answer offline with --extractive")
	case errors.Is(err, ask.ErrUnauthorized):
		return withHint(err, "check OPENAI_API_KEY (for a local server, check OPENAI_BASE_URL)")
	case errors.Is(err, ask.ErrModelNotFound):
		return withHint(err, "list the server's models with `curl %s/models` (Ollama: `ollama list`, then `ollama pull MODEL`) and pass one with --llm", url)
	case errors.Is(err, ask.ErrContextTooLong):
		return withHint(err, "use a model with a longer context, or fewer passages with --k")
	case errors.Is(err, ask.ErrUnreachable):
		return withHint(err, "start the server (Ollama: `ollama serve`) or fix OPENAI_BASE_URL / OLLAMA_HOST; --extractive answers without a model")
	case errors.Is(err, ask.ErrQuota):
		return withHint(err, "add credit to the account, or use a local model with --llm ollama:MODEL")
	case errors.Is(err, ask.ErrRateLimited):
		return withHint(err, "wait a minute and ask again, or use another model")
	case errors.Is(err, ask.ErrStreamBroken):
		return withHint(err, "the answer above is incomplete; ask again")
	case errors.Is(err, ask.ErrTimeout):
		return withHint(err, "the server may still be loading the model: try again, raise --first-token-timeout / --idle-timeout (PAPERS_FIRST_TOKEN_TIMEOUT, PAPERS_IDLE_TIMEOUT), or check it with `curl %s/models`", url)
	case errors.Is(err, ask.ErrTooLong):
		return withHint(err, "the model did not stop; ask again, or use another model")
	case errors.Is(err, ask.ErrEmptyReply):
		return withHint(err, "ask again, or use another model (a reasoning model may spend its whole output limit thinking)")
	case errors.Is(err, ask.ErrBadReply):
		return withHint(err, "check OPENAI_BASE_URL: it should be the server's OpenAI-compatible /v1 address")
	case errors.Is(err, ask.ErrServer):
		return withHint(err, "the model server failed; try again later or use another model")
	case le != nil && le.Status == 404:
		return withHint(err, "check OPENAI_BASE_URL: the server has no chat completions endpoint at %s/chat/completions", url)
	}
	return err
}
