// Command grid scores papers review on a grid of issue 28: real papers x
// 6 generic columns, written from the papers alone (bench/review/grid/
// gold.jsonl, the default, and gold2.jsonl, a second grid nobody tuned on;
// see the README). It builds the papers binary, ingests the grid's papers
// from ../shared/data into a scratch library (PAPERS_HOME in a temp dir,
// --offline): PDFs, and papers of a corpus (JSONL, gzipped or not) by id;
// runs `papers review --json` with the columns over them, and scores every
// cell as bench/review/cellscore says: stated cells right, page right (of
// the stated cells answered, where the paper has pages), cells the paper
// does not state marked "not stated"; for all papers, each split (the
// gold's `split` labels, in their order) and per column.
//
//	go run ./bench/review/grid [-data ../shared/data] [-gold bench/review/grid/gold.jsonl] [-v [-cues N]]
//
// Run it from the repository root. -v prints every cell that is wrong,
// -cues N with it the N sentences the cue rules score best for each.
package main

import (
	"bufio"
	"bytes"
	"cmp"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/papers-cli/papers/bench/review/cellscore"
	"github.com/papers-cli/papers/review"
	"github.com/papers-cli/papers/store"
)

// cell is one line of gold.jsonl. Its paper is a PDF, or the paper of id
// ID in a corpus file; both paths are under the shared data.
type cell struct {
	Paper  int        `json:"paper"`
	Split  string     `json:"split"`
	PDF    string     `json:"pdf"`
	Corpus string     `json:"corpus"`
	ID     string     `json:"id"`
	Title  string     `json:"title"`
	Column string     `json:"column"`
	Stated bool       `json:"stated"`
	Facts  [][]string `json:"facts"`
	Pages  []int      `json:"pages"`
}

func main() {
	data := flag.String("data", "../shared/data", "the shared test data")
	goldPath := flag.String("gold", "bench/review/grid/gold.jsonl", "the grid's gold cells")
	verbose := flag.Bool("v", false, "print every cell that is wrong")
	cues := flag.Int("cues", 0, "with -v, print the `N` sentences the cue rules score best for each wrong cell")
	withAsk := flag.Bool("ask", false, "score `papers ask --paper` instead of papers review: each column asked of each paper, the short answer and every quote of the answer as the cell")
	flag.Parse()
	log.SetFlags(0)

	gold, err := readGold(*goldPath)
	if err != nil {
		log.Fatal(err)
	}
	var pdfs, columns, splits []string
	corpusIDs := map[string][]string{} // corpus file -> ids of its papers in the grid
	for _, g := range gold {
		if g.PDF != "" {
			if p := filepath.Join(*data, g.PDF); !slices.Contains(pdfs, p) {
				pdfs = append(pdfs, p)
			}
		} else if c := filepath.Join(*data, g.Corpus); !slices.Contains(corpusIDs[c], g.ID) {
			corpusIDs[c] = append(corpusIDs[c], g.ID)
		}
		if !slices.Contains(columns, g.Column) {
			columns = append(columns, g.Column)
		}
		if !slices.Contains(splits, g.Split) {
			splits = append(splits, g.Split)
		}
	}
	for _, p := range pdfs {
		if _, err := os.Stat(p); err != nil {
			log.Fatalf("%v: the grid's papers are in the shared test data; pass its folder with -data", err)
		}
	}

	work, err := os.MkdirTemp("", "review-grid-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(work)
	bin := filepath.Join(work, "papers")
	if out, err := exec.Command("go", "build", "-o", bin, "./cmd/papers").CombinedOutput(); err != nil {
		log.Fatalf("go build ./cmd/papers (run from the repository root): %v\n%s", err, out)
	}
	papers := func(args ...string) []byte {
		cmd := exec.Command(bin, append([]string{"--offline"}, args...)...)
		cmd.Env = append(os.Environ(), "PAPERS_HOME="+filepath.Join(work, "lib"))
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			log.Fatalf("papers %s: %v\n%s", args[0], err, stderr.Bytes())
		}
		return out
	}
	if len(pdfs) > 0 {
		papers(append([]string{"ingest"}, pdfs...)...)
	}
	corpusKey := map[string]string{} // corpus id -> what papers list --json knows it by
	if len(corpusIDs) > 0 {
		lines := filepath.Join(work, "corpus.jsonl")
		if corpusKey, err = pickCorpus(corpusIDs, lines); err != nil {
			log.Fatal(err)
		}
		papers("ingest", "--jsonl", lines)
	}

	// The library ids of the papers: PDFs by the file each was ingested
	// from, corpus papers by their url (the library takes an arXiv id from
	// it), else their own id.
	idOf := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(papers("list", "--json")))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var p struct{ ID, URL string }
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
			log.Fatalf("papers list --json: %v", err)
		}
		idOf[strings.TrimPrefix(p.URL, "file://")] = p.ID
		idOf[p.ID] = p.ID
	}
	idOfCell := func(g cell) string {
		key := corpusKey[g.ID]
		if g.PDF != "" {
			abs, err := filepath.Abs(filepath.Join(*data, g.PDF))
			if err != nil {
				log.Fatal(err)
			}
			key = abs
		}
		id, ok := idOf[key]
		if !ok {
			log.Fatalf("paper %d (%s%s) was not ingested", g.Paper, g.PDF, g.ID)
		}
		return id
	}
	var ids []string
	for _, g := range gold {
		if id := idOfCell(g); !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}

	args := []string{"review", "--json", "--recompute"}
	for _, c := range columns {
		args = append(args, "--column", c)
	}
	var tab struct {
		Columns []string
		Rows    []struct {
			ID    string
			Cells []review.Cell
		}
	}
	got := map[string]review.Cell{} // by id and 1-based column
	if *withAsk {
		for _, id := range ids {
			for i, q := range columns {
				got[fmt.Sprint(id, "\t", i+1)] = askCell(bin, filepath.Join(work, "lib"), id, q, i+1)
			}
		}
	} else {
		if err := json.Unmarshal(papers(append(args, ids...)...), &tab); err != nil {
			log.Fatalf("papers review --json: %v", err)
		}
		for _, r := range tab.Rows {
			for _, c := range r.Cells {
				got[fmt.Sprint(r.ID, "\t", c.Column)] = c
			}
		}
	}

	var lib *store.Library
	if *verbose && *cues > 0 {
		if lib, err = store.OpenReadOnly(context.Background(), filepath.Join(work, "lib")); err != nil {
			log.Fatal(err)
		}
		defer lib.Close()
	}

	var all cellscore.Tally
	split := make([]cellscore.Tally, len(splits))
	splitPapers := make([][]int, len(splits))
	perColumn := make([]cellscore.Tally, len(columns))
	for _, g := range gold {
		id := idOfCell(g)
		col := slices.Index(columns, g.Column) + 1
		c, ok := got[fmt.Sprint(id, "\t", col)]
		if !ok {
			log.Fatalf("papers review gave no cell for paper %d (%s), column %d", g.Paper, id, col)
		}
		v := cellscore.Judge(c, cellscore.Gold{Stated: g.Stated, Facts: g.Facts, Pages: g.Pages})
		all.Add(g.Stated, v)
		si := slices.Index(splits, g.Split)
		split[si].Add(g.Stated, v)
		if !slices.Contains(splitPapers[si], g.Paper) {
			splitPapers[si] = append(splitPapers[si], g.Paper)
		}
		perColumn[col-1].Add(g.Stated, v)
		if *verbose && (!v.Right || v.Paged && !v.PageRight) {
			report(g, c, v)
			if lib != nil {
				printCues(lib, id, g.Column, *cues)
			}
		}
	}
	fmt.Printf("%-11s %s\n", fmt.Sprint("all ", len(ids)), all)
	for i, name := range splits {
		fmt.Printf("%-11s %s\n", fmt.Sprint(name, " ", span(splitPapers[i])), split[i])
	}
	for i, c := range columns {
		fmt.Printf("column %d    %s  %s\n", i+1, perColumn[i], c)
	}
}

func readGold(path string) ([]cell, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w (run from the repository root, or pass -gold)", err)
	}
	var gold []cell
	for i, line := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
		var g cell
		if err := json.Unmarshal(line, &g); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, i+1, err)
		}
		if g.Split == "" {
			return nil, fmt.Errorf("%s:%d: a cell needs its split (dev, held, ...)", path, i+1)
		}
		if (g.PDF == "") == (g.Corpus == "" || g.ID == "") {
			return nil, fmt.Errorf("%s:%d: a cell's paper is a pdf, or a corpus file and an id in it", path, i+1)
		}
		if g.Stated && (len(g.Facts) == 0 || g.PDF != "" && len(g.Pages) == 0) {
			return nil, fmt.Errorf("%s:%d: a stated cell needs its facts, and its pages when the paper is a PDF", path, i+1)
		}
		gold = append(gold, g)
	}
	return gold, nil
}

func report(g cell, c review.Cell, v cellscore.Verdict) {
	what := "wrong"
	switch {
	case !g.Stated:
		what = "stated, should not be"
	case !v.Answered:
		what = "not stated, should be"
	case v.Right:
		what = "page"
	}
	fmt.Printf("%s: paper %d, %s\n", what, g.Paper, g.Column)
	if g.Stated {
		fmt.Printf("  expect %q p. %v\n", g.Facts, g.Pages)
	}
	if c.Stated {
		fmt.Printf("  got p. %d: %s\n  quote: %s\n", c.Page, strings.TrimSpace(c.Answer), strings.TrimSpace(c.Quote))
	}
}

// printCues prints the n sentences of paper id that the offline
// answerer's cue rules score best for question, with their scores.
func printCues(lib *store.Library, id, question string, n int) {
	ctx := context.Background()
	p, err := lib.Get(ctx, id)
	if err != nil {
		log.Fatal(err)
	}
	chunks, err := lib.Chunks(ctx, id)
	if err != nil {
		log.Fatal(err)
	}
	cued, least, _ := review.GenericCues(p, chunks, question)
	slices.SortStableFunc(cued, func(a, b review.Cued) int { return cmp.Compare(b.Score, a.Score) })
	for _, c := range cued[:min(n, len(cued))] {
		fmt.Printf("    %4.2f (least %.1f) %s\n", c.Score, least, c.Text)
	}
}

// span prints the paper numbers of a split: "1-6", or "1,3,5".
func span(papers []int) string {
	if len(papers) == 0 {
		return ""
	}
	lo, hi := slices.Min(papers), slices.Max(papers)
	if hi-lo+1 == len(papers) {
		return fmt.Sprint(lo, "-", hi)
	}
	s := make([]string, len(papers))
	for i, p := range papers {
		s[i] = fmt.Sprint(p)
	}
	return strings.Join(s, ",")
}

// pickCorpus writes to out the lines of each corpus file (JSONL, gzipped
// when its name ends in .gz) whose _id is one of its ids, and fails when
// one is not there. It returns the key papers list --json will know each
// paper by: its metadata url if it has one, else its _id.
func pickCorpus(ids map[string][]string, out string) (map[string]string, error) {
	var b bytes.Buffer
	key := map[string]string{}
	for file, want := range ids {
		f, err := os.Open(file)
		if err != nil {
			return nil, fmt.Errorf("%w: the grid's papers are in the shared test data; pass its folder with -data", err)
		}
		var r io.Reader = f
		if strings.HasSuffix(file, ".gz") {
			zr, err := gzip.NewReader(f)
			if err != nil {
				f.Close()
				return nil, fmt.Errorf("%s: %w", file, err)
			}
			r = zr
		}
		found := map[string]bool{}
		sc := bufio.NewScanner(r)
		sc.Buffer(nil, 1<<26)
		for sc.Scan() {
			var p struct {
				ID       string `json:"_id"`
				Metadata struct {
					URL string `json:"url"`
				} `json:"metadata"`
			}
			if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
				f.Close()
				return nil, fmt.Errorf("%s: %w", file, err)
			}
			if slices.Contains(want, p.ID) && !found[p.ID] {
				found[p.ID] = true
				key[p.ID] = cmp.Or(p.Metadata.URL, p.ID)
				b.Write(sc.Bytes())
				b.WriteByte('\n')
			}
		}
		err = sc.Err()
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		for _, id := range want {
			if !found[id] {
				return nil, fmt.Errorf("%s has no paper %s", file, id)
			}
		}
	}
	return key, os.WriteFile(out, b.Bytes(), 0o644)
}

// askCell is what `papers ask --paper id q` answers, as a cell: its short
// answer, every sentence it quotes (a reader reads them all) and the
// first quote's page; not stated when ask refuses (exit 3).
func askCell(bin, home, id, q string, column int) review.Cell {
	cmd := exec.Command(bin, "--offline", "ask", "--json", "--paper", id, q)
	cmd.Env = append(os.Environ(), "PAPERS_HOME="+home)
	out, err := cmd.Output()
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() == 3 {
		return review.Cell{Column: column}
	}
	if err != nil {
		log.Fatalf("papers ask --paper %s %q: %v", id, q, err)
	}
	var res struct {
		Abstained   bool   `json:"abstained"`
		ShortAnswer string `json:"short_answer"`
		Evidence    []struct {
			Page  int    `json:"page"`
			Quote string `json:"quote"`
		} `json:"evidence"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		log.Fatalf("papers ask --json: %v", err)
	}
	if res.Abstained {
		return review.Cell{Column: column}
	}
	c := review.Cell{Column: column, Stated: true, Answer: res.ShortAnswer}
	var quotes []string
	for _, e := range res.Evidence {
		quotes = append(quotes, e.Quote)
	}
	c.Quote = strings.Join(quotes, " ")
	if len(res.Evidence) > 0 {
		c.Page = res.Evidence[0].Page
	}
	return c
}
