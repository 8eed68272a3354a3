package cmd

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/papers-cli/papers/ask"
	"github.com/papers-cli/papers/eval"
	"github.com/papers-cli/papers/ingest"
	"github.com/papers-cli/papers/internal/safetext"
	"github.com/papers-cli/papers/internal/textkit"
	"github.com/papers-cli/papers/library"
	"github.com/papers-cli/papers/llm"
	"github.com/papers-cli/papers/retrieve"
)

// evalQAOptions are the flags of eval's question-set mode.
type evalQAOptions struct {
	questions, unanswerable string
	pdfs                    string
	llm                     llmFlags
	withinPaper             bool
	k                       int
}

func (q *evalQAOptions) register(c *cobra.Command) {
	f := c.Flags()
	f.StringVar(&q.questions, "questions", "", "answerable questions to ask (JSONL: q, expect, pages, pdf or id)")
	f.StringVar(&q.unanswerable, "unanswerable", "", "questions no paper answers (JSONL: q), which should be abstained on")
	f.StringVar(&q.pdfs, "pdfs", "", "directory of the PDFs the questions name; without --library, ingested into the scratch library")
	q.llm.register(c, "answer the questions offline, even when a model is configured")
	f.BoolVar(&q.withinPaper, "within-paper", false, "ask each question of its own paper only (as ask --paper)")
	addK(c, &q.k, 0, "passages given to each answer (default as in ask)")
}

// checkQA validates the flags of the question-set mode.
func (o *evalOptions) checkQA(c *cobra.Command) error {
	switch {
	case o.queries != "" || o.qrels != "":
		return withHint(usageError("--questions and --queries/--qrels are two evaluations"),
			"run one at a time: --questions measures answers, --queries with --qrels measures retrieval")
	case o.library != "" && o.corpus != "":
		return withHint(usageError("--corpus and --library both name the documents to search"),
			"drop --corpus to evaluate the library as it is, or drop --library to ingest --corpus into a scratch library")
	case o.library == "" && o.corpus == "" && o.qa.pdfs == "":
		return withHint(usageError("eval --questions needs papers to ask: --library DIR, or --pdfs DIR and/or --corpus C.jsonl for a scratch library"),
			"see papers eval --help")
	}
	return o.checkAnswerFlags(c)
}

// evalQAReport is the --json shape: eval.QAReport plus context.
type evalQAReport struct {
	eval.QAReport
	Mode     string  `json:"mode"` // answer mode: extractive, llm
	Model    string  `json:"model"`
	Library  string  `json:"library,omitempty"` // the scratch library, with --keep
	Embedder string  `json:"embedder"`
	Papers   int     `json:"papers"`
	Chunks   int     `json:"chunks"`
	IngestS  float64 `json:"ingest_s"`
	Failed   int     `json:"ingest_failed"`
	TotalS   float64 `json:"total_s"`
}

// answerer opens the session of an answer evaluation and returns the
// model --llm names (nil: answers extractive) and the progress log, which
// writes to stderr unless --json is set without --verbose.
func (o *evalOptions) answerer() (llm.LLM, func(format string, args ...any), error) {
	s, err := o.session(o.qa.llm.set(false))
	if err != nil {
		return nil, nil, err
	}
	model, err := o.qa.llm.resolve(s)
	if err != nil {
		return nil, nil, err
	}
	logf := func(format string, args ...any) {
		if !o.json || o.verbose {
			fmt.Fprintf(o.io.ErrOut, format+"\n", args...)
		}
	}
	return model, logf, nil
}

func runEvalQA(ctx context.Context, o *evalOptions) error {
	out, errw := o.io.Out, o.io.ErrOut
	start := time.Now()
	var qs []eval.Question
	for _, f := range []struct {
		path       string
		answerable bool
	}{{o.qa.questions, true}, {o.qa.unanswerable, false}} {
		if f.path == "" {
			continue
		}
		got, err := eval.ReadQuestions(f.path, f.answerable)
		if err != nil {
			return fmt.Errorf("read questions: %w", err)
		}
		qs = append(qs, got...)
	}
	if len(qs) == 0 {
		return fmt.Errorf("no question in %s", strings.Trim(o.qa.questions+" "+o.qa.unanswerable, " "))
	}
	llm, logf, err := o.answerer()
	if err != nil {
		return err
	}
	src := ingest.Sources{}
	if o.qa.pdfs != "" {
		src.PDFs = []string{o.qa.pdfs}
	}
	if o.corpus != "" {
		src.Corpora = []string{o.corpus}
	}
	el, err := openEvalLibrary(ctx, o, src, logf)
	if err != nil {
		return err
	}
	defer el.close()
	var so retrieve.SearchOptions
	o.rankingFlags.apply(&so)
	r := so.Retriever(el.lib, el.embedder)
	tty := o.io.ErrTTY && !o.json
	aopts := ask.AskOptions{K: o.qa.k, Retrieve: retrieve.Options{Mode: o.ask}, Answer: library.AnswerOptions(o.qa.llm.extractive, false)}
	opts := eval.QAOptions{
		WithinPaper: o.qa.withinPaper,
		PDFDir:      o.qa.pdfs,
		Progress: func(done, total int) {
			if tty {
				fmt.Fprintf(errw, "\rquestions %d/%d", done, total)
				if done == total {
					fmt.Fprintln(errw)
				}
			}
		},
	}
	rep, err := eval.RunQA(ctx, el.lib, qaAsker(r, llm, aopts), qs, opts)
	if err != nil {
		return err
	}
	full := evalQAReport{QAReport: rep, Mode: ask.ModeExtractive, Library: el.keptDir(), Embedder: el.embedder.Name(),
		Papers: el.papers, Chunks: el.chunks, Failed: el.failed(),
		IngestS: round(el.ingestTime().Seconds(), 2), TotalS: round(time.Since(start).Seconds(), 2)}
	if llm != nil {
		full.Mode, full.Model = ask.ModeLLM, llm.Model()
	}
	if o.json {
		return writeJSON(out, full)
	}
	if o.verbose {
		for _, d := range rep.Questions {
			fmt.Fprint(out, formatQADetail(d))
		}
		fmt.Fprintln(out)
	}
	fmt.Fprint(out, formatQAReport(full))
	return nil
}

// qaAsker answers the harness's questions the way papers ask does.
func qaAsker(r *retrieve.Retriever, llm llm.LLM, opts ask.AskOptions) eval.AskFunc {
	return func(ctx context.Context, q string, papers []string) (eval.Answer, error) {
		o := opts
		o.Retrieve.Filter.IDs = papers
		res, err := ask.Ask(ctx, r, q, llm, o, nil)
		var a eval.Answer
		if res != nil {
			a = eval.Answer{Text: res.Answer, Abstained: res.Abstained, Warnings: res.Warnings, Retrieval: res.Retrieval}
			for _, c := range res.Citations {
				a.Citations = append(a.Citations, eval.Cited{ID: c.ID, Pages: c.Pages})
			}
		}
		if errors.Is(err, ask.ErrNoEvidence) {
			a.Abstained, err = true, nil
		}
		return a, err
	}
}

// formatQAReport renders the summary for people.
func formatQAReport(r evalQAReport) string {
	var b strings.Builder
	rate := func(name string, x eval.Rate, note string) {
		if x.Of == 0 {
			return
		}
		fmt.Fprintf(&b, "%-16s %3d/%-3d %5.1f%%%s\n", name, x.N, x.Of, 100*x.Share, note)
	}
	fmt.Fprintf(&b, "questions        %d answerable, %d unanswerable\n", r.Answerable, r.Unanswerable)
	rate("paper first", r.PaperFirst, "")
	rate("page cited", r.PageCited, "  (questions with pages)")
	rate("fact stated", r.FactStated, "")
	rate("fact first", r.FactEarly, "  (in the answer's first two sentences)")
	rate("no debris", r.NoDebris, "  (answers given)")
	rate("abstained", r.Abstained, "  (unanswerable)")
	rate("wrong abstained", r.WrongAbstained, "  (answerable)")
	if r.Errors > 0 {
		fmt.Fprintf(&b, "errors           %d (see -v)\n", r.Errors)
	}
	if r.MedianWords > 0 {
		fmt.Fprintf(&b, "answer length    median %.0f words\n", r.MedianWords)
	}
	fmt.Fprintf(&b, "latency          p50 %.1f ms, p95 %.1f ms; beyond retrieval p50 %.1f ms, p95 %.1f ms\n",
		r.Latency.P50, r.Latency.P95, r.AnswerLatency.P50, r.AnswerLatency.P95)
	mode := r.Mode
	if r.Model != "" {
		mode += " " + r.Model
	}
	fmt.Fprintf(&b, "library          %s, %s, %s; answers %s\n", textkit.Count(r.Papers, "paper"), textkit.Count(r.Chunks, "chunk"), r.Embedder, mode)
	if r.IngestS > 0 {
		fmt.Fprintf(&b, "ingest           %.1f s\n", r.IngestS)
	}
	fmt.Fprintf(&b, "total            %.1f s\n", r.TotalS)
	return b.String()
}

// formatQADetail renders one question's outcome for -v.
func formatQADetail(d eval.QADetail) string {
	var b strings.Builder
	mark := func(ok bool) string {
		if ok {
			return "ok"
		}
		return "NO"
	}
	if d.Answerable {
		fmt.Fprintf(&b, "%s  paper %s  page %s  fact %s", d.Line, mark(d.PaperFirst), mark(d.PageCited || len(d.Pages) == 0), mark(d.FactStated))
		if d.Abstained {
			b.WriteString("  (abstained)")
		}
		if len(d.Missing) > 0 {
			fmt.Fprintf(&b, "  missing %q", d.Missing)
		}
		if d.Debris != "" {
			fmt.Fprintf(&b, "  debris %q", d.Debris)
		}
	} else {
		fmt.Fprintf(&b, "%s  unanswerable: abstained %s", d.Line, mark(d.Abstained))
	}
	b.WriteString("\n")
	fmt.Fprintf(&b, "  Q: %s\n", d.Q)
	if d.Paper != "" {
		fmt.Fprintf(&b, "  paper: %s pages %v\n", d.Paper, d.Pages)
	}
	if d.Error != "" {
		fmt.Fprintf(&b, "  error: %s\n", d.Error)
	}
	for _, w := range d.Warnings {
		fmt.Fprintf(&b, "  warning: %s\n", w)
	}
	if d.Answer != "" {
		fmt.Fprintf(&b, "  A: %s\n  cited: %s\n", safetext.OneLine(d.Answer), strings.Join(d.Cited, ", "))
	}
	return b.String()
}
