package mcpserver

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// quietCancels is a transport on which no response is written for a
// request the client cancelled with notifications/cancelled, as the MCP
// specification asks: the client has forgotten the request, and clients
// report an answer to it as a protocol error ("a response for an unknown
// message ID"). go-sdk v1.8.0 answers cancelled calls all the same
// (modelcontextprotocol/go-sdk issues 1235 and 1259), whatever the
// handler does, so the answer is dropped here, on its way out.
//
// The connection it makes hides the SDK's own connection type (for the
// SDK's in-memory transports in tests), whose one use of it is to refuse
// JSON-RPC batches from clients of protocol 2025-06-18 and later; batches
// are then accepted, as StdioTransport accepts them.
type quietCancels struct{ mcp.Transport }

func (t quietCancels) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &quietConn{Connection: c, cancelled: map[jsonrpc.ID]bool{}}, nil
}

type quietConn struct {
	mcp.Connection
	mu        sync.Mutex
	cancelled map[jsonrpc.ID]bool // requests cancelled and not yet answered
}

// maxCancelled bounds the cancellations remembered: one for a request
// already answered is never looked up again.
const maxCancelled = 1024

func (c *quietConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if req, ok := msg.(*jsonrpc.Request); ok && err == nil && !req.IsCall() && req.Method == "notifications/cancelled" {
		var p mcp.CancelledParams
		if json.Unmarshal(req.Params, &p) == nil {
			if id, err := jsonrpc.MakeID(p.RequestID); err == nil && id.IsValid() {
				c.mu.Lock()
				if len(c.cancelled) >= maxCancelled {
					clear(c.cancelled)
				}
				c.cancelled[id] = true
				c.mu.Unlock()
			}
		}
	}
	return msg, err
}

func (c *quietConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if resp, ok := msg.(*jsonrpc.Response); ok {
		c.mu.Lock()
		drop := c.cancelled[resp.ID]
		delete(c.cancelled, resp.ID)
		c.mu.Unlock()
		if drop {
			if d, ok := c.Connection.(interface{ dropped(jsonrpc.ID) }); ok {
				d.dropped(resp.ID) // its batch goes out without it
			}
			return nil
		}
	}
	return c.Connection.Write(ctx, msg)
}
