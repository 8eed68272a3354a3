package mcpserver_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/papers-cli/papers/internal/testmain"
	"github.com/papers-cli/papers/library"
	"github.com/papers-cli/papers/mcpserver"
)

// rawPeer speaks to a server over StdioTransport with bytes: it writes
// lines and reads the server's, one JSON value per line.
type rawPeer struct {
	t     testing.TB
	w     *io.PipeWriter
	lines chan []byte
	done  chan error
}

// rawServer runs a server on an empty library over StdioTransport and
// initializes a session on it with raw lines (protocol 2025-06-18).
func rawServer(t testing.TB) *rawPeer {
	return rawServerWith(t, mcpserver.Options{Library: library.Config{Dir: t.TempDir()}}, `{}`)
}

// rawServerWith is rawServer with opts and the client's capabilities
// (JSON).
func rawServerWith(t testing.TB, opts mcpserver.Options, capabilities string) *rawPeer {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	s := mcpserver.New(opts)
	p := &rawPeer{t: t, w: inW, lines: make(chan []byte, 16), done: make(chan error, 1)}
	go func() {
		p.done <- s.Run(context.Background(), &mcpserver.StdioTransport{R: inR, W: outW})
		outW.Close()
	}()
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			p.lines <- append([]byte(nil), sc.Bytes()...)
		}
		close(p.lines)
	}()
	t.Cleanup(func() {
		inW.Close()
		select {
		case err := <-p.done:
			if err != nil {
				t.Errorf("Run: %v", err)
			}
		case <-time.After(30 * time.Second):
			t.Error("the server did not end when its input ended")
		}
		s.Close()
	})
	p.send([]byte(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":` + capabilities + `,"clientInfo":{"name":"raw","version":"1"}}}`))
	p.answer(`"init"`)
	p.send([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	return p
}

func (p *rawPeer) send(b []byte) {
	p.t.Helper()
	if _, err := p.w.Write(append(b[:len(b):len(b)], '\n')); err != nil {
		p.t.Fatalf("write: %v", err)
	}
}

// next returns the server's next line, decoded.
func (p *rawPeer) next() map[string]json.RawMessage {
	p.t.Helper()
	select {
	case l, ok := <-p.lines:
		if !ok {
			p.t.Fatal("the server's output ended: the server stopped")
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(l, &m); err != nil {
			var batch []map[string]json.RawMessage
			if json.Unmarshal(l, &batch) != nil {
				p.t.Fatalf("the server wrote a line that is not JSON-RPC: %q", l)
			}
			return map[string]json.RawMessage{"batch": l}
		}
		if string(m["jsonrpc"]) != `"2.0"` {
			p.t.Fatalf("the server wrote a message without \"jsonrpc\": \"2.0\": %s", l)
		}
		return m
	case <-time.After(30 * time.Second):
		p.t.Fatal("no answer from the server within 30 s")
	}
	return nil
}

// answer reads lines up to the response to id (JSON, as written) and
// returns it; notifications and other responses before it are passed.
func (p *rawPeer) answer(id string) map[string]json.RawMessage {
	p.t.Helper()
	for {
		m := p.next()
		if string(m["id"]) == id {
			return m
		}
	}
}

// toolsList asks for the tools with id and checks the server lists them.
func (p *rawPeer) toolsList(id string) {
	p.t.Helper()
	p.send([]byte(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/list"}`))
	m := p.answer(id)
	var res struct {
		Tools []struct{ Name string } `json:"tools"`
	}
	if err := json.Unmarshal(m["result"], &res); err != nil || len(res.Tools) < 10 {
		p.t.Fatalf("tools/list after a malformed message: %s", m["result"])
	}
}

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// TestStdioAnswersMalformedMessages: every malformed line of the issue
// (not JSON, null, [], a JSON-RPC 1.0 message, an object as id, NUL bytes,
// a line over 16 MiB) gets the JSON-RPC error the specification gives, and
// the server goes on answering. With the SDK's IOTransport each of them
// ended papers mcp.
func TestStdioAnswersMalformedMessages(t *testing.T) {
	p := rawServer(t)
	for i, c := range []struct {
		name, line string
		id         string // the id the error must carry
		code       int
		says       string
	}{
		{"not JSON", `hello`, "null", -32700, "Parse error"},
		{"truncated", `{"jsonrpc":"2.0","id":1,"method":"tools/li`, "null", -32700, "Parse error"},
		{"NUL bytes", "\x00\x00\x00", "null", -32700, "Parse error"},
		{"NUL after a message", `{"jsonrpc":"2.0","id":2,"method":"ping"}` + "\x00", "null", -32700, "Parse error"},
		{"null", `null`, "null", -32600, "Invalid Request"},
		{"a number", `42`, "null", -32600, "Invalid Request"},
		{"empty batch", `[]`, "null", -32600, "empty batch"},
		{"JSON-RPC 1.0", `{"jsonrpc":"1.0","id":5,"method":"tools/list"}`, "5", -32600, `"jsonrpc" is "1.0", not "2.0"`},
		{"no version", `{"id":"v","method":"tools/list"}`, `"v"`, -32600, `"jsonrpc": "2.0" is missing`},
		{"object as id", `{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}`, "null", -32600, "neither a string nor a number"},
		{"array as id", `{"jsonrpc":"2.0","id":[1],"method":"tools/list"}`, "null", -32600, "neither a string nor a number"},
		{"method not a string", `{"jsonrpc":"2.0","id":6,"method":7}`, "6", -32600, "the method is not a string"},
		{"empty method", `{"jsonrpc":"2.0","id":8,"method":""}`, "8", -32600, "the method is empty"},
		{"neither request nor response", `{"jsonrpc":"2.0"}`, "null", -32600, "Invalid Request"},
		{"line over 16 MiB", `{"jsonrpc":"2.0","id":9,"method":"ping","params":{"x":"` + strings.Repeat("x", 16<<20) + `"}}`, "null", -32600, "longer than 16 MiB"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p.t = t
			p.send([]byte(c.line))
			m := p.next()
			var e rpcError
			if err := json.Unmarshal(m["error"], &e); err != nil || e.Code != c.code || !strings.Contains(e.Message, c.says) || string(m["id"]) != c.id {
				t.Errorf("reply %v, want error %d saying %q with id %s", m, c.code, c.says, c.id)
			}
			p.toolsList(fmt.Sprintf(`"after-%d"`, i))
		})
	}
	p.t = t

	// A batch answers each request in one array, with an error in place of
	// each malformed element.
	p.send([]byte(`[{"jsonrpc":"2.0","id":"b1","method":"ping"},7,{"jsonrpc":"2.0","id":"b2","method":"ping"}]`))
	m := p.next()
	var batch []struct {
		ID    any             `json:"id"`
		Error *rpcError       `json:"error"`
		Res   json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal(m["batch"], &batch); err != nil || len(batch) != 3 ||
		batch[0].ID != "b1" || batch[0].Res == nil || batch[1].ID != nil || batch[1].Error == nil || batch[1].Error.Code != -32600 || batch[2].ID != "b2" || batch[2].Res == nil {
		t.Errorf("batch reply %s", m["batch"])
	}
	p.send([]byte(`[1,2]`))
	if err := json.Unmarshal(p.next()["batch"], &batch); err != nil || len(batch) != 2 || batch[0].Error == nil || batch[1].Error.Code != -32600 {
		t.Errorf("a batch of two numbers: %v", batch)
	}
	p.toolsList(`"end"`)
}

// TestStdioSurvivesRandomMalformedMessages sends 1,000 malformed messages
// made at random from valid ones (cut short, bytes flipped, inserted or
// dropped, values of the wrong type, raw noise), each followed by a valid
// tools/list that must be answered; every line the server writes must be
// JSON-RPC 2.0, and a line that is not JSON must get a parse error. Under
// the race detector (a tools/list, 37 KB of schemas, takes ~100 ms there)
// it sends the first 100 of the same messages, unless PAPERS_FULL_TESTS=1.
func TestStdioSurvivesRandomMalformedMessages(t *testing.T) {
	n := 1000
	if testmain.Race && !testmain.Full {
		n = 100
	}
	p := rawServer(t)
	rng := rand.New(rand.NewPCG(27, 1000))
	valid := []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":"x","method":"ping"}`,
		`{"jsonrpc":"2.0","id":3,"method":"resources/list","params":{}}`,
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}`,
		`[{"jsonrpc":"2.0","id":4,"method":"ping"},{"jsonrpc":"2.0","id":5,"method":"prompts/list"}]`,
		`{"jsonrpc":"2.0","id":6,"result":{}}`,
	}
	values := []string{`null`, `true`, `0`, `-1.5e300`, `""`, `"\u0000"`, `[]`, `{}`, `[[[[[[]]]]]]`, `{"a":{"b":{"c":[1,2,3]}}}`, `"` + strings.Repeat("é", 50) + `"`}
	parseErrors := 0
	for i := range n {
		b := []byte(valid[rng.IntN(len(valid))])
		switch rng.IntN(7) {
		case 0: // cut short
			b = b[:rng.IntN(len(b))]
		case 1: // bytes flipped
			for range 1 + rng.IntN(3) {
				b[rng.IntN(len(b))] ^= byte(1 + rng.IntN(255))
			}
		case 2: // bytes inserted
			k := rng.IntN(len(b))
			noise := make([]byte, 1+rng.IntN(8))
			for j := range noise {
				noise[j] = byte(rng.IntN(256))
			}
			b = append(b[:k:k], append(noise, b[k:]...)...)
		case 3: // bytes dropped
			k := rng.IntN(len(b))
			b = append(b[:k:k], b[min(len(b), k+1+rng.IntN(4)):]...)
		case 4: // a member's value of the wrong type
			for _, key := range []string{`"jsonrpc":`, `"id":`, `"method":`, `"params":`} {
				if k := bytes.Index(b, []byte(key)); k >= 0 && rng.IntN(2) == 0 {
					k += len(key)
					end := k + bytes.IndexAny(b[k:], ",}")
					b = append(b[:k:k], append([]byte(values[rng.IntN(len(values))]), b[end:]...)...)
				}
			}
		case 5: // a bare value
			b = []byte(values[rng.IntN(len(values))])
		case 6: // noise
			b = make([]byte, 1+rng.IntN(200))
			for j := range b {
				b[j] = byte(rng.IntN(256))
			}
		}
		b = bytes.ReplaceAll(b, []byte("\n"), []byte(" "))
		if len(bytes.TrimSpace(b)) > 0 && !json.Valid(bytes.TrimSpace(b)) {
			parseErrors++
		}
		p.send(b)
		id := fmt.Sprintf(`"probe-%d"`, i)
		p.send([]byte(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/list"}`))
		for {
			m := p.next()
			if string(m["id"]) == id {
				if m["result"] == nil {
					t.Fatalf("message %d (%q): tools/list got %v", i, b, m)
				}
				break
			}
			var e rpcError
			if json.Unmarshal(m["error"], &e) == nil && e.Code == -32700 {
				parseErrors--
			}
		}
	}
	if parseErrors != 0 {
		t.Errorf("%d lines that were not JSON got no parse error (or more parse errors than such lines)", parseErrors)
	}
}
