package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"runtime/debug"
	"slices"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/papers-cli/papers/resolve"
)

// Names is one name or several: a JSON string or an array of strings, so
// that {"topic": "rl"} and {"topic": ["rl", "agents"]} both work.
type Names []string

// UnmarshalJSON reads a string or an array of strings.
func (n *Names) UnmarshalJSON(b []byte) error {
	var one string
	if err := json.Unmarshal(b, &one); err == nil {
		if one == "" {
			*n = nil
		} else {
			*n = Names{one}
		}
		return nil
	}
	var many []string
	if err := json.Unmarshal(b, &many); err != nil {
		return fmt.Errorf("want a string or an array of strings: %w", err)
	}
	*n = many
	return nil
}

// schemaOptions infer the tools' schemas: Names is a string or an array.
var schemaOptions = &jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{
	reflect.TypeFor[Names](): {Types: []string{"string", "array"}, Items: &jsonschema.Schema{Type: "string"}},
}}

// Filters narrow a call to some papers of the library, as the command
// line's filter flags do: the kinds are ANDed, the values of one kind ORed.
type Filters struct {
	Paper    Names  `json:"paper,omitempty" jsonschema:"only these papers: arXiv ids in any form (2501.12948, 2501.12948v2, arXiv URLs) or the library's ids (pdf:..., zotero:..., corpus ids)"`
	Topic    Names  `json:"topic,omitempty" jsonschema:"only papers of these followed topics (see list_topics)"`
	Tag      Names  `json:"tag,omitempty" jsonschema:"only papers with one of these tags, of any source, case-insensitive: the user's (papers tag), a Zotero tag (a collection as zotero:Collection/Sub) or a corpus's"`
	Saved    bool   `json:"saved,omitempty" jsonschema:"only the papers the user saved (papers save)"`
	Category Names  `json:"category,omitempty" jsonschema:"only papers in these arXiv categories, e.g. cs.CL, or a whole archive such as cs"`
	Author   Names  `json:"author,omitempty" jsonschema:"only papers with an author whose name contains one of these"`
	Since    string `json:"since,omitempty" jsonschema:"only papers published on or after this date: YYYY-MM-DD, YYYY-MM, YYYY, or a span back from today such as 7d, 4w, 3m, 1y"`
	Until    string `json:"until,omitempty" jsonschema:"only papers published on or before this date; YYYY-MM and YYYY include the whole month or year"`
}

// Filtered is the filters of a tool's input: at its top level, or as an
// object under "filters" (both are merged).
type Filtered struct {
	Filters
	Nested *Filters `json:"filters,omitempty" jsonschema:"the same filters as one object; merged with those given at the top level"`
}

// names returns the filters as resolve takes them.
func (f Filtered) names() resolve.Filter {
	r := resolve.Filter{Papers: f.Paper, Topics: f.Topic, Tags: f.Tag, Saved: f.Saved, Categories: f.Category, Authors: f.Author, Since: f.Since, Until: f.Until}
	if n := f.Nested; n != nil {
		r.Saved = r.Saved || n.Saved
		r.Papers = append(r.Papers, n.Paper...)
		r.Topics = append(r.Topics, n.Topic...)
		r.Tags = append(r.Tags, n.Tag...)
		r.Categories = append(r.Categories, n.Category...)
		r.Authors = append(r.Authors, n.Author...)
		r.Since = cmpOr(r.Since, n.Since)
		r.Until = cmpOr(r.Until, n.Until)
	}
	return r
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// handler is a tool's typed function: its output, or the error its
// command would report.
type handler[In, Out any] func(ctx context.Context, req *mcp.CallToolRequest, in In) (Out, error)

// addTool registers h as tool t with the schemas of In and Out. A failure
// becomes a result with isError and the command line's message; a panic
// (a bug, or input nobody foresaw) becomes one too, and the server lives.
func addTool[In, Out any](s *Server, t *mcp.Tool, h handler[In, Out]) {
	var err error
	if t.InputSchema, err = jsonschema.For[In](schemaOptions); err != nil {
		panic(fmt.Sprintf("input schema of %s: %v", t.Name, err))
	}
	out, err := jsonschema.For[Out](schemaOptions)
	if err != nil {
		panic(fmt.Sprintf("output schema of %s: %v", t.Name, err))
	}
	if slices.Equal(out.Types, []string{"null", "object"}) {
		out.Type, out.Types = "object", nil // a pointer result is never null; MCP wants type "object"
	}
	t.OutputSchema = out
	mcp.AddTool(s.srv, t, func(ctx context.Context, req *mcp.CallToolRequest, in In) (_ *mcp.CallToolResult, out Out, err error) {
		s.calls.Add(1)
		defer s.calls.Done()
		ctx, release := s.bind(ctx)
		defer release()
		defer func() {
			if r := recover(); r != nil {
				fmt.Fprintf(s.opts.Log, "papers mcp: %s panicked: %v\n%s", t.Name, r, debug.Stack())
				var zero Out
				out, err = zero, &toolError{msg: fmt.Sprintf("internal error in %s: %v (please report it)", t.Name, r)}
			}
		}()
		out, err = h(ctx, req, in)
		var ni *needsInput
		if errors.As(err, &ni) {
			var zero Out
			return &mcp.CallToolResult{InputRequests: ni.requests}, zero, nil
		}
		if err != nil {
			var zero Out
			return nil, zero, s.fail(ctx, t.Name, err)
		}
		return nil, out, nil
	})
}

// readOnly and writes annotate tools for clients that ask before writes.
func readOnly(title string) *mcp.ToolAnnotations {
	f := false
	return &mcp.ToolAnnotations{Title: title, ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: &f}
}

func online(title string) *mcp.ToolAnnotations {
	t := true
	return &mcp.ToolAnnotations{Title: title, ReadOnlyHint: true, OpenWorldHint: &t}
}

func writes(title string) *mcp.ToolAnnotations {
	t, f := true, false
	return &mcp.ToolAnnotations{Title: title, DestructiveHint: &f, IdempotentHint: true, OpenWorldHint: &t}
}

func jsonBytes(v any) ([]byte, error) { return json.Marshal(v) }
