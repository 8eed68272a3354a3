// Command jsonlmem measures the memory an ingest of a JSONL corpus of N
// tiny records keeps, apart from the search index refresh (the index's own
// cost, rebuilt whole today): it writes the corpus, ingests it into a new
// library in this process and measures the live heap (after a collection)
// at every tenth of the records, then lists the library the same way.
//
//	go run ./bench/jsonlmem -n 100000
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"

	"github.com/papers-cli/papers/embed"
	"github.com/papers-cli/papers/ingest"
	"github.com/papers-cli/papers/store"
)

func main() {
	n := flag.Int("n", 100000, "records")
	list := flag.Bool("list", false, "also measure listing the library (store.EachPaper)")
	prof := flag.String("memprofile", "", "write a heap profile here once the ingest's report is built")
	flag.Parse()
	dir, err := os.MkdirTemp("", "jsonlmem")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	corpus := filepath.Join(dir, "corpus.jsonl")
	f, _ := os.Create(corpus)
	enc := json.NewEncoder(f)
	for i := range *n {
		enc.Encode(map[string]string{"_id": fmt.Sprintf("r%d", i), "title": fmt.Sprintf("t%d", i), "text": fmt.Sprintf("word%d other words", i)})
	}
	f.Close()
	ctx := context.Background()
	lib, err := store.Open(ctx, filepath.Join(dir, "lib"))
	if err != nil {
		panic(err)
	}
	defer lib.Close()
	e := embed.NewLocal()
	if err := lib.EnsureEmbedder(ctx, e.Name(), e.Dimensions()); err != nil {
		panic(err)
	}
	m := newMeter(*n)
	in := &ingest.Ingester{Lib: lib, Embedder: e, Observer: func(ev ingest.Event) {
		if ev.Kind == ingest.Stored {
			m.tick()
		}
	}}
	rep, err := in.JSONL(ctx, corpus)
	if err != nil || len(rep.Added) != *n {
		panic(fmt.Sprint(err, len(rep.Added)))
	}
	m.measure() // with the report built
	if *prof != "" {
		f, err := os.Create(*prof)
		if err != nil {
			panic(err)
		}
		pprof.WriteHeapProfile(f)
		f.Close()
	}
	runtime.KeepAlive(rep)
	fmt.Printf("ingest of %d records: live heap %.1f MB at most (%.0f bytes a record), checked at every tenth and with the report\n",
		*n, float64(m.peak)/1e6, float64(m.peak)/float64(*n))
	if *list {
		m = newMeter(*n)
		count := 0
		if err := lib.EachPaper(ctx, store.Filter{Brief: true}, func(store.Paper) error { count++; m.tick(); return nil }); err != nil || count != *n {
			panic(fmt.Sprint(err, count))
		}
		fmt.Printf("listing %d papers (EachPaper): live heap %.1f MB at most\n", *n, float64(m.peak)/1e6)
	}
}

// meter measures the live heap (after a collection) above what was live
// when it started, at every tenth of n ticks.
type meter struct {
	n, ticks   int
	base, peak uint64
}

func newMeter(n int) *meter {
	m := &meter{n: n}
	m.base = live()
	return m
}

func (m *meter) tick() {
	if m.ticks++; m.ticks%max(1, m.n/10) == 0 {
		m.measure()
	}
}

func (m *meter) measure() {
	if v := live(); v > m.base && v-m.base > m.peak {
		m.peak = v - m.base
	}
}

// live collects garbage and returns the bytes still reachable.
func live() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}
