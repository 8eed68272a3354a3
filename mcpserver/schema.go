package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"runtime/debug"
	"slices"
	"sort"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/papers-cli/papers/resolve"
)

// Names is one name or several. Its schema is an array of strings; it
// reads a string as well, for callers that bypass the schema (the prompts).
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

// schemaOptions infer the tools' schemas: Names is declared an array of
// strings (the shortest schema that every client's validator takes); a
// string where the array goes fails the schema with a message naming the
// argument.
var schemaOptions = &jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{
	reflect.TypeFor[Names](): {Type: "array", Items: &jsonschema.Schema{Type: "string"}},
}}

// Filters narrow a call to some papers of the library, as the command
// line's filter flags do: the kinds are ANDed, the values of one kind ORed.
type Filters struct {
	Paper    Names  `json:"paper,omitempty" jsonschema:"only these papers (ids)"`
	Topic    Names  `json:"topic,omitempty" jsonschema:"only these followed topics"`
	Tag      Names  `json:"tag,omitempty" jsonschema:"only papers with one of these tags"`
	Saved    bool   `json:"saved,omitempty" jsonschema:"only saved papers"`
	Category Names  `json:"category,omitempty" jsonschema:"only these arXiv categories (cs.CL) or archives (cs)"`
	Author   Names  `json:"author,omitempty" jsonschema:"only papers with an author matching one"`
	Since    string `json:"since,omitempty" jsonschema:"published since: YYYY-MM-DD, YYYY-MM, YYYY, or 7d, 4w, 3m, 1y"`
	Until    string `json:"until,omitempty" jsonschema:"published until (YYYY-MM, YYYY: whole period)"`
}

// names returns the filters as resolve takes them.
func (f Filters) names() resolve.Filter {
	return resolve.Filter{Papers: f.Paper, Topics: f.Topic, Tags: f.Tag, Saved: f.Saved, Categories: f.Category, Authors: f.Author, Since: f.Since, Until: f.Until}
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

// addTool registers h as tool t with the input schema of In. Tools have
// no output schema (it would triple the size of tools/list, which every
// client puts in its model's context): the result is In's JSON, as
// structured content and as text. A failure becomes a result with isError
// and the message for an assistant; a panic (a bug, or input nobody
// foresaw) becomes one too, and the server lives.
func addTool[In, Out any](s *Server, t *mcp.Tool, h handler[In, Out]) {
	in, err := jsonschema.For[In](schemaOptions)
	if err != nil {
		panic(fmt.Sprintf("input schema of %s: %v", t.Name, err))
	}
	if t.Name != "search" {
		_, filters := reflect.TypeFor[In]().FieldByName("Filters")
		shareFields(in, filters)
	}
	// Unknown arguments are refused here, naming the ones the tool takes,
	// rather than by "additionalProperties": false in every schema.
	in.AdditionalProperties = nil
	known := make([]string, 0, len(in.Properties))
	for name, p := range in.Properties {
		known = append(known, name)
		p.AdditionalProperties = nil // an object argument (an ask result) is taken whole
	}
	sort.Strings(known)
	t.InputSchema = in
	mcp.AddTool(s.srv, t, func(ctx context.Context, req *mcp.CallToolRequest, in In) (_ *mcp.CallToolResult, out any, err error) {
		if err := unknownArguments(t.Name, req, known); err != nil {
			return nil, nil, &toolError{msg: err.Error()}
		}
		s.calls.Add(1)
		defer s.calls.Done()
		ctx, release := s.bind(ctx)
		defer release()
		defer func() {
			if r := recover(); r != nil {
				fmt.Fprintf(s.opts.Log, "papers mcp: %s panicked: %v\n%s", t.Name, r, debug.Stack())
				out, err = nil, &toolError{msg: fmt.Sprintf("internal error in %s: %v (please report it)", t.Name, r)}
			}
		}()
		o, err := h(ctx, req, in)
		var ni *needsInput
		if errors.As(err, &ni) {
			return &mcp.CallToolResult{InputRequests: ni.requests}, nil, nil
		}
		if err != nil {
			return nil, nil, s.fail(ctx, t.Name, err)
		}
		return nil, o, nil
	})
}

// unknownArguments is the error of a call with an argument the tool does
// not take (a typo, an argument of another tool).
func unknownArguments(tool string, req *mcp.CallToolRequest, known []string) error {
	if req == nil || req.Params == nil || len(req.Params.Arguments) == 0 {
		return nil
	}
	var args map[string]json.RawMessage
	if json.Unmarshal(req.Params.Arguments, &args) != nil {
		return nil // not an object: the schema's validation said so already
	}
	var bad []string
	for name := range args {
		if !slices.Contains(known, name) {
			bad = append(bad, name)
		}
	}
	if len(bad) == 0 {
		return nil
	}
	sort.Strings(bad)
	return fmt.Errorf("unknown argument %s: %s takes %s", strings.Join(bad, ", "), tool, strings.Join(known, ", "))
}

// readOnly and writes annotate tools for clients that ask before writes:
// the hints that change what a client does, no more (each costs context).
func readOnly() *mcp.ToolAnnotations { return &mcp.ToolAnnotations{ReadOnlyHint: true} }

func writes() *mcp.ToolAnnotations {
	f := false
	return &mcp.ToolAnnotations{DestructiveHint: &f}
}

// sharedNames are the fields that search describes and the other tools
// share without saying it again: the filters ("filters as in search" in
// their descriptions) and the budget (in the server's instructions).
var sharedNames = []string{"paper", "topic", "tag", "saved", "category", "author", "since", "until", "max_chars", "cursor"}

// shareFields removes the descriptions of the shared fields of a schema
// that search describes, when they mean what they mean there (their types
// stay: strict clients want every property typed).
func shareFields(s *jsonschema.Schema, filters bool) {
	for _, n := range sharedNames {
		p := s.Properties[n]
		if p == nil || !filters && n != "max_chars" && n != "cursor" {
			continue
		}
		p.Description = ""
	}
}

func jsonBytes(v any) ([]byte, error) { return json.Marshal(v) }
