package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/papers-cli/papers/ask"
	"github.com/papers-cli/papers/eval"
	"github.com/papers-cli/papers/ingest"
	"github.com/papers-cli/papers/internal/safetext"
	"github.com/papers-cli/papers/internal/textkit"
	"github.com/papers-cli/papers/library"
	"github.com/papers-cli/papers/retrieve"
	"github.com/papers-cli/papers/store"
)

// evalQASPERReport is the --json shape of eval --qasper.
type evalQASPERReport struct {
	eval.QASPERScores
	// EvidenceRecall is the share of the questions with text evidence
	// whose gold evidence stands whole in the passages a model is given
	// (offline: would be given): what bounds a model's answers.
	EvidenceRecall float64        `json:"evidence_recall"`
	RecallOf       int            `json:"evidence_recall_of"`
	Abstained      int            `json:"abstained"`
	Mode           string         `json:"mode"`
	Model          string         `json:"model"`
	Passages       int            `json:"passages"` // given to a model (-k)
	Library        string         `json:"library,omitempty"`
	Embedder       string         `json:"embedder"`
	Papers         int            `json:"papers"`
	Chunks         int            `json:"chunks"`
	IngestS        float64        `json:"ingest_s"`
	Failed         int            `json:"ingest_failed"`
	Latency        eval.QALatency `json:"latency_ms"`
	TotalS         float64        `json:"total_s"`
}

// runEvalQASPER asks every question of a QASPER split of its own paper,
// as papers ask --paper does, and scores the answers with QASPER's
// metrics.
func runEvalQASPER(ctx context.Context, o *evalOptions) error {
	out, errw := o.io.Out, o.io.ErrOut
	start := time.Now()
	corpus, questions, err := eval.QASPERFiles(o.qasper)
	if err != nil {
		return withExit(err, ExitUsage)
	}
	qs, err := eval.ReadQASPERQuestions(questions)
	if err != nil {
		return fmt.Errorf("read questions: %w", err)
	}
	paras, err := eval.QASPERPapers(corpus)
	if err != nil {
		return fmt.Errorf("read corpus: %w", err)
	}
	model, logf, err := o.answerer()
	if err != nil {
		return err
	}
	el, err := openEvalLibrary(ctx, o, ingest.Sources{Corpora: []string{corpus}}, logf)
	if err != nil {
		return err
	}
	defer el.close()
	var so retrieve.SearchOptions
	o.rankingFlags.apply(&so)
	r := so.Retriever(el.lib, el.embedder)
	var pred *os.File
	if o.predictions != "" {
		if pred, err = os.Create(o.predictions); err != nil {
			return fmt.Errorf("predictions: %w", err)
		}
		defer pred.Close()
	}
	tty := o.io.ErrTTY && !o.json
	preds := map[string]eval.QASPERPrediction{}
	rep := evalQASPERReport{Mode: ask.ModeExtractive, Passages: o.qa.k, Library: el.keptDir(), Embedder: el.embedder.Name(),
		Papers: el.papers, Chunks: el.chunks, Failed: el.failed(), IngestS: round(el.ingestTime().Seconds(), 2)}
	if model != nil && !o.qa.llm.extractive {
		rep.Mode, rep.Model = ask.ModeLLM, model.Model()
	}
	if rep.Passages <= 0 {
		rep.Passages = ask.DefaultK
	}
	ids := map[string]string{}
	var lat []time.Duration
	recalled := 0
	for i, q := range qs {
		id, ok := ids[q.Paper]
		if !ok {
			if id, err = libraryID(ctx, el.lib, q.Paper); err != nil {
				return err
			}
			ids[q.Paper] = id
		}
		t0 := time.Now()
		res, err := ask.Ask(ctx, r, q.Q, model, ask.AskOptions{K: o.qa.k, Retrieve: retrieve.Options{Mode: o.ask, Filter: store.Filter{IDs: []string{id}}},
			Answer: library.AnswerOptions(o.qa.llm.extractive, false)}, nil)
		lat = append(lat, time.Since(t0))
		if err != nil && !errors.Is(err, ask.ErrNoEvidence) {
			return fmt.Errorf("question %s: %w", q.ID, err)
		}
		p := eval.QASPERPrediction{ID: q.ID, Answer: "Unanswerable", Evidence: []string{}}
		if res != nil && !res.Abstained {
			p.Answer = res.ShortAnswer
			if p.Answer == "" {
				p.Answer = ask.StripCitations(res.Answer)
			}
			var quotes []string
			for _, e := range res.Evidence {
				if e.Primary {
					quotes = append(quotes, e.Quote)
				}
			}
			p.Evidence = eval.EvidenceParagraphs(paras[q.Paper], quotes)
		} else {
			rep.Abstained++
		}
		if res != nil {
			if found, ok := eval.EvidenceRecall(q, res.Given); ok {
				rep.RecallOf++
				if found {
					recalled++
				}
			}
		}
		preds[q.ID] = p
		if pred != nil {
			b, _ := json.Marshal(p)
			if _, err := pred.Write(append(b, '\n')); err != nil {
				return fmt.Errorf("predictions: %w", err)
			}
		}
		if o.verbose {
			fmt.Fprintf(errw, "%s  %s\n  -> %s\n", q.ID, q.Q, safetext.OneLine(p.Answer))
		}
		if tty && ((i+1)%20 == 0 || i+1 == len(qs)) {
			fmt.Fprintf(errw, "\rquestions %d/%d", i+1, len(qs))
			if i+1 == len(qs) {
				fmt.Fprintln(errw)
			}
		}
	}
	if pred != nil {
		if err := pred.Close(); err != nil {
			return fmt.Errorf("predictions: %w", err)
		}
	}
	rep.QASPERScores = eval.ScoreQASPER(qs, preds)
	if rep.RecallOf > 0 {
		rep.EvidenceRecall = round(100*float64(recalled)/float64(rep.RecallOf), 1)
	}
	rep.Latency = eval.LatencyOf(lat)
	rep.TotalS = round(time.Since(start).Seconds(), 2)
	if o.json {
		return writeJSON(out, rep)
	}
	fmt.Fprint(out, formatQASPER(rep))
	return nil
}

// libraryID is the library id of a corpus record (a paper keyed by its
// arXiv id is found by the record's _id).
func libraryID(ctx context.Context, lib *store.Library, corpusID string) (string, error) {
	if rec, err := lib.Identifier(ctx, store.IDAlias, corpusID); err == nil {
		return rec.PaperID, nil
	} else if !errors.Is(err, store.ErrNotFound) {
		return "", err
	}
	if p, err := lib.Get(ctx, corpusID); err == nil {
		return p.ID, nil
	}
	return "", withHint(fmt.Errorf("paper %s of the questions is not in the library", corpusID),
		"drop --library to ingest the split's corpus into a scratch library, or ingest it: papers ingest --jsonl corpus.jsonl.gz")
}

// formatQASPER renders the scores for people.
func formatQASPER(r evalQASPERReport) string {
	var b strings.Builder
	fmt.Fprintf(&b, "questions        %d (abstained on %d)\n", r.Questions, r.Abstained)
	fmt.Fprintf(&b, "Answer-F1        %.1f\n", r.AnswerF1)
	for _, t := range []string{"extractive", "abstractive", "boolean", "none"} {
		fmt.Fprintf(&b, "  %-14s %.1f  (%d questions)\n", t, r.AnswerF1ByType[t], r.QuestionsBy[t])
	}
	fmt.Fprintf(&b, "Evidence-F1      %.1f  (white space collapsed: %.1f)\n", r.EvidenceF1, r.EvidenceF1Collapsed)
	fmt.Fprintf(&b, "evidence recall  %.1f%%  (gold evidence in the %d passages a model is given; %d questions with text evidence)\n", r.EvidenceRecall, r.Passages, r.RecallOf)
	mode := r.Mode
	if r.Model != "" {
		mode += " " + r.Model
	}
	fmt.Fprintf(&b, "latency          p50 %.1f ms, p95 %.1f ms\n", r.Latency.P50, r.Latency.P95)
	fmt.Fprintf(&b, "library          %s, %s, %s; answers %s\n", textkit.Count(r.Papers, "paper"), textkit.Count(r.Chunks, "chunk"), r.Embedder, mode)
	if r.IngestS > 0 {
		fmt.Fprintf(&b, "ingest           %.1f s\n", r.IngestS)
	}
	fmt.Fprintf(&b, "total            %.1f s\n", r.TotalS)
	return b.String()
}
