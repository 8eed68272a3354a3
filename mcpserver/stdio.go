package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxLineBytes bounds one message of StdioTransport: a longer line is
// answered with an error and skipped, not buffered.
const MaxLineBytes = 16 << 20

// StdioTransport is the transport of papers mcp: JSON-RPC messages, one
// per line, read from R and written to W, as the MCP specification's stdio
// transport has them. Unlike the SDK's IOTransport, which ends the
// session at the first message it cannot decode, it answers every
// malformed message with the JSON-RPC error the specification gives and
// reads on:
//
//   - a line that is not JSON (NUL bytes, a truncated object, text): a
//     parse error, -32700, with id null;
//   - JSON that is not a request, notification or response (null, a
//     number, [], an object without "jsonrpc": "2.0", an id that is an
//     object or an array, a method that is not a string): an invalid
//     request, -32600, with the request's id when it has a usable one;
//   - a line over MaxLineBytes: an invalid request, -32600, naming the
//     limit, and the line is skipped to its end;
//   - a batch (an array) answers each of its requests in one array, an
//     error in place of each malformed element, as JSON-RPC 2.0 has it.
//
// Blank lines are skipped. A cancelled request gets no response (see
// quietCancels, which Server.Run puts around any transport).
type StdioTransport struct {
	R io.Reader
	W io.Writer
	// MaxLine overrides MaxLineBytes (tests).
	MaxLine int
}

// Connect implements mcp.Transport.
func (t *StdioTransport) Connect(context.Context) (mcp.Connection, error) {
	max := t.MaxLine
	if max <= 0 {
		max = MaxLineBytes
	}
	c := &stdioConn{w: t.W, lines: make(chan line), closed: make(chan struct{}), batches: map[jsonrpc.ID]*batch{}}
	go c.readLines(t.R, max)
	return c, nil
}

// line is one line read, or the error that ended the input.
type line struct {
	b       []byte
	tooLong bool
	err     error
}

type stdioConn struct {
	w     io.Writer
	wmu   sync.Mutex
	lines chan line

	queue []jsonrpc.Message // the rest of a batch, read before the next line

	mu      sync.Mutex
	batches map[jsonrpc.ID]*batch // the batch each request of one belongs to

	closeOnce sync.Once
	closed    chan struct{}
}

// batch gathers the responses to the requests of one batch, to be written
// as one array when the last is in.
type batch struct {
	pending   int
	responses []json.RawMessage // in order; errors for malformed elements first filled in
	slot      map[jsonrpc.ID]int
}

// readLines sends the lines of r to c.lines until r ends or c is closed.
// A line longer than max is sent as tooLong, without its bytes.
func (c *stdioConn) readLines(r io.Reader, max int) {
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		var buf []byte
		tooLong := false
		var err error
		for {
			var frag []byte
			frag, err = br.ReadSlice('\n')
			if !tooLong {
				if len(buf)+len(frag) > max+1 { // +1: the newline
					tooLong, buf = true, nil
				} else {
					buf = append(buf, frag...)
				}
			}
			if err != bufio.ErrBufferFull {
				break
			}
		}
		if tooLong || len(buf) > 0 {
			select {
			case c.lines <- line{b: buf, tooLong: tooLong}:
			case <-c.closed:
				return
			}
		}
		if err != nil {
			select {
			case c.lines <- line{err: err}:
			case <-c.closed:
			}
			return
		}
	}
}

func (c *stdioConn) SessionID() string { return "" }

// Read returns the next well-formed message, answering the malformed ones
// it reads past.
func (c *stdioConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		if len(c.queue) > 0 {
			m := c.queue[0]
			c.queue = c.queue[1:]
			return m, nil
		}
		var l line
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-c.closed:
			return nil, io.EOF
		case l = <-c.lines:
		}
		if l.err != nil {
			return nil, l.err
		}
		if l.tooLong {
			c.reply(errorReply(nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("Invalid Request: the message is longer than %d MiB, the most papers mcp reads", MaxLineBytes>>20)))
			continue
		}
		b := bytes.TrimSpace(l.b)
		if len(b) == 0 {
			continue
		}
		if !json.Valid(b) {
			c.reply(errorReply(nil, jsonrpc.CodeParseError, "Parse error: the line is not JSON"))
			continue
		}
		if b[0] == '[' {
			c.readBatch(b)
			continue
		}
		m, errResp := decode(b)
		if errResp != nil {
			c.reply(errResp)
			continue
		}
		return m, nil
	}
}

// readBatch queues the well-formed messages of a batch and sets up the
// array of its responses; a batch with nothing to answer but errors is
// answered at once.
func (c *stdioConn) readBatch(b []byte) {
	var elems []json.RawMessage
	if err := json.Unmarshal(b, &elems); err != nil || len(elems) == 0 {
		c.reply(errorReply(nil, jsonrpc.CodeInvalidRequest, "Invalid Request: an empty batch"))
		return
	}
	bt := &batch{slot: map[jsonrpc.ID]int{}}
	var msgs []jsonrpc.Message
	for _, e := range elems {
		m, errResp := decode(e)
		if errResp != nil {
			bt.responses = append(bt.responses, errResp)
			continue
		}
		if req, ok := m.(*jsonrpc.Request); ok && req.IsCall() {
			if _, dup := bt.slot[req.ID]; dup || c.inBatch(req.ID) {
				bt.responses = append(bt.responses, errorReply(req.ID.Raw(), jsonrpc.CodeInvalidRequest, "Invalid Request: the id is already in use"))
				continue
			}
			bt.slot[req.ID] = len(bt.responses)
			bt.responses = append(bt.responses, nil)
			bt.pending++
		}
		msgs = append(msgs, m)
	}
	if bt.pending == 0 {
		if len(bt.responses) > 0 {
			c.reply(joinArray(bt.responses))
		}
	} else {
		c.mu.Lock()
		for id := range bt.slot {
			c.batches[id] = bt
		}
		c.mu.Unlock()
	}
	c.queue = append(c.queue, msgs...)
}

func (c *stdioConn) inBatch(id jsonrpc.ID) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.batches[id]
	return ok
}

// decode reads one message; a malformed one gives the error response to
// send instead.
func decode(b []byte) (jsonrpc.Message, json.RawMessage) {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || b[0] != '{' {
		return nil, errorReply(nil, jsonrpc.CodeInvalidRequest, "Invalid Request: a message is a JSON object")
	}
	m, err := jsonrpc.DecodeMessage(b)
	if err != nil {
		return nil, errorReply(usableID(b), jsonrpc.CodeInvalidRequest, "Invalid Request: "+reason(b, err))
	}
	if req, ok := m.(*jsonrpc.Request); ok && req.Method == "" {
		return nil, errorReply(usableID(b), jsonrpc.CodeInvalidRequest, "Invalid Request: the method is empty")
	}
	return m, nil
}

// reason says what is wrong with a message DecodeMessage refused.
func reason(b []byte, err error) string {
	var m struct {
		Version *string         `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  json.RawMessage `json:"method"`
	}
	if json.Unmarshal(b, &m) != nil {
		return err.Error()
	}
	switch {
	case m.Version == nil:
		return `"jsonrpc": "2.0" is missing`
	case *m.Version != "2.0":
		return fmt.Sprintf(`"jsonrpc" is %q, not "2.0"`, *m.Version)
	case len(m.ID) > 0 && (m.ID[0] == '{' || m.ID[0] == '[' || m.ID[0] == 't' || m.ID[0] == 'f'):
		return "the id is neither a string nor a number"
	case len(m.Method) > 0 && m.Method[0] != '"':
		return "the method is not a string"
	case len(m.Method) == 0:
		return "neither a request (no method) nor a response (no id)"
	}
	return err.Error()
}

// usableID is the message's id when it is a string or a number, else nil.
func usableID(b []byte) any {
	var m struct {
		ID any `json:"id"`
	}
	if json.Unmarshal(b, &m) != nil {
		return nil
	}
	switch v := m.ID.(type) {
	case string:
		return v
	case float64:
		return v
	}
	return nil
}

// errorReply is a JSON-RPC error response; id nil is written as null, as
// the specification has it for a request whose id could not be read.
func errorReply(id any, code int, msg string) json.RawMessage {
	b, _ := json.Marshal(struct {
		Version string `json:"jsonrpc"`
		ID      any    `json:"id"`
		Error   struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}{Version: "2.0", ID: id, Error: struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}{code, msg}})
	return b
}

func joinArray(parts []json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('[')
	for i, p := range parts {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(p)
	}
	b.WriteByte(']')
	return b.Bytes()
}

// reply writes one line of our own (an error response).
func (c *stdioConn) reply(b json.RawMessage) {
	_ = c.writeLine(b)
}

func (c *stdioConn) writeLine(b []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	select {
	case <-c.closed:
		return errors.New("connection closed")
	default:
	}
	_, err := c.w.Write(append(b[:len(b):len(b)], '\n'))
	return err
}

// Write writes msg on a line of its own; a response to a request of a
// batch waits for the batch's other responses and goes out with them.
func (c *stdioConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	b, err := encode(msg)
	if err != nil {
		return err
	}
	if resp, ok := msg.(*jsonrpc.Response); ok && resp.ID.IsValid() {
		c.mu.Lock()
		bt := c.batches[resp.ID]
		var done bool
		if bt != nil {
			delete(c.batches, resp.ID)
			bt.responses[bt.slot[resp.ID]] = b
			bt.pending--
			done = bt.pending == 0
		}
		c.mu.Unlock()
		if bt != nil {
			if !done {
				return nil
			}
			var parts []json.RawMessage
			for _, p := range bt.responses {
				if p != nil { // a request cancelled in a batch has none
					parts = append(parts, p)
				}
			}
			if len(parts) == 0 {
				return nil
			}
			return c.writeLine(joinArray(parts))
		}
	}
	return c.writeLine(b)
}

// encode is jsonrpc.EncodeMessage, except that a response without an id
// (the SDK's answer to a request whose id was in use) says "id": null.
func encode(msg jsonrpc.Message) ([]byte, error) {
	b, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return nil, err
	}
	if resp, ok := msg.(*jsonrpc.Response); ok && !resp.ID.IsValid() && bytes.HasPrefix(b, []byte(`{"jsonrpc":"2.0",`)) {
		b = append([]byte(`{"jsonrpc":"2.0","id":null,`), b[len(`{"jsonrpc":"2.0",`):]...)
	}
	return b, nil
}

// dropped tells the batch a response will not come (its request was
// cancelled, see quietCancels): the batch is written without it.
func (c *stdioConn) dropped(id jsonrpc.ID) {
	c.mu.Lock()
	bt := c.batches[id]
	var done bool
	if bt != nil {
		delete(c.batches, id)
		bt.pending--
		done = bt.pending == 0
	}
	c.mu.Unlock()
	if done {
		var parts []json.RawMessage
		for _, p := range bt.responses {
			if p != nil {
				parts = append(parts, p)
			}
		}
		if len(parts) > 0 {
			_ = c.writeLine(joinArray(parts))
		}
	}
}

// Close ends the connection: Read returns io.EOF, writes fail.
func (c *stdioConn) Close() error {
	c.closeOnce.Do(func() { close(c.closed) })
	return nil
}
