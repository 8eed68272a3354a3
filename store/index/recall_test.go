//go:build unix

package index

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/papers-cli/papers/embed"
	"github.com/papers-cli/papers/internal/shareddata"
)

// BenchmarkDenseRecall measures what the sign-code pass of dense search
// (signcodes.go) loses and gains on existing libraries: for each library
// directory in STORE_RECALL_LIBS (colon-separated, e.g. ones made by
// bench/index/build.sh, or the real 100k of BENCHMARKS.md), 30 random
// unit query vectors (the hardest case: random vectors crowd) and, when
// the library is the local embedder's, 30 SciFact claims embedded by it
// are searched exactly (the int8 scan) and with the sign codes, for the
// top 10 and the top 300 (hybrid retrieval's depth). It reports
// recall@k, the share of the exact top k the approximate search returns,
// and the CPU time of each search. Opening a library without sign codes
// writes them (the upgrade path).
//
//	STORE_RECALL_LIBS=/tmp/lib1m go test ./store/index -run '^$' -bench DenseRecall -benchtime 1x
func BenchmarkDenseRecall(b *testing.B) {
	dirs := os.Getenv("STORE_RECALL_LIBS")
	if dirs == "" {
		b.Skip("STORE_RECALL_LIBS names no library")
	}
	if os.Getenv("SIGNBITS") == "1" {
		signQueryBits = 1
	}
	if c := os.Getenv("SIGNCANDS"); c != "" {
		var n int
		fmt.Sscan(c, &n)
		signCandidates = func(kc int) int { return max(n, kc) }
	}
	for _, dir := range strings.Split(dirs, ":") {
		b.Run(filepath.Base(dir), func(b *testing.B) {
			ctx := context.Background()
			// The library's index as committed (a benchmark library is
			// refreshed): no library needed to read it.
			c, err := ReadCommit(filepath.Join(dir, "index"))
			if err != nil || c == nil {
				b.Fatalf("%s: no committed search index (%v)", dir, err)
			}
			d := Open(Config{Dir: filepath.Join(dir, "index")})
			defer d.Close()
			t0 := time.Now()
			x, err := d.Acquire(ctx, c.Version)
			if err != nil {
				b.Fatal(err)
			}
			defer d.Release(x)
			b.Logf("%s: %d live chunks, %d segments, opened (sign codes written if missing) in %v", dir, x.live(), len(x.segs), time.Since(t0).Round(time.Millisecond))
			dims := c.Version.Dims
			queries := map[string][][]float32{}
			r := rand.New(rand.NewPCG(1, 2))
			for range 30 {
				queries["random"] = append(queries["random"], randomUnit(r, dims))
			}
			if e := embed.NewLocal(); e.Dimensions() == dims { // the local embedder's size: its library, or a synthetic one named after it
				claims := scifactClaims(b, 30)
				for _, c := range claims {
					v, err := e.EmbedQuery(ctx, c)
					if err != nil {
						b.Fatal(err)
					}
					queries["scifact"] = append(queries["scifact"], Normalized(v))
				}
			}
			for _, kind := range []string{"random", "scifact"} {
				for _, k := range []int{10, 300} {
					var found, want int
					var cpuExact, cpuApprox time.Duration
					for _, q := range queries[kind] {
						saved := approxFrom
						approxFrom = math.MaxInt
						c0 := cpuNow()
						exact, err := x.search(ctx, q, k, nil)
						cpuExact += cpuNow() - c0
						approxFrom = 0
						c0 = cpuNow()
						approx, err2 := x.search(ctx, q, k, nil)
						cpuApprox += cpuNow() - c0
						approxFrom = saved
						if err != nil || err2 != nil {
							b.Fatal(err, err2)
						}
						in := map[string]bool{}
						for _, h := range approx {
							in[chunkName(h.PaperID, h.Seq)] = true
						}
						for _, h := range exact {
							if in[chunkName(h.PaperID, h.Seq)] {
								found++
							}
						}
						want += len(exact)
					}
					if want == 0 {
						continue
					}
					n := len(queries[kind])
					b.Logf("%s queries, k=%d: recall %.4f, CPU per search exact %.1f ms, sign codes %.1f ms (%d candidates)",
						kind, k, float64(found)/float64(want), ms(cpuExact)/float64(n), ms(cpuApprox)/float64(n), signCandidates(min(x.live(), k+k/2+64)))
					b.ReportMetric(float64(found)/float64(want), fmt.Sprintf("recall@%d-%s", k, kind))
				}
			}
		})
	}
}

// randomUnit is a random unit vector (as storetest.Vector makes them).
func randomUnit(r *rand.Rand, dims int) []float32 {
	v := make([]float32, dims)
	for i := range v {
		v[i] = float32(r.NormFloat64())
	}
	return Normalized(v)
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }

// cpuNow is the process's CPU time (user+system).
func cpuNow() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// scifactClaims returns the first n SciFact claims.
func scifactClaims(b *testing.B, n int) []string {
	f, err := os.Open(shareddata.Path(b, "scifact", "queries.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() && len(out) < n {
		var q struct{ Text string }
		if err := json.Unmarshal(sc.Bytes(), &q); err != nil {
			b.Fatal(err)
		}
		out = append(out, q.Text)
	}
	return out
}
