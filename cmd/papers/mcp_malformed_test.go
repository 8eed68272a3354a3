package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestMCPMalformedLinesWithTheSDKClient runs papers mcp as a process and
// talks to it with the Go SDK's client, while the test writes malformed
// lines between the client's messages on the same stdin: each gets its
// JSON-RPC error (kept from the client, which would take an error with
// id null for a broken connection), and the client's next tools/list is
// answered, the server still up. Before StdioTransport, the first of them
// ended papers mcp with exit 1.
func TestMCPMalformedLinesWithTheSDKClient(t *testing.T) {
	t.Parallel()
	c := plainCmd(t, t.TempDir(), "mcp")
	stdin, err := c.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := c.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	c.Stderr = &stderr
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	in := &lockedWriter{w: stdin}
	// the server's lines: errors to the test's raw lines (id null, or an
	// id "raw-...") to errs, the rest to the client
	errs := make(chan string, 16)
	toClient, fromServer := io.Pipe()
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			l := sc.Text()
			if strings.Contains(l, `"id":null`) || strings.Contains(l, `"id":"raw-`) {
				errs <- l
				continue
			}
			fromServer.Write([]byte(l + "\n"))
		}
		fromServer.Close()
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "papers-test", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.IOTransport{Reader: toClient, Writer: in}, nil)
	if err != nil {
		t.Fatalf("connect: %v\n%s", err, stderr.String())
	}
	for _, m := range []struct{ name, line, want string }{
		{"not JSON", "{oops", `"code":-32700`},
		{"null", "null", `"code":-32600`},
		{"empty batch", "[]", `"code":-32600`},
		{"JSON-RPC 1.0", `{"jsonrpc":"1.0","id":"raw-1","method":"tools/list"}`, `"id":"raw-1","error":{"code":-32600`},
		{"object as id", `{"jsonrpc":"2.0","id":{"x":1},"method":"tools/list"}`, `"code":-32600`},
		{"NUL bytes", "\x00\x00", `"code":-32700`},
		{"over 16 MiB", `"` + strings.Repeat("a", 17<<20) + `"`, `longer than 16 MiB`},
	} {
		if _, err := in.Write([]byte(m.line + "\n")); err != nil {
			t.Fatalf("%s: write: %v (papers mcp ended?)\n%s", m.name, err, stderr.String())
		}
		select {
		case l := <-errs:
			if !strings.Contains(l, m.want) {
				t.Errorf("%s: reply %s, want %s", m.name, l, m.want)
			}
		case <-time.After(time.Minute):
			t.Fatalf("%s: no reply\n%s", m.name, stderr.String())
		}
		res, err := cs.ListTools(ctx, nil)
		if err != nil || len(res.Tools) < 10 {
			t.Fatalf("%s: tools/list after it: %v\n%s", m.name, err, stderr.String())
		}
	}
	cs.Close()
	stdin.Close()
	if err := c.Wait(); err != nil {
		t.Errorf("papers mcp exited with %v after the client left, want 0\n%s", err, stderr.String())
	}
}

// lockedWriter makes the client's messages and the test's lines whole
// lines of one stream.
type lockedWriter struct {
	mu sync.Mutex
	w  io.WriteCloser
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (l *lockedWriter) Close() error { return l.w.Close() }
