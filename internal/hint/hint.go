// Package hint gives errors the hint that names their fix, the second line
// papers prints after an error ("hint: papers ingest ..."). The packages
// that resolve what users name (papers, topics, dates) attach hints where
// they know the fix; the command line (cmd) and the MCP server (mcpserver)
// render them the same way.
package hint

import (
	"errors"
	"fmt"
	"strings"
)

// Error is an error with a hint naming its fix: Text for the command
// line, Tool for an assistant calling the MCP tools (the same fix named by
// tool and argument; "" when Text serves both).
type Error struct {
	Err  error
	Text string
	Tool string
}

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// Hint returns the hint (cmd looks for this method).
func (e *Error) Hint() string { return e.Text }

// ToolHint returns the hint for an assistant (mcpserver looks for this
// method): Tool, else Text.
func (e *Error) ToolHint() string {
	if e.Tool != "" {
		return e.Tool
	}
	return e.Text
}

// For attaches a hint in two forms: cli names commands (papers list),
// tool names the MCP tools and their arguments (list_papers). nil stays
// nil.
func For(err error, cli, tool string) error {
	if err == nil {
		return nil
	}
	return &Error{Err: err, Text: cli, Tool: tool}
}

// With attaches a hint to err; nil stays nil.
func With(err error, format string, args ...any) error {
	if err == nil {
		return nil
	}
	return &Error{Err: err, Text: fmt.Sprintf(format, args...)}
}

// Of returns the hint of the outermost error in err's chain that has one,
// or "".
func Of(err error) string {
	var h interface{ Hint() string }
	if errors.As(err, &h) {
		return h.Hint()
	}
	return ""
}

// Message is err as papers shows it: the error, then "hint: ..." on the
// next line when it has one.
func Message(err error) string {
	if h := Of(err); h != "" {
		return err.Error() + "\nhint: " + h
	}
	return err.Error()
}

// ToolOf returns the hint for an assistant of the outermost error in
// err's chain that has a hint: its ToolHint when it has one, else its Hint.
func ToolOf(err error) string {
	var h interface{ Hint() string }
	if !errors.As(err, &h) {
		return ""
	}
	if t, ok := h.(interface{ ToolHint() string }); ok {
		return t.ToolHint()
	}
	return h.Hint()
}

// ToolMessage is Message with the hint for an assistant (ToolOf).
func ToolMessage(err error) string {
	if h := ToolOf(err); h != "" {
		return err.Error() + "\nhint: " + h
	}
	return err.Error()
}

// Shell quotes s for a POSIX shell when it needs it, so that a command in
// a hint can be pasted as it is: papers update 'my agents'.
func Shell(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_.,:/@%+=", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
