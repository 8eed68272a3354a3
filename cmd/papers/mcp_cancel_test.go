package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/papers-cli/papers/ingest/pdfproc"
)

// extractChildren are the PDF readers (pdfproc) whose parent is pid.
func extractChildren(pid int) []int {
	var kids []int
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		stat, err := os.ReadFile(filepath.Join(d, "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...
		f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
		if len(f) < 2 || f[1] != strconv.Itoa(pid) {
			continue
		}
		if cmd, _ := os.ReadFile(filepath.Join(d, "cmdline")); bytes.Contains(cmd, []byte(pdfproc.Arg)) {
			n, _ := strconv.Atoi(filepath.Base(d))
			kids = append(kids, n)
		}
	}
	return kids
}

// TestMCPCancelFreesWorkAndWrite: a client cancels an ingest while its
// PDF (619 pages) is being read: the reading process is gone at once, and
// the server's next ingest runs without waiting for the cancelled one.
// Before, a call that read a file for ever kept the server's one write,
// and every later ingest or update waited behind it.
func TestMCPCancelFreesWorkAndWrite(t *testing.T) {
	t.Parallel()
	data := sharedData(t)
	dir := t.TempDir()
	big := filepath.Join(dir, "big.pdf")
	small := filepath.Join(dir, "small.pdf")
	copyFile(t, filepath.Join(data, "pdfs", "awkward", "DA-619p_large_pagecount.pdf"), big) // copies: links would lead out of --allow
	copyFile(t, filepath.Join(data, "pdfs", "papers", "papermage_emnlp2023demo.pdf"), small)
	c := plainCmd(t, t.TempDir(), "mcp", "--allow", dir)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "papers-test", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: c}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	pid := c.Process.Pid

	call, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(call, &mcp.CallToolParams{Name: "ingest", Arguments: map[string]any{"paths": []string{big}}})
		done <- err
	}()
	deadline := time.Now().Add(30 * time.Second)
	for len(extractChildren(pid)) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the ingest never started reading its PDF")
		}
		time.Sleep(20 * time.Millisecond)
	}
	stop()
	<-done
	for len(extractChildren(pid)) > 0 {
		if time.Now().After(deadline) {
			t.Fatal("the cancelled ingest's PDF reader still runs")
		}
		time.Sleep(20 * time.Millisecond)
	}
	start := time.Now()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "ingest", Arguments: map[string]any{"paths": []string{small}}})
	if err != nil || res.IsError {
		t.Fatalf("the ingest after a cancelled one: %v %v", err, res)
	}
	t.Logf("the next ingest took %v", time.Since(start).Round(time.Millisecond))
}
