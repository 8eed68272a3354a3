package ingest

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/papers-cli/papers/embed"
	"github.com/papers-cli/papers/embed/embedtest"
	"github.com/papers-cli/papers/ingest/arxiv/arxivtest"
	"github.com/papers-cli/papers/store"
)

// TestBatchFailsRecordByRecord: corpus records are embedded and committed
// 64 at a time; one record the embedding server cannot embed (it answers
// an empty vector for that text, a bad reply that is not the run's) fails
// alone with its own reason and the others of its batch are stored. Every
// record of the batch was reported failed with the one record's error
// before (issue 16: "no record may be reported failed for another's
// reason").
func TestBatchFailsRecordByRecord(t *testing.T) {
	const poison = "Ununembeddable"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		texts, err := embedtest.Inputs(r)
		if err != nil {
			t.Error(err)
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		vecs := make([][]float32, len(texts))
		for i, s := range texts {
			if !strings.Contains(s, poison) {
				vecs[i] = embedtest.Hash4(s)
			}
		}
		embedtest.Reply(w, "tiny", vecs)
	}))
	defer srv.Close()

	// ten SciFact records, the fourth of which the server will not embed
	data := arxivtest.DataDir(t)
	src, err := os.Open(filepath.Join(data, "scifact", "corpus.jsonl"))
	if err != nil {
		t.Fatalf("test data missing: %v", err)
	}
	defer src.Close()
	var lines []string
	var ids []string
	sc := bufio.NewScanner(src)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for len(lines) < 10 && sc.Scan() {
		var rec map[string]any
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatal(err)
		}
		if len(lines) == 3 {
			rec["title"] = poison + " " + rec["title"].(string)
		}
		b, _ := json.Marshal(rec)
		lines = append(lines, string(b))
		ids = append(ids, rec["_id"].(string))
	}
	corpus := filepath.Join(t.TempDir(), "corpus.jsonl")
	if err := os.WriteFile(corpus, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	ctx := context.Background()
	lib, err := store.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer lib.Close()
	e, err := embed.NewOpenAI(embed.OpenAIOptions{BaseURL: srv.URL, Model: "tiny", KnownDimensions: 4, MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	if err := lib.EnsureEmbedder(ctx, e.Name(), 4); err != nil {
		t.Fatal(err)
	}
	in := &Ingester{Lib: lib, Embedder: e, CacheDir: filepath.Join(lib.Dir(), "cache")}
	rep, err := in.JSONL(ctx, corpus)
	if err != nil {
		t.Fatalf("the run stopped: %v", err)
	}
	want := append(append([]string{}, ids[:3]...), ids[4:]...)
	if strings.Join(rep.Added, ",") != strings.Join(want, ",") {
		t.Errorf("added %v, want the nine records the server embeds: %v", rep.Added, want)
	}
	if len(rep.Failed) != 1 || rep.Failed[0].Item != ids[3] || !strings.Contains(rep.Failed[0].Reason, "empty vector") {
		t.Errorf("failed %+v, want %s alone, failed for its empty vector", rep.Failed, ids[3])
	}
	if n, _, _ := lib.Count(ctx); n != 9 {
		t.Errorf("the library holds %d papers, want 9", n)
	}
}
