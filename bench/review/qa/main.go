// Command qa measures papers review's cells on shared/data/qa: each
// question is one cell (its paper x the question), answered offline as
// papers review answers it. For the answerable questions it reports the
// share stated, right (every expected fact in the cell's answer or quote)
// and with the right page (the cell's page among the pages that state it);
// for the unanswerable ones, the share marked "not stated".
//
//	go run ./bench/review/qa [-data ../shared/data] [-v]
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/papers-cli/papers/bench/review/cellscore"
	"github.com/papers-cli/papers/embed"
	"github.com/papers-cli/papers/eval"
	"github.com/papers-cli/papers/ingest"
	"github.com/papers-cli/papers/retrieve"
	"github.com/papers-cli/papers/review"
	"github.com/papers-cli/papers/store"
)

func main() {
	data := flag.String("data", "../shared/data", "the shared test data")
	verbose := flag.Bool("v", false, "print every cell that is wrong")
	flag.Parse()
	ctx := context.Background()
	pdfDir := filepath.Join(*data, "pdfs", "papers")
	dir, err := os.MkdirTemp("", "review-qa-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	pdfs, _ := filepath.Glob(filepath.Join(pdfDir, "*.pdf"))
	if _, err := ingest.Build(ctx, dir, embed.NewLocal(), ingest.Sources{PDFs: pdfs}); err != nil {
		log.Fatal(err)
	}
	lib, err := store.Open(ctx, dir)
	if err != nil {
		log.Fatal(err)
	}
	defer lib.Close()
	e, err := retrieve.LibraryEmbedder(ctx, lib, embed.Options{})
	if err != nil {
		log.Fatal(err)
	}
	a := &review.Offline{Retriever: &retrieve.Retriever{Index: lib, Embedder: e}}

	var qs []eval.Question
	for _, set := range []struct {
		file       string
		answerable bool
	}{{"fulltext-dev.jsonl", true}, {"fulltext-dev-unanswerable.jsonl", false}} {
		q, err := eval.ReadQuestions(filepath.Join(*data, "qa", set.file), set.answerable)
		if err != nil {
			log.Fatal(err)
		}
		qs = append(qs, q...)
	}
	if err := eval.ResolvePapers(ctx, lib, qs, pdfDir); err != nil {
		log.Fatal(err)
	}
	var t cellscore.Tally
	for _, q := range qs {
		if q.Paper == "" {
			continue
		}
		p, err := lib.Get(ctx, q.Paper)
		if err != nil {
			log.Fatal(err)
		}
		col, err := review.ParseColumn(q.Q)
		if err != nil {
			log.Fatal(err)
		}
		tab, err := review.Build(ctx, lib, a, []store.Paper{p}, []review.Column{col}, review.Options{Recompute: true})
		if err != nil {
			log.Fatal(err)
		}
		c := tab.Rows[0].Cells[0]
		g := cellscore.Gold{Stated: q.Answerable, Facts: [][]string{q.Expect}, Pages: q.Pages}
		v := cellscore.Judge(c, g)
		t.Add(g.Stated, v)
		if !*verbose {
			continue
		}
		switch {
		case !g.Stated && !v.Right:
			fmt.Printf("stated, should not be: %s\n  %s (p. %d)\n", q.Q, c.Answer, c.Page)
		case g.Stated && !v.Answered:
			fmt.Printf("not stated: %s (expect %q p. %v)\n", q.Q, q.Expect, q.Pages)
		case g.Stated && (!v.Right || !v.PageRight):
			fmt.Printf("%s: %s\n  expect %q p. %v; got p. %d: %s\n", map[bool]string{true: "page", false: "wrong"}[v.Right], q.Q, q.Expect, q.Pages, c.Page, strings.TrimSpace(c.Answer))
		}
	}
	fmt.Printf("answerable: stated %s, right %s of all, page right %s of the stated cells (%s of all)\n",
		cellscore.Pct(t.Answered, t.Stated), cellscore.Pct(t.Right, t.Stated), cellscore.Pct(t.PageRight, t.Answered), cellscore.Pct(t.PageRight, t.Stated))
	fmt.Printf("unanswerable: not stated %s\n", cellscore.Pct(t.Marked, t.Unstated))
}
