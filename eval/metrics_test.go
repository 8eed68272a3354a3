package eval

import (
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/papers-cli/papers/internal/shareddata"
)

func TestMetrics(t *testing.T) {
	rel := map[string]int{"a": 1, "b": 2, "z": 0}
	tests := []struct {
		name             string
		ranked           []string
		ndcg, recall, rr float64
	}{
		{"ideal", []string{"b", "a", "x"}, 1, 1, 1},
		{"swapped", []string{"a", "b"}, (1 + 2/math.Log2(3)) / (2 + 1/math.Log2(3)), 1, 1},
		{"second place", []string{"x", "a"}, (1 / math.Log2(3)) / (2 + 1/math.Log2(3)), 0.5, 0.5},
		{"duplicates count once", []string{"x", "x", "a"}, (1 / math.Log2(3)) / (2 + 1/math.Log2(3)), 0.5, 0.5},
		{"nothing", []string{"x", "z"}, 0, 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := NDCG(tc.ranked, rel, 10); math.Abs(got-tc.ndcg) > 1e-9 {
				t.Errorf("NDCG = %f, want %f", got, tc.ndcg)
			}
			if got := Recall(tc.ranked, rel, 100); math.Abs(got-tc.recall) > 1e-9 {
				t.Errorf("Recall = %f, want %f", got, tc.recall)
			}
			if got := MRR(tc.ranked, rel, 10); math.Abs(got-tc.rr) > 1e-9 {
				t.Errorf("MRR = %f, want %f", got, tc.rr)
			}
		})
	}
	if NDCG([]string{"x", "y", "w", "a"}, rel, 2) != 0 {
		t.Error("a hit below k counted")
	}
}

func TestReportLatency(t *testing.T) {
	var a Accumulator
	for i := 1; i <= 100; i++ {
		a.Add([]string{"a"}, map[string]int{"a": 1}, time.Duration(i)*time.Millisecond)
	}
	r := a.Report()
	if r.Queries != 100 || r.NDCG10 != 1 || r.Latency.Mean != 50.5 || r.Latency.P95 != 95 {
		t.Errorf("%+v", r)
	}
}

func TestReadSciFact(t *testing.T) {
	dir := shareddata.Path(t, "scifact")
	docs, err := ReadCorpus(filepath.Join(dir, "corpus.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	qs, err := ReadQueries(filepath.Join(dir, "queries.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	qrels, err := ReadQrels(filepath.Join(dir, "qrels", "train.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != 5183 || len(qs) != 1109 || len(qrels) != 809 || len(Judged(qs, qrels)) != 809 {
		t.Errorf("%d docs, %d queries, %d judged queries", len(docs), len(qs), len(qrels))
	}
	bad := filepath.Join(t.TempDir(), "bad.jsonl")
	os.WriteFile(bad, []byte("{\"_id\":\"1\"}\nnot json\n"), 0o644)
	if _, err := ReadCorpus(bad); err == nil {
		t.Error("a bad line was accepted")
	}
}
