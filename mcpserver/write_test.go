package mcpserver_test

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/papers-cli/papers/internal/localfile/localfiletest"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/papers-cli/papers/ingest"
	"github.com/papers-cli/papers/ingest/arxiv"
	"github.com/papers-cli/papers/ingest/arxiv/arxivtest"
	"github.com/papers-cli/papers/ingest/chunk"
	"github.com/papers-cli/papers/library"
	"github.com/papers-cli/papers/mcpserver"
	"github.com/papers-cli/papers/store"
)

// progressLog collects the progress notifications a client receives.
type progressLog struct {
	mu    sync.Mutex
	notes []*mcp.ProgressNotificationParams
	first chan struct{}
	once  sync.Once
}

func newProgressLog() *progressLog { return &progressLog{first: make(chan struct{})} }

func (p *progressLog) handler(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
	p.mu.Lock()
	p.notes = append(p.notes, r.Params)
	p.mu.Unlock()
	p.once.Do(func() { close(p.first) })
}

func (p *progressLog) all() []*mcp.ProgressNotificationParams {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]*mcp.ProgressNotificationParams(nil), p.notes...)
}

// TestIngestReportsProgress: an arXiv query with abstracts only, through
// the fake arXiv: the report says what was added, and progress comes on
// the client's token, rising, with the papers' count as total.
func TestIngestReportsProgress(t *testing.T) {
	srv := arxivtest.NewServer(t, arxivtest.Options{}) // the recorded results of all:testing
	prog := newProgressLog()
	dir := t.TempDir()
	cs, _ := session(t, mcpserver.Options{Library: library.Config{Dir: dir, Arxiv: arxivOf(srv, -1)}}, &mcp.ClientOptions{ProgressNotificationHandler: prog.handler})
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "ingest", Meta: mcp.Meta{"progressToken": "tok-1"},
		Arguments: map[string]any{"query": "all:testing", "max": 5, "abstracts_only": true}})
	if err != nil || res.IsError {
		t.Fatalf("ingest: %v %s", err, text(res))
	}
	var rep struct {
		Added []string `json:"added"`
	}
	call(t, cs, "ingest", map[string]any{"query": "all:testing", "max": 5, "abstracts_only": true}, &rep)
	if len(rep.Added) != 0 {
		t.Errorf("a second ingest of the same papers added %v", rep.Added)
	}
	notes := prog.all()
	if len(notes) < 6 {
		for _, n := range notes {
			t.Logf("%+v", n)
		}
		t.Fatalf("%d progress notifications for 5 papers", len(notes))
	}
	for i, n := range notes {
		if n.ProgressToken != "tok-1" || n.Message == "" || i > 0 && n.Progress <= notes[i-1].Progress {
			t.Errorf("notification %d: %+v after %+v", i, n, notes[max(i-1, 0)])
		}
	}
	if last := notes[len(notes)-1]; last.Total != 5 || last.Progress < 5 {
		t.Errorf("last notification %+v, want progress 5 of 5", last)
	}
	// the new papers are resources, and searchable
	var found struct {
		Passages []passage `json:"passages"`
	}
	call(t, cs, "search", map[string]any{"query": "testing"}, &found)
	if len(found.Passages) == 0 {
		t.Error("the papers ingested are not found")
	}
	n := 0
	for r, err := range cs.Resources(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		if r.URI != "" {
			n++
		}
	}
	if n != 5 {
		t.Errorf("%d resources after ingesting 5 papers", n)
	}

	failure(t, "nothing to ingest", call(t, cs, "ingest", map[string]any{}, nil), "nothing to ingest")
	failure(t, "a query given as an id", call(t, cs, "ingest", map[string]any{"ids": []string{"reinforcement learning"}}, nil), "not an arXiv id")
	failure(t, "update with no topics", call(t, cs, "update", map[string]any{}, nil), "no topics are followed yet", "hint: ")
}

func TestReadOnlyRefusesWrites(t *testing.T) {
	srv := fakeArxiv(t, arxivtest.Options{})
	dir := t.TempDir()
	cs, _ := session(t, mcpserver.Options{ReadOnly: true, Library: library.Config{Dir: dir, Arxiv: arxivOf(srv, -1)}}, nil)
	failure(t, "ingest on a read-only server", call(t, cs, "ingest", map[string]any{"ids": []string{"2302.04761"}}, nil), "ingest is refused", "--read-only", "hint: ")
	failure(t, "update on a read-only server", call(t, cs, "update", nil, nil), "update is refused", "--read-only")
	if len(srv.Requests()) != 0 {
		t.Errorf("a refused ingest asked arXiv %d times", len(srv.Requests()))
	}
	if _, err := os.Stat(filepath.Join(dir, store.FileName)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused ingest made a library: %v", err)
	}
}

// TestIngestCancelled: a client that cancels a long ingest (a slow arXiv,
// arXiv's pacing) stops it soon: no request to arXiv after the call ended,
// what was stored is kept and the library stays usable.
func TestIngestCancelled(t *testing.T) {
	for _, how := range []string{"cancel", "disconnect"} {
		t.Run(how, func(t *testing.T) {
			srv := arxivtest.NewServer(t, arxivtest.Options{Latency: 20 * time.Millisecond}) // all:testing, PDFs missing
			prog := newProgressLog()
			dir := t.TempDir()
			cs, s, conn := sessionOn(t, mcpserver.Options{Library: library.Config{Dir: dir, Arxiv: arxivOf(srv, 300*time.Millisecond)}}, &mcp.ClientOptions{ProgressNotificationHandler: prog.handler})
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() {
				_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "ingest", Meta: mcp.Meta{"progressToken": 7},
					Arguments: map[string]any{"query": "all:testing", "max": 40}})
				done <- err
			}()
			select {
			case <-prog.first:
			case <-time.After(30 * time.Second):
				t.Fatal("no progress within 30 s")
			}
			time.Sleep(700 * time.Millisecond) // a paper or two
			if how == "cancel" {
				cancel()
			} else {
				conn.conn.Close() // the client process died
			}
			select {
			case err := <-done:
				if how == "cancel" && !errors.Is(err, context.Canceled) {
					t.Errorf("the cancelled call returned %v, want context.Canceled", err)
				}
			case <-time.After(30 * time.Second):
				t.Fatal("the call did not end")
			}
			cancel()
			if how == "disconnect" {
				s.Close() // waits for the handler
			} else {
				waitIdle(t, s)
			}
			n := len(srv.Requests())
			time.Sleep(time.Second)
			if m := len(srv.Requests()); m != n {
				t.Errorf("%d requests to arXiv after the call was cancelled", m-n)
			}
			if n > 20 {
				t.Errorf("%d requests: the ingest ran on", n)
			}
			if how == "cancel" { // the same session goes on
				var out struct {
					Papers []struct {
						ID string `json:"id"`
					} `json:"papers"`
				}
				call(t, cs, "list_papers", nil, &out)
				if len(out.Papers) >= 40 {
					t.Errorf("%d papers: the ingest was not stopped", len(out.Papers))
				}
				// the cancelled call got no answer: initialize and list_papers did
				rs := conn.answered()
				if len(rs) != 2 {
					for _, r := range rs {
						t.Logf("response %v: %s %v", r.ID, r.Result, r.Error)
					}
					t.Errorf("%d responses, want 2: a cancelled call is not answered", len(rs))
				}
			}
		})
	}
}

// waitIdle waits until the server's calls have returned (a cancelled call
// returns to the client before its handler has stopped).
func waitIdle(t *testing.T, s *mcpserver.Server) {
	t.Helper()
	ch := make(chan struct{})
	go func() { s.Wait(); close(ch) }()
	select {
	case <-ch:
	case <-time.After(30 * time.Second):
		t.Fatal("the cancelled ingest did not stop")
	}
}

// TestUpdateReportsProgress: update fetches a followed topic's new papers
// from the fake arXiv (real recorded records, dated in the last weeks) and
// ingests them, with progress on the client's token; the topic then holds
// them and a second update finds nothing new.
func TestUpdateReportsProgress(t *testing.T) {
	data := arxivtest.DataDir(t)
	now := time.Now().UTC()
	var entries []arxiv.Entry
	seen := map[string]bool{}
	for _, e := range arxivtest.RecordedEntries(t, data) {
		if !seen[e.ID] && e.Title != "" && e.Summary != "" && len(entries) < 6 {
			seen[e.ID] = true
			e.Version, e.Published = 1, now.Add(-time.Duration(len(entries)+1)*36*time.Hour)
			e.Updated = e.Published
			entries = append(entries, e)
		}
	}
	srv := arxivtest.NewServer(t, arxivtest.Options{DataDir: data, Entries: entries})
	dir := t.TempDir()
	lib, err := store.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := lib.AddTopic(context.Background(), store.Topic{Name: "testing", Query: "all:testing"}); err != nil {
		t.Fatal(err)
	}
	lib.Close()
	prog := newProgressLog()
	cs, _ := session(t, mcpserver.Options{Library: library.Config{Dir: dir, Arxiv: arxivOf(srv, -1)}}, &mcp.ClientOptions{ProgressNotificationHandler: prog.handler})
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "update", Meta: mcp.Meta{"progressToken": "up"},
		Arguments: map[string]any{"topic": []string{"testing"}, "abstracts_only": true, "window": "30d"}})
	if err != nil || res.IsError {
		t.Fatalf("update: %v %s", err, text(res))
	}
	var sum struct {
		Added  []string `json:"added"`
		Topics []struct {
			Topic   string `json:"topic"`
			Fetched int    `json:"fetched"`
		} `json:"topics"`
	}
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &sum); err != nil {
		t.Fatal(err)
	}
	if len(sum.Added) != len(entries) || len(sum.Topics) != 1 || sum.Topics[0].Topic != "testing" || sum.Topics[0].Fetched != len(entries) {
		t.Fatalf("update summary %s, want the %d papers added", b, len(entries))
	}
	notes := prog.all()
	if len(notes) < len(entries)+1 {
		t.Fatalf("%d progress notifications for %d papers", len(notes), len(entries))
	}
	for i, n := range notes {
		if n.ProgressToken != "up" || n.Message == "" || i > 0 && n.Progress <= notes[i-1].Progress {
			t.Errorf("notification %d: %+v after %+v", i, n, notes[max(i-1, 0)])
		}
	}
	var topics struct {
		Topics []struct {
			Papers     int     `json:"papers"`
			LastUpdate *string `json:"last_update"`
		} `json:"topics"`
	}
	call(t, cs, "list_topics", nil, &topics)
	if len(topics.Topics) != 1 || topics.Topics[0].Papers != len(entries) || topics.Topics[0].LastUpdate == nil {
		t.Errorf("the topic after its update: %+v", topics.Topics)
	}
	call(t, cs, "update", map[string]any{"topic": []string{"testing"}, "abstracts_only": true}, &sum)
	if len(sum.Added) != 0 {
		t.Errorf("a second update added %v", sum.Added)
	}
	failure(t, "an unknown topic", call(t, cs, "update", map[string]any{"topic": []string{"rl"}}, nil), `no topic "rl"`)
	failure(t, "a window ahead", call(t, cs, "update", map[string]any{"window": "2999-01-01"}, nil), "window must reach back")
}

// TestLibraryShared: the server takes the library's locks as any papers
// process does and holds none between calls. An ingest waits for a
// writer of another process rather than failing, and what another
// process (here a second server, as papers ingest would) adds meanwhile
// is seen by the next calls.
func TestLibraryShared(t *testing.T) {
	srv := fakeArxiv(t, arxivtest.Options{})
	dir := t.TempDir()
	a, _ := session(t, mcpserver.Options{Library: library.Config{Dir: dir, Arxiv: arxivOf(srv, -1)}}, nil)
	var rep struct {
		Added []string `json:"added"`
	}
	call(t, a, "ingest", map[string]any{"ids": []string{"2302.04761"}, "abstracts_only": true}, &rep)
	if len(rep.Added) != 1 {
		t.Fatalf("first ingest added %v", rep.Added)
	}

	// another process holds the write lock for a while
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, store.FileName)+"?_pragma=busy_timeout(10000)&_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec("CREATE TABLE held_by_another_process (x)"); err != nil {
		t.Fatal(err)
	}
	done := make(chan *mcp.CallToolResult, 1)
	go func() {
		res, err := a.CallTool(context.Background(), &mcp.CallToolParams{Name: "ingest", Arguments: map[string]any{"ids": []string{"2501.10120"}, "abstracts_only": true}})
		if err != nil {
			t.Errorf("ingest while locked: %v", err)
		}
		done <- res
	}()
	time.Sleep(300 * time.Millisecond) // the ingest reaches the lock
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	if res := <-done; res == nil || res.IsError {
		t.Fatalf("an ingest that waited for the lock failed: %s", text(res))
	}

	// a second process adds a paper: the first server's next calls see it
	rec := arxivtest.RecordedEntries(t, arxivtest.DataDir(t))[0]
	b, _ := session(t, mcpserver.Options{Library: library.Config{Dir: dir, Arxiv: arxivOf(srv, -1)}}, nil)
	call(t, b, "ingest", map[string]any{"ids": []string{rec.ID}, "abstracts_only": true}, &rep)
	if len(rep.Added) != 1 {
		t.Fatalf("the second server's ingest added %v", rep.Added)
	}
	var list struct {
		Papers []struct {
			ID string `json:"id"`
		} `json:"papers"`
	}
	call(t, a, "list_papers", nil, &list)
	if len(list.Papers) != 3 {
		t.Errorf("the first server lists %v, want the 3 papers", list.Papers)
	}
	var found struct {
		Passages []passage `json:"passages"`
	}
	call(t, a, "search", map[string]any{"query": rec.Title, "k": 1, "paper": []string{rec.ID}}, &found)
	if len(found.Passages) != 1 || found.Passages[0].ID != rec.ID {
		t.Errorf("the first server's search does not find what the second added: %+v", found.Passages)
	}
}

// TestIngestLocalPDFs: paths on the server's machine, a file and a folder
// of them; a path that is not there is the command line's error.
func TestIngestLocalPDFs(t *testing.T) {
	data := arxivtest.DataDir(t)
	folder := t.TempDir()
	for _, f := range []string{"adarefiner_naacl2024findings.pdf", "papermage_emnlp2023demo.pdf"} {
		b, err := os.ReadFile(filepath.Join(data, "pdfs", "papers", f))
		if err != nil {
			t.Fatalf("shared test data missing (../shared/data beside the repository): %v", err)
		}
		if err := os.WriteFile(filepath.Join(folder, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ingested := t.TempDir()
	cs, _ := session(t, mcpserver.Options{Library: library.Config{Dir: ingested, Arxiv: arxivOf(fakeArxiv(t, arxivtest.Options{}), -1)}, Allow: []string{folder}}, nil)
	var rep struct {
		Added  []string `json:"added"`
		Failed []any    `json:"failed"`
		Pages  int      `json:"pages"`
	}
	res := call(t, cs, "ingest", map[string]any{"paths": []string{folder}}, &rep)
	if res.IsError || len(rep.Added) != 2 || len(rep.Failed) != 0 || rep.Pages < 10 {
		t.Fatalf("ingest of a folder of 2 PDFs: %s", text(res))
	}
	for _, id := range rep.Added {
		if !strings.HasPrefix(id, "pdf:") {
			t.Errorf("a local PDF's id %q", id)
		}
	}
	var found struct {
		Passages []passage `json:"passages"`
	}
	call(t, cs, "search", map[string]any{"query": "PaperMage toolkit for visually-rich scientific documents", "k": 1}, &found)
	if len(found.Passages) != 1 || found.Passages[0].Pages == "" && found.Passages[0].Section == "" {
		t.Errorf("search after a local ingest: %+v", found.Passages)
	}
	// local papers are resources too, on this server and on one started
	// later on the library (which lists them as it starts)
	dir := ""
	for _, c := range []*mcp.ClientSession{cs, nil} {
		if c == nil {
			c, _ = session(t, mcpserver.Options{Library: library.Config{Dir: dir}}, nil)
		}
		var uris []string
		for r, err := range c.Resources(context.Background(), nil) {
			if err != nil {
				t.Fatal(err)
			}
			uris = append(uris, r.URI)
		}
		if len(uris) != 2 || !strings.HasPrefix(uris[0], "papers:///pdf:") {
			t.Fatalf("resources %v, want the 2 local PDFs as papers:///pdf:...", uris)
		}
		rr, err := c.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uris[0]})
		if err != nil || len(rr.Contents) != 1 || !strings.HasPrefix(rr.Contents[0].Text, "# ") || !strings.Contains(rr.Contents[0].Text, "[page 2]") {
			t.Fatalf("read %s: %v %+v", uris[0], err, rr)
		}
		dir = ingested
	}
	res = call(t, cs, "ingest", map[string]any{"paths": []string{filepath.Join(folder, "none.pdf")}}, &rep)
	if !res.IsError && len(rep.Failed) == 0 {
		t.Errorf("a missing file neither failed nor was reported: %s", text(res))
	}
	if res.IsError && !strings.Contains(text(res), "none.pdf") {
		t.Errorf("the error does not name the missing file: %s", text(res))
	}
}

// TestIngestKeepsTheLibraryChunker: a library chunked 300/50 by papers
// ingest stays 300/50 after an MCP ingest, and the paper the tool adds is
// cut 300/50 too (an MCP ingest once recorded and used the defaults,
// 180/30).
func TestIngestKeepsTheLibraryChunker(t *testing.T) {
	dir := t.TempDir()
	srv := fakeArxiv(t, arxivtest.Options{})
	ctx := context.Background()
	size, overlap := 300, 50
	cli := library.New(library.Config{Dir: dir, Arxiv: arxivOf(srv, -1)})
	if _, err := cli.Ingest(ctx, ingest.Sources{IDs: []string{"2302.04761"}}, library.IngestOptions{ChunkSize: &size, ChunkOverlap: &overlap}); err != nil {
		t.Fatal(err)
	}
	cli.Close()

	cs, _ := session(t, mcpserver.Options{Library: library.Config{Dir: dir, Arxiv: arxivOf(srv, -1)}}, nil)
	var rep struct {
		Added []string `json:"added"`
	}
	if res := call(t, cs, "ingest", map[string]any{"ids": []string{"2501.10120"}}, &rep); res.IsError || len(rep.Added) != 1 {
		t.Fatalf("ingest: %s", text(res))
	}
	lib, err := store.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer lib.Close()
	m, err := lib.Manifest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := chunk.Options{Size: size, Overlap: overlap}.Version()
	if m.Chunker != want {
		t.Errorf("the manifest records chunker %q after the MCP ingest, want %q", m.Chunker, want)
	}
	for _, id := range []string{"2302.04761", "2501.10120"} {
		chunks, err := lib.Chunks(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		var words []int
		for _, c := range chunks[1:] { // chunk 0 is the title and abstract
			words = append(words, len(strings.Fields(c.Text)))
		}
		slices.Sort(words)
		// Measured: 2302.04761 63 body chunks, longest 298 words;
		// 2501.10120 57, longest 294. Cut 180/30, none passes 180.
		if long := words[len(words)-1]; long > size || long <= chunk.Defaults.Size {
			t.Errorf("%s: the longest chunk has %d words: not cut %d/%d", id, long, size, overlap)
		}
	}
}

// TestReadOnlyWritesNothing: a read-only server answers every reading
// tool on a library whose search index and paper vectors are gone
// without writing a byte in the library's directory (it rebuilt index/
// and papers.vec), and refuses a library of an older schema rather than
// migrate it, saying how.
func TestReadOnlyWritesNothing(t *testing.T) {
	dir := t.TempDir()
	localfiletest.CopyTree(t, testLibrary(t), dir)
	os.RemoveAll(filepath.Join(dir, store.IndexDir))
	os.Remove(filepath.Join(dir, store.PaperVectorsName))
	before := snapshotDir(t, dir)
	cs, _ := session(t, mcpserver.Options{ReadOnly: true, Library: library.Config{Dir: dir}}, nil)
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"list_papers", nil}, {"search", map[string]any{"query": "tool use"}}, {"search", map[string]any{"query": "tool use", "mode": "dense"}},
		{"ask", map[string]any{"question": "How does Toolformer decide which API calls to keep?"}},
		{"get_paper", map[string]any{"id": "2302.04761"}}, {"read_paper", map[string]any{"id": "2302.04761"}},
		{"related", map[string]any{"id": "2302.04761"}}, {"list_topics", nil}, {"momentum", map[string]any{"offline": true}},
		{"digest", map[string]any{"topic": "tools", "since": "5y"}}, {"export_bibtex", map[string]any{"ids": []string{"2302.04761"}}},
	} {
		if res := call(t, cs, c.tool, c.args, nil); res.IsError {
			t.Errorf("%s on a read-only server: %s", c.tool, text(res))
		}
	}
	if after := snapshotDir(t, dir); after != before {
		t.Errorf("a read-only server changed the library's directory:\nbefore %s\nafter  %s", before, after)
	}

	// an older schema is not migrated
	old := t.TempDir()
	localfiletest.CopyTree(t, testLibrary(t), old)
	db, err := sql.Open("sqlite", filepath.Join(old, store.FileName))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("PRAGMA user_version = 4"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	before = snapshotDir(t, old)
	ro, _ := session(t, mcpserver.Options{ReadOnly: true, Library: library.Config{Dir: old}}, nil)
	failure(t, "a read-only server on an older schema", call(t, ro, "list_papers", nil, nil), "must be migrated", "without --read-only")
	if after := snapshotDir(t, old); after != before {
		t.Errorf("a read-only server changed a library of an older schema:\nbefore %s\nafter  %s", before, after)
	}
}

// snapshotDir is every file under dir with its size and SHA-256, but
// SQLite's shared-memory file (library.db-shm, which every reader of a
// WAL database maps and marks) and an empty write-ahead log (which a
// reader opens when there is none).
func snapshotDir(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(p, "-shm") {
			return err
		}
		data, _ := os.ReadFile(p)
		if strings.HasSuffix(p, "-wal") && len(data) == 0 {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		fmt.Fprintf(&b, "%s %d %x; ", rel, len(data), sha256.Sum256(data))
		return nil
	})
	return b.String()
}
