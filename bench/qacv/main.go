// Command qacv cross-validates the offline answer's tunable numbers (the
// sentence weights and the abstention threshold of package ask) on the
// full-text development questions of shared/data/qa: the questions are
// split in two folds by paper (the first half of the papers, sorted by file
// name, is fold A), the numbers are tuned on one fold by coordinate search
// and scored on the other, both ways; the whole set is scored with the
// defaults. Retrieval runs once per question; only the answer is redone.
//
//	go run ./bench/qacv -data ../shared/data
//	go run ./bench/qacv -data ../shared/data -library /tmp/lib8   # a library already holding the 8 PDFs
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/papers-cli/papers/ask"
	"github.com/papers-cli/papers/embed"
	"github.com/papers-cli/papers/eval"
	"github.com/papers-cli/papers/ingest"
	"github.com/papers-cli/papers/retrieve"
	"github.com/papers-cli/papers/store"
)

func main() {
	data := flag.String("data", "../shared/data", "the shared test data")
	libDir := flag.String("library", "", "a library holding data/pdfs/papers (default: build a scratch one)")
	rounds := flag.Int("rounds", 2, "rounds of coordinate search")
	flag.Parse()
	if err := run(context.Background(), *data, *libDir, *rounds); err != nil {
		fmt.Fprintln(os.Stderr, "qacv:", err)
		os.Exit(1)
	}
}

// params are the numbers tuned.
type params struct {
	w          ask.Weights
	minSupport float64
}

func run(ctx context.Context, data, libDir string, rounds int) error {
	pdfs := filepath.Join(data, "pdfs", "papers")
	if libDir == "" {
		dir, err := os.MkdirTemp("", "qacv-*")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		if _, err := ingest.Build(ctx, dir, embed.NewLocal(), ingest.Sources{PDFs: []string{pdfs}}); err != nil {
			return err
		}
		libDir = dir
	}
	lib, err := store.Open(ctx, libDir)
	if err != nil {
		return err
	}
	defer lib.Close()
	qs, err := eval.ReadQuestions(filepath.Join(data, "qa", "fulltext-dev.jsonl"), true)
	if err != nil {
		return err
	}
	un, err := eval.ReadQuestions(filepath.Join(data, "qa", "fulltext-dev-unanswerable.jsonl"), false)
	if err != nil {
		return err
	}
	all := append(qs, un...)
	if err := eval.ResolvePapers(ctx, lib, all, pdfs); err != nil {
		return err
	}
	foldA := map[string]bool{}
	var files []string
	for _, q := range qs {
		if !slices.Contains(files, q.PDF) {
			files = append(files, q.PDF)
		}
	}
	sort.Strings(files)
	for _, f := range files[:len(files)/2] {
		foldA[f] = true
	}
	var a, b []eval.Question
	for _, q := range all {
		f := q.PDF
		if f == "" {
			f = q.Near
		}
		if foldA[f] {
			a = append(a, q)
		} else {
			b = append(b, q)
		}
	}
	fmt.Printf("fold A: %s (%d questions); fold B: the other %d papers (%d)\n", strings.Join(files[:len(files)/2], ", "), len(a), len(files)-len(files)/2, len(b))

	// retrieval once per question, as ask does it offline
	r := &retrieve.Retriever{Index: lib, Embedder: embed.NewLocal()}
	cache := map[string][]retrieve.Passage{}
	for _, q := range all {
		ps, _, err := ask.Evidence(ctx, r, q.Q, nil, ask.AskOptions{})
		if err != nil {
			return err
		}
		cache[q.Q] = ps
	}
	score := func(p params, set []eval.Question) (eval.QAReport, error) {
		askf := func(ctx context.Context, q string, _ []string) (eval.Answer, error) {
			res, err := ask.Answer(ctx, cache[q], q, nil, ask.Options{MinSupport: p.minSupport, Weights: &p.w}, nil)
			var ans eval.Answer
			if res != nil {
				ans = eval.Answer{Text: res.Answer, Abstained: res.Abstained}
				for _, c := range res.Citations {
					ans.Citations = append(ans.Citations, eval.Cited{ID: c.ID, Pages: c.Pages})
				}
			}
			if errors.Is(err, ask.ErrNoEvidence) {
				ans.Abstained, err = true, nil
			}
			return ans, err
		}
		return eval.RunQA(ctx, lib, askf, slices.Clone(set), eval.QAOptions{PDFDir: pdfs})
	}
	def := params{w: ask.DefaultWeights, minSupport: ask.DefaultMinSupport}
	start := time.Now()
	whole, err := score(def, all)
	if err != nil {
		return err
	}
	fmt.Println()
	fmt.Println("| questions | tuned on | paper first | page cited | fact stated | unanswerable abstained | wrong abstentions |")
	fmt.Println("|---|---|---|---|---|---|---|")
	row("whole dev (64 + 16)", "defaults", whole)
	for _, fold := range []struct {
		name        string
		tune, score []eval.Question
	}{{"A", a, b}, {"B", b, a}} {
		best, err := tune(def, fold.tune, score, rounds)
		if err != nil {
			return err
		}
		other := "B"
		if fold.name == "B" {
			other = "A"
		}
		onOwn, err := score(best, fold.tune)
		if err != nil {
			return err
		}
		onOther, err := score(best, fold.score)
		if err != nil {
			return err
		}
		row("fold "+fold.name, "fold "+fold.name+" (tuned on)", onOwn)
		row("fold "+other, "fold "+fold.name, onOther)
		fmt.Printf("<!-- tuned on fold %s: %+v, min support %.2f -->\n", fold.name, best.w, best.minSupport)
	}
	for _, fold := range []struct {
		name string
		set  []eval.Question
	}{{"A", a}, {"B", b}} {
		rep, err := score(def, fold.set)
		if err != nil {
			return err
		}
		row("fold "+fold.name, "defaults", rep)
	}
	fmt.Fprintf(os.Stderr, "qacv: %s\n", time.Since(start).Round(time.Second))
	return nil
}

func row(set, tuned string, r eval.QAReport) {
	pct := func(x eval.Rate) string { return fmt.Sprintf("%d/%d (%.0f%%)", x.N, x.Of, 100*x.Share) }
	fmt.Printf("| %s | %s | %s | %s | %s | %s | %s |\n", set, tuned, pct(r.PaperFirst), pct(r.PageCited), pct(r.FactStated), pct(r.Abstained), pct(r.WrongAbstained))
}

// objective rewards facts stated, right papers and pages first, right
// abstentions, and punishes wrong abstentions three times as much.
func objective(r eval.QAReport) float64 {
	return float64(r.FactStated.N) + 0.5*float64(r.PaperFirst.N) + 0.5*float64(r.PageCited.N) +
		float64(r.Abstained.N) - 3*float64(r.WrongAbstained.N)
}

// tune searches the numbers one at a time (each weight times 0, 0.5, 1.5
// and 2; the threshold over a range), keeping what improves the objective
// on set.
func tune(p params, set []eval.Question, score func(params, []eval.Question) (eval.QAReport, error), rounds int) (params, error) {
	rep, err := score(p, set)
	if err != nil {
		return p, err
	}
	best := objective(rep)
	fields := []*float64{&p.w.Coverage, &p.w.Window, &p.w.Passage, &p.w.Rank, &p.w.Names, &p.w.Focus, &p.w.Kind, &p.w.Close}
	for range rounds {
		for _, f := range fields {
			orig := *f
			for _, m := range []float64{0, 0.5, 1.5, 2} {
				*f = orig * m
				r, err := score(p, set)
				if err != nil {
					return p, err
				}
				if o := objective(r); o > best {
					best, orig = o, *f
				}
			}
			*f = orig
		}
		for _, l := range []float64{0, 0.001, 0.002, 0.004} {
			prev := p.w.Length
			p.w.Length = l
			r, err := score(p, set)
			if err != nil {
				return p, err
			}
			if o := objective(r); o > best {
				best = o
			} else {
				p.w.Length = prev
			}
		}
		for _, m := range []float64{0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4} {
			prev := p.minSupport
			p.minSupport = m
			r, err := score(p, set)
			if err != nil {
				return p, err
			}
			if o := objective(r); o > best {
				best = o
			} else {
				p.minSupport = prev
			}
		}
	}
	return p, nil
}
