// Command sweep scores ingest/pdf's text of every PDF in a folder against
// pdftotext's text of it (word F1 and bigram F1, see ingest/pdf/score), and
// prints the figures grouped by suite (the first folder under -pdfs) and by
// cause (from a labels file), with research papers on their own line.
//
//	go run ./bench/extract/sweep [-j 2] [-labels FILE] [-out RESULTS.tsv] [-base OLD.tsv] [-v] [-pdfs DIR -refs DIR] [-reader ledongthuc]
//
// Defaults are the peer set: -pdfs ../shared/data/pdfs/peer/pdfs, -refs
// ../shared/data/pdfs/peer/reference-text, -labels
// bench/extract/peer-labels.tsv. For the 8 shared papers:
//
//	go run ./bench/extract/sweep -pdfs ../shared/data/pdfs/papers -refs ../shared/data/pdfs/reference-text -labels ''
//
// Each file is extracted in its own child process (the sweep runs itself
// with -worker) under a time limit and an address-space limit, so a file
// that crashes or hangs the extractor is recorded as such and the sweep goes
// on. -out writes one row per file; -base reads such a file from an earlier
// run and prints, per group, the change and the files that moved most;
// -from reports on such a file without extracting.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/papers-cli/papers/ingest/pdf"
	"github.com/papers-cli/papers/ingest/pdf/score"
)

// result is one file's outcome; it is also the worker's JSON output.
type result struct {
	File     string  `json:"file"` // relative to -pdfs, e.g. "pdfjs/bug1001080.pdf"
	Status   string  `json:"status"`
	Err      string  `json:"err,omitempty"`
	WordF1   float64 `json:"word_f1"`
	WordP    float64 `json:"word_p"`
	WordR    float64 `json:"word_r"`
	BigramF1 float64 `json:"bigram_f1"`
	Chars    int     `json:"chars"`     // our text, runes
	RefChars int     `json:"ref_chars"` // pdftotext's text, runes
	Millis   int64   `json:"ms"`
	RSSKB    int64   `json:"rss_kb"` // the child's peak resident set
	HasRef   bool    `json:"has_ref"`
	// LigFound of LigRef words of the reference with "fi", "fl" or "ff"
	// are in our text; Mixed of Lines lines of ours mix two places of the
	// reference (see score.MixedLines).
	LigFound int `json:"lig_found"`
	LigRef   int `json:"lig_ref"`
	// LigMissed are the words of LigRef not found (printed by -v; not
	// kept by -out).
	LigMissed []string `json:"lig_missed,omitempty"`
	Mixed     int      `json:"mixed"`
	Lines     int      `json:"lines"`
}

func main() {
	worker := flag.Bool("worker", false, "internal: extract and score one file (args: PDF REF)")
	pdfDir := flag.String("pdfs", "../shared/data/pdfs/peer/pdfs", "folder of PDFs (searched recursively)")
	refDir := flag.String("refs", "../shared/data/pdfs/peer/reference-text", "folder of pdftotext texts, <relative path without .pdf>.txt")
	labels := flag.String("labels", "bench/extract/peer-labels.tsv", "file<TAB>paper|-<TAB>causes (comma-separated); '' for none")
	jobs := flag.Int("j", 2, "files extracted at once")
	timeout := flag.Duration("timeout", 60*time.Second, "time limit per file")
	out := flag.String("out", "", "write per-file results (TSV) here")
	base := flag.String("base", "", "compare with per-file results of an earlier run")
	verbose := flag.Bool("v", false, "print every file's figures and the fi/fl words it misses")
	only := flag.String("only", "", "only files whose path contains this")
	asMB := flag.Int("as", 8192, "address-space limit of each child, MB (Go reserves ~700 MB of it at start)")
	reader := flag.String("reader", "own", "what reads the files' objects: own (package syntax, as extraction does) or ledongthuc (github.com/ledongthuc/pdf on syntax's clean copy)")
	from := flag.String("from", "", "report on per-file results written by an earlier -out instead of extracting")
	detectMode := flag.Bool("detect", false, "print the features of each file as a labels file instead of scoring")
	detectWorker := flag.Bool("detect-worker", false, "internal: print the features of one file")
	flag.Parse()
	if *worker {
		os.Exit(runWorker(flag.Arg(0), flag.Arg(1), *reader))
	}
	if *detectWorker {
		fmt.Println(strings.Join(detectOne(flag.Arg(0)), ","))
		return
	}
	files, err := listPDFs(*pdfDir, *only)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	lab := map[string]label{}
	if *labels != "" {
		if lab, err = readLabels(*labels); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if *detectMode {
		for _, rel := range files {
			ctx, cancel := context.WithTimeout(context.Background(), *timeout)
			out, err := limited(ctx, *asMB, self, "-detect-worker", filepath.Join(*pdfDir, rel)).Output()
			cancel()
			fs := strings.TrimSpace(string(out))
			if err != nil {
				fs = "open-error"
			}
			fmt.Printf("%s\t-\t%s\n", rel, fs)
		}
		return
	}
	if *from != "" {
		prev, err := readResults(*from)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		var rs []result
		for _, f := range files {
			if r, ok := prev[f]; ok {
				rs = append(rs, r)
			}
		}
		var old map[string]result
		if *base != "" {
			if old, err = readResults(*base); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
		}
		report(os.Stdout, rs, lab, old, *verbose)
		return
	}
	start := time.Now()
	results := make([]result, len(files))
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < max(1, *jobs); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				rel := files[i]
				ref := filepath.Join(*refDir, strings.TrimSuffix(rel, ".pdf")+".txt")
				results[i] = runChild(self, filepath.Join(*pdfDir, rel), ref, *reader, *asMB, *timeout)
				results[i].File = rel
			}
		}()
	}
	for i := range files {
		next <- i
	}
	close(next)
	wg.Wait()
	wall := time.Since(start)
	if *out != "" {
		if err := writeResults(*out, results); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	var old map[string]result
	if *base != "" {
		if old, err = readResults(*base); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	report(os.Stdout, results, lab, old, *verbose)
	fmt.Printf("\n%d files in %v wall (-j %d)\n", len(files), wall.Round(time.Millisecond), *jobs)
}

func listPDFs(dir, only string) ([]string, error) {
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !strings.EqualFold(filepath.Ext(p), ".pdf") {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		if only == "" || strings.Contains(rel, only) {
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	if err == nil && len(files) == 0 {
		err = fmt.Errorf("no PDFs under %s (the sweep needs ../shared/data next to the repository)", dir)
	}
	sort.Strings(files)
	return files, err
}

// runChild extracts one file in a child process.
func runChild(self, pdfPath, refPath, reader string, asMB int, timeout time.Duration) result {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := limited(ctx, asMB, self, "-worker", "-reader", reader, pdfPath, refPath)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var r result
	var rss int64
	if cmd.ProcessState != nil {
		if u, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			rss = u.Maxrss // KB on Linux
		}
	}
	r.RSSKB = rss
	if jerr := json.Unmarshal(stdout.Bytes(), &r); jerr == nil && r.Status != "" {
		r.RSSKB = rss
		return r
	}
	r.HasRef, r.RefChars = refInfo(refPath)
	switch {
	case ctx.Err() != nil:
		r.Status, r.Err = "timeout", fmt.Sprintf("no result after %v", timeout)
	default:
		r.Status = "crash"
		msg := stderr.String()
		if i := strings.Index(msg, "\n\n"); i > 0 {
			msg = msg[:i]
		}
		r.Err = oneLine(fmt.Sprintf("%v: %s", err, msg))
	}
	return r
}

// limited runs a command under an address-space limit (MB), so that a
// file that makes the parser allocate without bound fails alone. The limit
// is set by a shell that then becomes the command: the Go runtime sizes the
// address space it reserves at start to a limit it finds then (a process
// that lowers its own limit later dies at its next reservation).
func limited(ctx context.Context, asMB int, name string, args ...string) *exec.Cmd {
	return exec.CommandContext(ctx, "/bin/sh", append([]string{"-c", `ulimit -v "$0" && exec "$@"`, strconv.Itoa(asMB << 10), name}, args...)...)
}

func refInfo(path string) (bool, int) {
	b, err := os.ReadFile(path)
	if err != nil {
		return false, 0
	}
	return true, len([]rune(string(b)))
}

// runWorker is the child: it extracts, scores and prints one JSON result.
func runWorker(pdfPath, refPath, reader string) int {
	var r result
	ref, rerr := os.ReadFile(refPath)
	r.HasRef = rerr == nil
	r.RefChars = len([]rune(string(ref)))
	start := time.Now()
	rd := pdf.OwnReader
	if reader == "ledongthuc" {
		rd = pdf.Ledongthuc
	}
	var doc *pdf.Document
	data, err := os.ReadFile(pdfPath)
	if err == nil {
		doc, err = pdf.ExtractBytesWith(context.Background(), data, rd)
	}
	r.Millis = time.Since(start).Milliseconds()
	var text string
	if doc != nil {
		text = doc.Text()
	}
	r.Chars = len([]rune(text))
	switch {
	case err != nil && doc == nil:
		r.Status, r.Err = "error", oneLine(err.Error())
	case err != nil:
		r.Status, r.Err = "warn", oneLine(err.Error())
	default:
		r.Status = "ok"
	}
	if r.HasRef {
		s := score.Compare(text, string(ref))
		r.WordF1, r.WordP, r.WordR, r.BigramF1 = s.WordF1, s.WordP, s.WordR, s.BigramF1
		r.LigFound, r.LigRef = score.Ligatures(text, string(ref))
		r.LigMissed = score.LigatureMisses(text, string(ref))
		r.Mixed, r.Lines = score.MixedLines(text, string(ref))
	}
	if err := json.NewEncoder(os.Stdout).Encode(r); err != nil {
		return 1
	}
	return 0
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 160 {
		s = s[:160] + "..."
	}
	return s
}

type label struct {
	paper  bool
	causes []string
}

func readLabels(path string) (map[string]label, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	m := map[string]label{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		cols := strings.Split(line, "\t")
		if len(cols) < 2 {
			return nil, fmt.Errorf("%s: bad line %q (want file<TAB>paper|-<TAB>causes)", path, line)
		}
		l := label{paper: cols[1] == "paper"}
		if len(cols) > 2 && cols[2] != "" {
			l.causes = strings.Split(cols[2], ",")
		}
		m[cols[0]] = l
	}
	return m, sc.Err()
}

func writeResults(path string, rs []result) error {
	var b strings.Builder
	b.WriteString("file\tstatus\tword_f1\tbigram_f1\tword_p\tword_r\tchars\tref_chars\tms\thas_ref\terr\trss_kb\tlig_found\tlig_ref\tmixed\tlines\n")
	for _, r := range rs {
		fmt.Fprintf(&b, "%s\t%s\t%.4f\t%.4f\t%.4f\t%.4f\t%d\t%d\t%d\t%v\t%s\t%d\t%d\t%d\t%d\t%d\n", r.File, r.Status, r.WordF1, r.BigramF1,
			r.WordP, r.WordR, r.Chars, r.RefChars, r.Millis, r.HasRef, r.Err, r.RSSKB, r.LigFound, r.LigRef, r.Mixed, r.Lines)
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

func readResults(path string) (map[string]result, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	m := map[string]result{}
	for i, line := range strings.Split(strings.TrimRight(string(data), "\n"), "\n") {
		c := strings.Split(line, "\t")
		if i == 0 || len(c) < 11 {
			continue
		}
		f := func(s string) float64 { v, _ := strconv.ParseFloat(s, 64); return v }
		n := func(s string) int { v, _ := strconv.Atoi(s); return v }
		m[c[0]] = result{File: c[0], Status: c[1], WordF1: f(c[2]), BigramF1: f(c[3]), WordP: f(c[4]), WordR: f(c[5]),
			Chars: n(c[6]), RefChars: n(c[7]), Millis: int64(n(c[8])), HasRef: c[9] == "true", Err: c[10]}
		if len(c) > 11 {
			r := m[c[0]]
			r.RSSKB = int64(n(c[11]))
			m[c[0]] = r
		}
		if len(c) > 15 {
			r := m[c[0]]
			r.LigFound, r.LigRef, r.Mixed, r.Lines = n(c[12]), n(c[13]), n(c[14]), n(c[15])
			m[c[0]] = r
		}
	}
	if len(m) == 0 {
		return nil, errors.New(path + ": no results")
	}
	return m, nil
}

type group struct {
	name  string
	files []result
}

func report(w *os.File, rs []result, lab map[string]label, old map[string]result, verbose bool) {
	bySuite := map[string][]result{}
	byCause := map[string][]result{}
	var papers, all, texty []result
	for _, r := range rs {
		if r.HasRef && r.RefChars >= 500 {
			texty = append(texty, r)
		}
		suite := "(top)"
		if i := strings.IndexByte(r.File, '/'); i > 0 {
			suite = r.File[:i]
		}
		bySuite[suite] = append(bySuite[suite], r)
		all = append(all, r)
		l := lab[r.File]
		if l.paper {
			papers = append(papers, r)
		}
		for _, c := range l.causes {
			byCause[c] = append(byCause[c], r)
		}
	}
	var groups []group
	groups = append(groups, group{"ALL", all}, group{"pdftotext reads >= 500 chars", texty})
	if len(papers) > 0 {
		groups = append(groups, group{"research papers", papers})
	}
	for _, k := range sortedKeys(bySuite) {
		groups = append(groups, group{"suite " + k, bySuite[k]})
	}
	for _, k := range sortedKeys(byCause) {
		groups = append(groups, group{"cause " + k, byCause[k]})
	}
	fmt.Fprintf(w, "%-34s %5s %6s %7s %7s %7s %7s %7s %5s %5s %5s", "group", "files", "scored", "wordF1", "bigrF1", "medianW", "fi/fl", "mixed", "err", "crash", "lost")
	if old != nil {
		fmt.Fprintf(w, " %8s %8s", "dWordF1", "dBigrF1")
	}
	fmt.Fprintln(w)
	for _, g := range groups {
		s := summarise(g.files)
		fmt.Fprintf(w, "%-34s %5d %6d %7.4f %7.4f %7.4f %7.4f %7.4f %5d %5d %5d", g.name, len(g.files), s.scored, s.word, s.bigram, s.median, s.lig, s.mixed, s.errs, s.crashes, s.lost)
		if old != nil {
			var prev []result
			for _, r := range g.files {
				if o, ok := old[r.File]; ok {
					prev = append(prev, o)
				}
			}
			p := summarise(prev)
			fmt.Fprintf(w, " %+8.4f %+8.4f", s.word-p.word, s.bigram-p.bigram)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w, "\n(wordF1, bigrF1: means over files with a reference; fi/fl: share of the reference's words with fi, fl or ff that we print;\n mixed: share of our lines of 6+ words that join two distant places of the reference; lost: we fail or print < 10% of the words where pdftotext reads >= 500 characters)")
	var big, slow result
	for _, r := range rs {
		if r.RSSKB > big.RSSKB {
			big = r
		}
		if r.Millis > slow.Millis {
			slow = r
		}
	}
	fmt.Fprintf(w, "peak RSS %.0f MB (%s); slowest %.2f s (%s)\n", float64(big.RSSKB)/1024, big.File, float64(slow.Millis)/1000, slow.File)
	if old != nil {
		type mv struct {
			r result
			d float64
		}
		var moves []mv
		for _, r := range rs {
			if o, ok := old[r.File]; ok && r.HasRef {
				if d := r.WordF1 - o.WordF1; d > 0.002 || d < -0.002 || (r.BigramF1-o.BigramF1) < -0.01 {
					moves = append(moves, mv{r, d})
				}
			}
		}
		sort.Slice(moves, func(i, j int) bool { return moves[i].d < moves[j].d })
		fmt.Fprintln(w, "\nfiles that moved (word F1 old -> new, bigram F1 old -> new):")
		for _, m := range moves {
			o := old[m.r.File]
			fmt.Fprintf(w, "  %-60s %.3f -> %.3f  %.3f -> %.3f  %s\n", m.r.File, o.WordF1, m.r.WordF1, o.BigramF1, m.r.BigramF1, m.r.Status)
		}
	}
	if verbose {
		fmt.Fprintln(w, "\nper file:")
		for _, r := range rs {
			l := lab[r.File]
			p := "-"
			if l.paper {
				p = "paper"
			}
			fmt.Fprintf(w, "  %-60s %-7s W %.3f (P %.3f R %.3f) B %.3f  fi/fl %d/%d mixed %d/%d %6d/%-6d chars %5dms %s %s %s\n", r.File, r.Status,
				r.WordF1, r.WordP, r.WordR, r.BigramF1, r.LigFound, r.LigRef, r.Mixed, r.Lines, r.Chars, r.RefChars, r.Millis, p, strings.Join(l.causes, ","), r.Err)
			if len(r.LigMissed) > 0 {
				fmt.Fprintf(w, "    fi/fl words of pdftotext's not in ours: %s\n", strings.Join(r.LigMissed, " "))
			}
		}
	}
}

type summary struct {
	scored, errs, crashes, lost int
	word, bigram, median        float64
	lig, mixed                  float64 // pooled over the files: ligature words found, lines that mix
}

func summarise(rs []result) summary {
	var s summary
	var ws []float64
	for _, r := range rs {
		switch r.Status {
		case "error":
			s.errs++
		case "crash", "timeout":
			s.crashes++
		}
		if r.HasRef && r.RefChars >= 500 && (r.Status == "error" || r.Status == "crash" || r.Status == "timeout" || r.WordR < 0.1) {
			s.lost++
		}
		if !r.HasRef {
			continue
		}
		s.scored++
		s.word += r.WordF1
		s.bigram += r.BigramF1
		ws = append(ws, r.WordF1)
	}
	var ligF, ligR, mixed, lines int
	for _, r := range rs {
		ligF, ligR, mixed, lines = ligF+r.LigFound, ligR+r.LigRef, mixed+r.Mixed, lines+r.Lines
	}
	s.lig, s.mixed = 1, 0
	if ligR > 0 {
		s.lig = float64(ligF) / float64(ligR)
	}
	if lines > 0 {
		s.mixed = float64(mixed) / float64(lines)
	}
	if s.scored > 0 {
		s.word /= float64(s.scored)
		s.bigram /= float64(s.scored)
		sort.Float64s(ws)
		s.median = ws[len(ws)/2]
	}
	return s
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
