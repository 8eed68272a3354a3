package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/papers-cli/papers/ingest/arxiv/arxivtest"
)

// TestMCPWithTheTypeScriptClient drives papers mcp end to end from the
// official TypeScript SDK's client (testdata/mcpclient/client.mjs): it
// spawns this test binary as papers mcp on an empty library, configured
// from what papers mcp --print-config printed, lists the tools (and
// counts their tokens), calls each, checks their results' shapes, content
// and budgets, and cancels a long ingest against the fake arXiv. .ci/run
// installs the client with npm ci.
func TestMCPWithTheTypeScriptClient(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node is needed for the MCP end-to-end test (node 20 or later): %v", err)
	}
	client, err := filepath.Abs(filepath.Join("testdata", "mcpclient"))
	if err != nil {
		t.Fatal(err)
	}
	installMCPClient(t, client)
	data := sharedData(t)
	opts := arxivtest.Options{DataDir: data, PDFs: map[string]string{"2302.04761": filepath.Join(data, "pdfs", "papers", scriptPapers["2302.04761"])}}
	// every recorded paper answers any search (a long ingest), and Toolformer with its PDF
	opts.Entries = append(arxivtest.RecordedEntries(t, data), referenceEntry(func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}, data, "2302.04761", time.Date(2025, 1, 20, 12, 0, 0, 0, time.UTC)))
	srv := arxivtest.NewServer(t, opts)

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	// the client configures itself as a user would: from papers mcp
	// --print-config, which names this binary and the library
	home := t.TempDir()
	printed := exec.CommandContext(ctx, os.Args[0], "mcp", "--print-config", "claude")
	printed.Env = append(os.Environ(), "PAPERS_AS_MAIN=1", "PAPERS_HOME="+home)
	config, err := printed.Output()
	if err != nil {
		t.Fatalf("papers mcp --print-config claude: %v", err)
	}
	cmd := exec.CommandContext(ctx, node, "client.mjs")
	cmd.Dir = client
	cmd.Env = append(os.Environ(),
		"PAPERS_MCP_CONFIG="+string(config), "PAPERS_AS_MAIN=1", // this binary is papers
		"PAPERS_ARXIV_API_URL="+srv.APIURL(), "PAPERS_ARXIV_PDF_URL="+srv.PDFURL(),
		"PAPERS_ARXIV_DELAY=300ms", // paced, so that the long ingest is long
		"OPENAI_API_KEY=", "OPENAI_BASE_URL=", "PAPERS_LLM=",
	)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	if err != nil {
		t.Fatalf("the TypeScript client failed: %v\n--- stdout\n%s\n--- stderr (the client's and papers mcp's)\n%s", err, stdout.String(), stderr.String())
	}
	t.Logf("client saw: %s", strings.TrimSpace(stdout.String()))
	if !strings.Contains(stderr.String(), "papers mcp: added 2302.04761") {
		t.Errorf("papers mcp's notes did not reach stderr:\n%s", stderr.String())
	}
	// the cancelled ingest stopped: arXiv hears nothing more once the client is gone
	n := len(srv.Requests())
	time.Sleep(time.Second)
	if m := len(srv.Requests()); m != n {
		t.Errorf("%d requests to arXiv after the client ended", m-n)
	}
}

// installMCPClient makes sure the TypeScript client's packages are in
// dir/node_modules: .ci/run installs them before the tests, and a newcomer's
// plain go test installs them here, from package-lock.json, with npm ci.
func installMCPClient(t *testing.T, dir string) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk", "package.json")); err == nil {
		return
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		t.Fatalf("the TypeScript MCP client is not installed and npm is not there to install it (install nodejs and npm, then run npm ci in %s): %v", dir, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	install := exec.CommandContext(ctx, npm, "ci", "--no-audit", "--no-fund", "--loglevel=error")
	install.Dir = dir
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("npm ci in %s (installing the TypeScript MCP client from the npm registry) failed: %v\n%s", dir, err, out)
	}
}
