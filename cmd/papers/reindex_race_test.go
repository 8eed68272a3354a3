package main

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/papers-cli/papers/embed/embedtest"
	"github.com/papers-cli/papers/store"
)

// gatedEmbedder is an OpenAI-compatible embeddings server (4 dimensions,
// a hash of each text) whose batch requests (more than one input) wait
// until open is closed; the one-text dimension probe is answered at once.
type gatedEmbedder struct {
	*httptest.Server
	mu      sync.Mutex
	open    chan struct{} // guarded by mu
	blocked chan struct{} // receives once per batch request that waits
}

// gate returns the channel batch requests wait on.
func (g *gatedEmbedder) gate() chan struct{} {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.open
}

// release lets the waiting and all further batch requests through.
func (g *gatedEmbedder) release() {
	g.mu.Lock()
	defer g.mu.Unlock()
	select {
	case <-g.open:
	default:
		close(g.open)
	}
}

// shut makes further batch requests wait again.
func (g *gatedEmbedder) shut() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.open = make(chan struct{})
	for len(g.blocked) > 0 {
		<-g.blocked
	}
}

func newGatedEmbedder(t *testing.T) *gatedEmbedder {
	g := &gatedEmbedder{open: make(chan struct{}), blocked: make(chan struct{}, 100)}
	g.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		texts, err := embedtest.Inputs(r)
		if err != nil {
			if !errors.Is(err, io.ErrUnexpectedEOF) { // a killed client's request is cut short
				t.Error(err)
			}
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if len(texts) > 1 {
			select {
			case g.blocked <- struct{}{}:
			default:
			}
			select {
			case <-g.gate():
			case <-r.Context().Done():
				return
			}
		}
		vecs := make([][]float32, len(texts))
		for i, s := range texts {
			vecs[i] = embedtest.Hash4(s)
		}
		embedtest.Reply(w, "tiny", vecs)
	}))
	t.Cleanup(g.Close)
	t.Cleanup(g.release)
	return g
}

// startLogged starts c and collects its stderr lines; lines receives each.
func startLogged(t *testing.T, c *exec.Cmd) (lines chan string, wait func() (string, error)) {
	t.Helper()
	pipe, err := c.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	lines = make(chan string, 1000)
	var all strings.Builder
	var mu sync.Mutex
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(pipe)
		for sc.Scan() {
			mu.Lock()
			all.WriteString(sc.Text() + "\n")
			mu.Unlock()
			select {
			case lines <- sc.Text():
			default:
			}
		}
	}()
	return lines, func() (string, error) {
		<-done
		err := c.Wait()
		mu.Lock()
		defer mu.Unlock()
		return all.String(), err
	}
}

// waitFor reads lines until one contains want, failing after a minute
// (the processes are blocked on the test's gate, not on time).
func waitFor(t *testing.T, lines chan string, want string) {
	t.Helper()
	deadline := time.After(time.Minute)
	for {
		select {
		case l := <-lines:
			if strings.Contains(l, want) {
				return
			}
		case <-deadline:
			t.Fatalf("no stderr line with %q within a minute", want)
		}
	}
}

// TestIngestDuringReindex: an ingest started while a reindex to another
// embedder runs says once that it waits, then embeds with the new embedder;
// a reindex started while an ingest embeds waits for it the same way. No
// record fails, none is stored with the old embedder's vectors.
func TestIngestDuringReindex(t *testing.T) {
	data := sharedData(t)
	home := t.TempDir()
	dir := t.TempDir()
	first, second, third := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl"), filepath.Join(dir, "c.jsonl")
	writeLines(t, filepath.Join(data, "scifact", "corpus.jsonl"), first, 0, 40)
	writeLines(t, filepath.Join(data, "scifact", "corpus.jsonl"), second, 40, 80)
	writeLines(t, filepath.Join(data, "scifact", "corpus.jsonl"), third, 80, 120)
	if out, err := papersCmd(home, "ingest", "--jsonl", first).CombinedOutput(); err != nil {
		t.Fatalf("first ingest: %v\n%s", err, out)
	}
	emb := newGatedEmbedder(t)
	withServer := func(c *exec.Cmd) *exec.Cmd {
		c.Env = append(c.Env, "OPENAI_BASE_URL="+emb.URL+"/v1", "OPENAI_API_KEY=sk-test")
		return c
	}

	// 1. reindex holds the library; an ingest comes.
	_, reindexDone := startLogged(t, withServer(papersCmd(home, "reindex", "--embedder", "openai:tiny")))
	<-emb.blocked // the reindex is re-embedding, inside its transaction
	ingestLines, ingestDone := startLogged(t, withServer(papersCmd(home, "ingest", "--jsonl", second)))
	waitFor(t, ingestLines, "waiting for the papers reindex")
	emb.release()
	if out, err := reindexDone(); err != nil {
		t.Fatalf("reindex: %v\n%s", err, out)
	}
	out, err := ingestDone()
	if err != nil {
		t.Fatalf("ingest during the reindex: %v\n%s", err, out)
	}
	if n := strings.Count(out, "waiting for"); n != 1 || strings.Contains(out, "holds the library") || strings.Contains(out, "dimensions") {
		t.Errorf("ingest during the reindex said (%d waiting lines):\n%s", n, out)
	}
	checkEmbedded(t, home, 80, "openai/tiny", 4)

	// 2. an ingest embeds; a reindex back to local comes.
	emb.shut()
	_, ingestDone = startLogged(t, withServer(papersCmd(home, "ingest", "--jsonl", third)))
	<-emb.blocked
	reindexLines, reindexDone := startLogged(t, withServer(papersCmd(home, "reindex", "--embedder", "local")))
	waitFor(t, reindexLines, "waiting for the papers ingest or update")
	emb.release()
	if out, err := ingestDone(); err != nil {
		t.Fatalf("ingest before the reindex: %v\n%s", err, out)
	}
	if out, err := reindexDone(); err != nil {
		t.Fatalf("reindex after the ingest: %v\n%s", err, out)
	}
	checkEmbedded(t, home, 120, "local/hash-768-v1", 768)
}

// checkEmbedded checks the library holds n papers, passes its integrity
// check and every chunk has a vector of the named embedder's dimensions.
func checkEmbedded(t *testing.T, home string, n int, embedder string, dims int) {
	t.Helper()
	ctx := context.Background()
	checkLibrary(t, home, nil, "after the reindex and the ingest")
	lib, err := store.Open(ctx, home)
	if err != nil {
		t.Fatal(err)
	}
	defer lib.Close()
	if m, _ := lib.Manifest(ctx); m.Embedder != embedder || m.Dimensions != dims {
		t.Errorf("manifest %s/%d, want %s/%d", m.Embedder, m.Dimensions, embedder, dims)
	}
	ps, err := lib.List(ctx, store.Filter{})
	if err != nil || len(ps) != n {
		t.Fatalf("library holds %d papers (%v), want %d", len(ps), err, n)
	}
	for _, p := range ps {
		cs, err := lib.ChunksWithVectors(ctx, p.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cs {
			if len(c.Vector) != dims {
				t.Fatalf("%s#%d has %d dimensions, want %d", p.ID, c.Seq, len(c.Vector), dims)
			}
		}
	}
}
