// Command grid scores papers review on the held-out grid of issue 28
// (bench/review/grid/gold.jsonl: 12 real papers x 6 generic columns,
// written from the papers alone). It builds the papers binary, ingests the
// 12 PDFs of ../shared/data into a scratch library (PAPERS_HOME in a temp
// dir, --offline), runs `papers review --json` with the 6 columns over
// them, and scores every cell as bench/review/cellscore says: stated cells
// right, page right (of the stated cells answered), cells the paper does
// not state marked "not stated"; for all 12 papers, the development half
// (papers 1-6), the held-out half (7-12) and per column.
//
//	go run ./bench/review/grid [-data ../shared/data] [-gold bench/review/grid/gold.jsonl] [-v]
//
// Run it from the repository root. -v prints every cell that is wrong.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/papers-cli/papers/bench/review/cellscore"
	"github.com/papers-cli/papers/review"
)

// cell is one line of gold.jsonl.
type cell struct {
	Paper  int        `json:"paper"`
	Split  string     `json:"split"`
	PDF    string     `json:"pdf"`
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
	flag.Parse()
	log.SetFlags(0)

	gold, err := readGold(*goldPath)
	if err != nil {
		log.Fatal(err)
	}
	var pdfs, columns []string
	for _, g := range gold {
		if p := filepath.Join(*data, g.PDF); !slices.Contains(pdfs, p) {
			pdfs = append(pdfs, p)
		}
		if !slices.Contains(columns, g.Column) {
			columns = append(columns, g.Column)
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
	papers(append([]string{"ingest"}, pdfs...)...)

	// The library ids of the PDFs, by the file each was ingested from.
	idOf := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(papers("list", "--json")))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var p struct{ ID, URL string }
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
			log.Fatalf("papers list --json: %v", err)
		}
		idOf[strings.TrimPrefix(p.URL, "file://")] = p.ID
	}
	var ids []string
	for _, p := range pdfs {
		abs, err := filepath.Abs(p)
		if err != nil {
			log.Fatal(err)
		}
		id, ok := idOf[abs]
		if !ok {
			log.Fatalf("%s was not ingested", p)
		}
		ids = append(ids, id)
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
	if err := json.Unmarshal(papers(append(args, ids...)...), &tab); err != nil {
		log.Fatalf("papers review --json: %v", err)
	}
	got := map[string]review.Cell{} // by id and 1-based column
	for _, r := range tab.Rows {
		for _, c := range r.Cells {
			got[fmt.Sprint(r.ID, "\t", c.Column)] = c
		}
	}

	var all cellscore.Tally
	split := map[string]*cellscore.Tally{"dev": {}, "held": {}}
	perColumn := make([]cellscore.Tally, len(columns))
	for _, g := range gold {
		i := slices.Index(pdfs, filepath.Join(*data, g.PDF))
		col := slices.Index(columns, g.Column) + 1
		c, ok := got[fmt.Sprint(ids[i], "\t", col)]
		if !ok {
			log.Fatalf("papers review gave no cell for paper %d (%s), column %d", g.Paper, ids[i], col)
		}
		v := cellscore.Judge(c, cellscore.Gold{Stated: g.Stated, Facts: g.Facts, Pages: g.Pages})
		all.Add(g.Stated, v)
		split[g.Split].Add(g.Stated, v)
		perColumn[col-1].Add(g.Stated, v)
		if *verbose && (!v.Right || g.Stated && !v.PageRight) {
			report(g, c, v)
		}
	}
	fmt.Printf("all 12      %s\n", all)
	fmt.Printf("dev 1-6     %s\n", split["dev"])
	fmt.Printf("held 7-12   %s\n", split["held"])
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
		if g.Split != "dev" && g.Split != "held" {
			return nil, fmt.Errorf("%s:%d: split is %q, want dev or held", path, i+1, g.Split)
		}
		if g.Stated && (len(g.Facts) == 0 || len(g.Pages) == 0) {
			return nil, fmt.Errorf("%s:%d: a stated cell needs its facts and pages", path, i+1)
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
