// Command related measures `papers related` (issue 13) in two parts.
//
// Quality: a library of the topic corpus (30 papers of one feed topic)
// and the 5,183 SciFact abstracts, embedded by the local embedder. For each
// topic paper, the share of its 10 nearest papers that are of the topic,
// against chance (29 of the other 5,212); for each SciFact abstract that a
// train claim cites together with others (qrels/train.tsv), how often one
// of those co-cited abstracts is its nearest or among its 10 nearest,
// against chance. 300 papers' results are compared with a brute-force
// scan of the same vectors.
//
// Speed: a synthetic library of -n papers (5 chunks of 768 dimensions
// each, random unit vectors, store/storetest): reading the paper vectors
// (computed from the chunks, then from the sidecar), building the
// chromem-go collection, and a query, in this process.
//
//	go run ./bench/related -data ../shared/data -n 10000
package main

import (
	"bufio"
	"cmp"
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/papers-cli/papers/embed"
	"github.com/papers-cli/papers/ingest"
	"github.com/papers-cli/papers/related"
	"github.com/papers-cli/papers/store"
	"github.com/papers-cli/papers/store/storetest"
)

func main() {
	data := flag.String("data", "../shared/data", "the shared test data")
	n := flag.Int("n", 10000, "papers of the synthetic library timed")
	quality := flag.Bool("quality", true, "measure the neighbours' topics (ingests SciFact)")
	libDir := flag.String("dir", "", "time this library instead of writing a synthetic one")
	flag.Parse()
	ctx := context.Background()
	if *quality {
		if err := measureQuality(ctx, *data); err != nil {
			fmt.Fprintln(os.Stderr, "related:", err)
			os.Exit(1)
		}
	}
	if *n > 0 {
		if err := measureSpeed(ctx, *n, *libDir); err != nil {
			fmt.Fprintln(os.Stderr, "related:", err)
			os.Exit(1)
		}
	}
}

func measureQuality(ctx context.Context, data string) error {
	topicCorpus := filepath.Join(data, "topic", "rl-for-llm-agents.jsonl")
	scifact := filepath.Join(data, "scifact", "corpus.jsonl")
	for _, f := range []string{topicCorpus, scifact} {
		if _, err := os.Stat(f); err != nil {
			return fmt.Errorf("test data missing (the shared data must be at -data): %w", err)
		}
	}
	dir, err := os.MkdirTemp("", "bench-related-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	start := time.Now()
	if _, err := ingest.Build(ctx, dir, embed.NewLocal(), ingest.Sources{Corpora: []string{topicCorpus, scifact}}); err != nil {
		return err
	}
	fmt.Printf("library: topic corpus + SciFact ingested in %s\n", time.Since(start).Round(time.Millisecond))
	lib, err := store.Open(ctx, dir)
	if err != nil {
		return err
	}
	defer lib.Close()
	x, err := related.Open(ctx, lib)
	if err != nil {
		return err
	}
	defer x.Close()
	pv, err := lib.PaperVectors(ctx)
	if err != nil {
		return err
	}
	defer pv.Close()
	total := len(pv.Papers)

	// The topic corpus: share of the 10 nearest that are of the topic.
	var topicIDs []string
	for _, p := range pv.Papers {
		if strings.HasPrefix(p.ID, "topic-") {
			topicIDs = append(topicIDs, p.ID)
		}
	}
	var share, first float64
	for _, id := range topicIDs {
		hits, err := x.Related(ctx, id, related.Options{K: 10})
		if err != nil {
			return err
		}
		same := 0
		for _, h := range hits {
			if strings.HasPrefix(h.ID, "topic-") {
				same++
			}
		}
		share += float64(same) / float64(len(hits))
		if len(hits) > 0 && strings.HasPrefix(hits[0].ID, "topic-") {
			first++
		}
	}
	nt := float64(len(topicIDs))
	fmt.Printf("topic corpus (%d papers among %d): %.1f%% of the 10 nearest are of the topic, the nearest is %.1f%% of the time; chance %.2f%%\n",
		len(topicIDs), total, 100*share/nt, 100*first/nt, 100*(nt-1)/float64(total-1))

	// SciFact: abstracts a train claim cites together.
	co, err := coCited(filepath.Join(data, "scifact", "qrels", "train.tsv"))
	if err != nil {
		return err
	}
	var docs []string
	for d := range co {
		if pv.Index(d) >= 0 {
			docs = append(docs, d)
		}
	}
	slices.Sort(docs)
	var at1, at10, chance1, chance10 float64
	for _, d := range docs {
		hits, err := x.Related(ctx, d, related.Options{K: 10})
		if err != nil {
			return err
		}
		for i, h := range hits {
			if co[d][h.ID] {
				if i == 0 {
					at1++
				}
				at10++
				break
			}
		}
		c := float64(len(co[d])) / float64(total-1)
		chance1 += c
		chance10 += 1 - pow(1-c, 10)
	}
	nd := float64(len(docs))
	fmt.Printf("SciFact (%d abstracts cited with others by a train claim): a co-cited abstract is the nearest %.1f%% of the time (chance %.2f%%), among the 10 nearest %.1f%% (chance %.2f%%)\n",
		len(docs), 100*at1/nd, 100*chance1/nd, 100*at10/nd, 100*chance10/nd)

	// The same results as a brute-force scan of the same vectors.
	r := rand.New(rand.NewPCG(1, 2))
	differ := 0
	const sample = 300
	for range sample {
		id := pv.Papers[r.IntN(total)].ID
		got, err := x.Related(ctx, id, related.Options{K: 10})
		if err != nil {
			return err
		}
		if !slices.Equal(got, bruteForce(pv, id, 10)) {
			differ++
		}
	}
	fmt.Printf("brute force: %d of %d sampled papers' 10 nearest differ from a scan of the same vectors\n", differ, sample)
	return nil
}

func pow(b float64, n int) float64 {
	out := 1.0
	for range n {
		out *= b
	}
	return out
}

// coCited maps each corpus id cited by a claim that cites others to those
// others (over every such claim).
func coCited(qrels string) (map[string]map[string]bool, error) {
	f, err := os.Open(qrels)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	byQuery := map[string][]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Split(sc.Text(), "\t")
		if len(fs) < 2 || fs[0] == "query-id" {
			continue
		}
		byQuery[fs[0]] = append(byQuery[fs[0]], fs[1])
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	co := map[string]map[string]bool{}
	for _, ds := range byQuery {
		for _, a := range ds {
			for _, b := range ds {
				if a != b {
					if co[a] == nil {
						co[a] = map[string]bool{}
					}
					co[a][b] = true
				}
			}
		}
	}
	return co, nil
}

// bruteForce ranks every other paper by the dot product of its vector with
// id's, in float32 in order as chromem-go sums it, ties by id.
func bruteForce(pv *store.PaperVectors, id string, k int) []related.Hit {
	q := pv.Vector(pv.Index(id))
	hits := make([]related.Hit, 0, len(pv.Papers))
	for i, p := range pv.Papers {
		if p.ID == id {
			continue
		}
		var s float32
		for d, v := range pv.Vector(i) {
			s += q[d] * v
		}
		hits = append(hits, related.Hit{ID: p.ID, Score: s})
	}
	slices.SortFunc(hits, func(a, b related.Hit) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return hits[:min(k, len(hits))]
}

func measureSpeed(ctx context.Context, n int, dir string) error {
	if dir == "" {
		var err error
		if dir, err = os.MkdirTemp("", "bench-related-syn-*"); err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		start := time.Now()
		if err := storetest.Build(ctx, dir, storetest.Options{Papers: n, ChunksPerPaper: 5, Dims: 768, Seed: 1, Batch: 200}); err != nil {
			return err
		}
		fmt.Printf("synthetic library: %d papers x 5 chunks, 768 dims, written in %s\n", n, time.Since(start).Round(time.Millisecond))
	}
	lib, err := store.Open(ctx, dir)
	if err != nil {
		return err
	}
	defer lib.Close()
	timed := func(what string, f func() error) error {
		t, c := time.Now(), cpu()
		if err := f(); err != nil {
			return err
		}
		fmt.Printf("  %-66s wall %7.1f ms, CPU %7.1f ms\n", what, ms(time.Since(t)), ms(cpu()-c))
		return nil
	}
	var pv *store.PaperVectors
	if err := timed("paper vectors, first read (means of the chunks, sidecar written)", func() (err error) {
		pv, err = lib.PaperVectors(ctx)
		return err
	}); err != nil {
		return err
	}
	pv.Close()
	if err := timed("paper vectors, from the sidecar", func() (err error) {
		pv, err = lib.PaperVectors(ctx)
		return err
	}); err != nil {
		return err
	}
	defer pv.Close()
	var x *related.Index
	if err := timed(fmt.Sprintf("chromem-go collection of %d papers built", n), func() (err error) {
		x, err = related.Build(ctx, pv)
		return err
	}); err != nil {
		return err
	}
	r := rand.New(rand.NewPCG(3, 4))
	const queries = 200
	ds := make([]time.Duration, 0, queries)
	c := cpu()
	for range queries {
		id := pv.Papers[r.IntN(len(pv.Papers))].ID
		t := time.Now()
		if _, err := x.Related(ctx, id, related.Options{K: 10}); err != nil {
			return err
		}
		ds = append(ds, time.Since(t))
	}
	perQuery := (cpu() - c) / queries
	var ms0 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms0)
	fmt.Printf("  live heap with the collection built: %.0f MB; resident: %s\n", float64(ms0.HeapAlloc)/(1<<20), rss())
	slices.Sort(ds)
	fmt.Printf("  query, 10 nearest (%d queries): wall p50 %.2f ms, p90 %.2f ms, max %.2f ms; CPU %.2f ms a query\n", queries,
		ms(ds[len(ds)/2]), ms(ds[len(ds)*9/10]), ms(ds[len(ds)-1]), ms(perQuery))
	return nil
}

// rss is this process's resident and peak resident memory, from /proc.
func rss() string {
	b, _ := os.ReadFile("/proc/self/status")
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "VmRSS") || strings.HasPrefix(l, "VmHWM") || strings.HasPrefix(l, "RssFile") {
			out = append(out, strings.Join(strings.Fields(l), " "))
		}
	}
	return strings.Join(out, ", ")
}

// cpu is the CPU time (user and system) this process has used.
func cpu() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
