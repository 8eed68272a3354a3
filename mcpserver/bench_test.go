package mcpserver_test

import (
	"context"
	"os"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/papers-cli/papers/library"
	"github.com/papers-cli/papers/mcpserver"
	"github.com/papers-cli/papers/retrieve"
	"github.com/papers-cli/papers/store"
)

// BenchmarkSearchOverhead measures what serving a search over MCP adds to
// the search itself: "direct" is the call papers search makes
// (retrieve.Search on the open library), "tool" the same search as a tools/call
// through the SDK's client and in-memory transport (JSON both ways, schema
// validation, the result as structured content and text). The library is
// $PAPERS_BENCH_LIBRARY (e.g. a 100k-chunk library, see BENCHMARKS.md), or
// the tests' library of two real papers.
//
//	go test ./mcpserver -run '^$' -bench SearchOverhead -benchtime 200x
//	PAPERS_BENCH_LIBRARY=/tmp/lib100k go test ./mcpserver -run '^$' -bench SearchOverhead
func BenchmarkSearchOverhead(b *testing.B) {
	dir := os.Getenv("PAPERS_BENCH_LIBRARY")
	if dir == "" {
		dir = testLibrary(b)
	}
	const query = "language models teach themselves to use tools via API calls"
	ctx := context.Background()
	b.Run("direct", func(b *testing.B) {
		lib, err := store.Open(ctx, dir)
		if err != nil {
			b.Fatal(err)
		}
		defer lib.Close()
		opts := retrieve.SearchOptions{Options: retrieve.Options{K: 10, PerPaper: 3}}
		if _, _, err := retrieve.Search(ctx, lib, query, opts); err != nil { // open the index
			b.Fatal(err)
		}
		b.ReportAllocs()
		b.ResetTimer()
		for range b.N {
			if ps, _, err := retrieve.Search(ctx, lib, query, opts); err != nil || len(ps) == 0 {
				b.Fatalf("search: %v, %d passages", err, len(ps))
			}
		}
	})
	b.Run("tool", func(b *testing.B) {
		cs, _ := session(b, mcpserver.Options{Library: library.Config{Dir: dir}}, nil)
		params := &mcp.CallToolParams{Name: "search", Arguments: map[string]any{"query": query, "k": 10}}
		if res, err := cs.CallTool(ctx, params); err != nil || res.IsError {
			b.Fatalf("search: %v %s", err, text(res))
		}
		b.ReportAllocs()
		b.ResetTimer()
		for range b.N {
			if res, err := cs.CallTool(ctx, params); err != nil || res.IsError {
				b.Fatalf("search: %v %s", err, text(res))
			}
		}
	})
}
