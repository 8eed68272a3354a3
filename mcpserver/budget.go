package mcpserver

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Every tool that returns text keeps its result within a budget of
// characters (max_chars), counted on the JSON the client receives as the
// result's text, and pages what does not fit with an opaque cursor
// (next_cursor), so that a result never grows with the library.

// Budgets, in characters of the result's JSON (about 4 a token).
const (
	defaultBudget = 6000
	readBudget    = 8000 // read_paper's default
	minBudget     = 400
	maxBudget     = 50000
)

// Budget is the arguments of paging: how much one call may return, and
// where the previous one stopped.
type Budget struct {
	MaxChars int    `json:"max_chars,omitempty" jsonschema:"result size limit in characters (default 6000)"`
	Cursor   string `json:"cursor,omitempty" jsonschema:"next_cursor of the previous call"`
}

// budget is the limit of a call: max_chars, or def, clamped.
func (b Budget) budget(def int) (int, error) {
	switch {
	case b.MaxChars == 0:
		return def, nil
	case b.MaxChars < minBudget:
		return 0, fmt.Errorf("max_chars must be at least %d, got %d", minBudget, b.MaxChars)
	}
	return min(b.MaxChars, maxBudget), nil
}

// start reads a call's budget and cursor: limit is its max_chars (or
// def), at where its cursor goes on (0 without one). args are the call's
// arguments with their Budget cleared, as the cursor was made from them.
func (b Budget) start(tool string, args any, def int) (limit, at int, err error) {
	if limit, err = b.budget(def); err != nil {
		return 0, 0, err
	}
	at, err = readCursor(tool, args, b.Cursor)
	return limit, at, err
}

// cursor is what a next_cursor holds: the tool, a hash of the call's
// other arguments, and where to go on.
type cursor struct {
	Tool string `json:"t"`
	Args uint32 `json:"a"`
	At   int    `json:"o"`
}

// argsHash is the hash of a call's arguments without its Budget (the
// caller clears it), so that a cursor is used with the call it came from.
func argsHash(args any) uint32 {
	b, _ := json.Marshal(args)
	h := fnv.New32a()
	h.Write(b)
	return h.Sum32()
}

func makeCursor(tool string, args any, at int) string {
	b, _ := json.Marshal(cursor{Tool: tool, Args: argsHash(args), At: at})
	return base64.RawURLEncoding.EncodeToString(b)
}

// errCursor is the error of a cursor that is not the next_cursor of a call
// of this tool with these arguments.
var errCursor = errors.New("cursor")

// readCursor returns where the cursor s of tool goes on (0 without one).
func readCursor(tool string, args any, s string) (int, error) {
	if s == "" {
		return 0, nil
	}
	var c cursor
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err == nil {
		err = json.Unmarshal(b, &c)
	}
	if err != nil || c.At < 0 {
		return 0, fmt.Errorf("%w is not a next_cursor of %s: pass next_cursor as it came, or call %s without cursor", errCursor, tool, tool)
	}
	if c.Tool != tool || c.Args != argsHash(args) {
		return 0, fmt.Errorf("%w belongs to another call: continue with the same arguments as the call that returned it (only max_chars may change), or call %s without cursor", errCursor, tool)
	}
	return c.At, nil
}

// jsonLen is the length in characters of v's JSON as the SDK sends it.
func jsonLen(v any) int {
	b, err := json.Marshal(v)
	if err != nil {
		return 0
	}
	return utf8.RuneCount(b)
}

// page puts into *rows the rows of all from at that fit, with the rest of
// out, in max characters, and into *next the cursor of the rows left (""
// when none; cursorAt makes it). A row that does not fit alone is cut by
// shrink (to about n characters of its text) when shrink is not nil. It
// fails when not even one row fits.
func page[T any](out any, rows *[]T, all []T, at, max int, next *string, cursorAt func(int) string, shrink func(T, int) T) error {
	*next = cursorAt(len(all) + at) // as long as any cursor of this result
	// what is not the rows: measured around one row, so that a list the
	// result omits when empty (omitempty) counts its name and brackets
	*rows = []T{}
	fixed := jsonLen(out)
	if at < len(all) {
		*rows = all[at : at+1]
		fixed = jsonLen(out) - jsonLen(all[at])
		*rows = []T{}
	}
	total := fixed
	n := 0
	for i := at; i < len(all); i++ {
		l := jsonLen(all[i])
		if n > 0 {
			l++ // the comma
		}
		if total+l > max {
			break
		}
		total += l
		*rows = append(*rows, all[i])
		n++
	}
	if n == 0 && at < len(all) {
		if shrink == nil {
			return fmt.Errorf("max_chars %d is too small for one result: give at least %d", max, fixed+jsonLen(all[at]))
		}
		room := max - fixed
		for k := room; k > 0; {
			r := shrink(all[at], k)
			l := jsonLen(r)
			if fixed+l <= max {
				*rows = append(*rows, r)
				n = 1
				break
			}
			k -= fixed + l - max
		}
		if n == 0 {
			return fmt.Errorf("max_chars %d is too small for one result", max)
		}
	}
	if at+n < len(all) {
		*next = cursorAt(at + n)
	} else {
		*next = ""
	}
	return nil
}

// cut returns s cut to at most n characters, at a space when one is near,
// with "…" when it was cut.
func cut(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	if n < 1 {
		return ""
	}
	r = r[:n-1]
	for i := len(r) - 1; i > len(r)*3/4; i-- {
		if r[i] == ' ' || r[i] == '\n' {
			r = r[:i]
			break
		}
	}
	return string(r) + "…"
}

// fitReport cuts the longest lists of a report (ingest's, update's) until
// its JSON fits in limit characters: a list cut keeps its first items, and
// "<name>_left_out" says how many it lost. A report that fits is v itself.
func fitReport(v any, limit int) (any, error) {
	b, err := json.Marshal(v)
	if err != nil || utf8.RuneCount(b) <= limit {
		return v, err
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	for jsonLen(m) > limit {
		longest, size := "", 0
		for k, x := range m {
			if a, ok := x.([]any); ok && len(a) > 0 {
				if l := jsonLen(a); l > size {
					longest, size = k, l
				}
			}
		}
		if longest == "" {
			return nil, fmt.Errorf("max_chars %d is too small for the report: give at least %d", limit, jsonLen(m))
		}
		a := m[longest].([]any)
		keep := len(a) / 2
		m[longest] = a[:keep]
		left, _ := m[longest+"_left_out"].(int)
		m[longest+"_left_out"] = left + len(a) - keep
	}
	return m, nil
}

// fitted is h with its report cut to the call's max_chars (fitReport).
func fitted[In, Out any](h handler[In, Out], maxChars func(In) int) handler[In, any] {
	return func(ctx context.Context, req *mcp.CallToolRequest, in In) (any, error) {
		limit, err := Budget{MaxChars: maxChars(in)}.budget(defaultBudget)
		if err != nil {
			return nil, err
		}
		out, err := h(ctx, req, in)
		if err != nil {
			return nil, err
		}
		return fitReport(out, limit)
	}
}
