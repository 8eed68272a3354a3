package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/papers-cli/papers/internal/hint"
)

// The ingest tool reads local files only under directories the user
// allowed: those given to papers mcp with --allow (Options.Allow) and the
// client's roots (the folders an MCP client says the server may work in).
// Without this, an assistant could be talked by text it read into
// ingesting any PDF the server's user can read, and then read it back
// through search and read_paper.

// ErrNotAllowed is wrapped by the error for a local path outside the
// directories the server may read.
var ErrNotAllowed = errors.New("outside the directories this server may read")

// allowedDirs returns the directories a call may read local files under:
// Options.Allow and the client's file roots, each absolute with its
// symbolic links resolved. A client of protocol 2026-07-28 or later gives
// its roots as the call's input responses: without them, the error is a
// *needsInput asking for them (the SDK's client answers it and calls
// again). An older client is asked with roots/list; one without roots, or
// that does not answer within rootsWait, adds none.
func (s *Server) allowedDirs(ctx context.Context, req *mcp.CallToolRequest) ([]string, error) {
	var dirs []string
	add := func(d string) {
		if r, err := resolvePath(d); err == nil {
			dirs = append(dirs, r)
		}
	}
	for _, d := range s.opts.Allow {
		add(d)
	}
	roots, err := clientRoots(ctx, req)
	for _, r := range roots {
		add(r)
	}
	return dirs, err
}

// rootsInput is the id of the input request for the client's roots.
const rootsInput = "roots"

// needsInput is a tool's answer that it needs the client's input first
// (multi round-trip requests, SEP-2322): addTool returns it as an
// input-required result.
type needsInput struct{ requests mcp.InputRequestMap }

func (*needsInput) Error() string { return "the call needs the client's input" }

// clientRoots are the client's file roots as paths (see allowedDirs).
func clientRoots(ctx context.Context, req *mcp.CallToolRequest) ([]string, error) {
	if req == nil || req.Session == nil || req.Params == nil {
		return nil, nil
	}
	var res *mcp.ListRootsResult
	if ip := req.Session.InitializeParams(); ip != nil && ip.ProtocolVersion >= multiRoundTrip {
		r, ok := req.Params.InputResponses[rootsInput].(*mcp.ListRootsResult)
		if !ok {
			return nil, &needsInput{mcp.InputRequestMap{rootsInput: &mcp.ListRootsParams{}}}
		}
		res = r
	} else {
		ctx, cancel := context.WithTimeout(ctx, rootsWait)
		defer cancel()
		r, err := req.Session.ListRoots(ctx, nil) //nolint:staticcheck // roots are how clients name the folders a server may use
		if err != nil {
			return nil, nil
		}
		res = r
	}
	var paths []string
	for _, r := range res.Roots {
		u, err := url.Parse(r.URI)
		if err != nil || u.Scheme != "file" || u.Path == "" {
			continue
		}
		paths = append(paths, filepath.FromSlash(u.Path))
	}
	return paths, nil
}

// multiRoundTrip is the first protocol version whose clients give roots
// as input responses, not by answering roots/list.
const multiRoundTrip = "2026-07-28"

// rootsWait bounds the wait for a client's roots.
const rootsWait = 10 * time.Second

// resolvePath is p absolute and clean, with its symbolic links resolved
// (as far as they exist: a path that does not exist yet resolves its
// existing parent).
func resolvePath(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	r, err := filepath.EvalSymlinks(abs)
	switch {
	case err == nil:
		return r, nil
	case !errors.Is(err, os.ErrNotExist) || filepath.Dir(abs) == abs:
		return "", err
	}
	parent, err := resolvePath(filepath.Dir(abs))
	if err != nil {
		return "", err
	}
	return filepath.Join(parent, filepath.Base(abs)), nil
}

// confine returns the check of a local path against dirs: nil when the
// path, its symbolic links resolved, lies in one of them, else an error
// wrapping ErrNotAllowed whose hint names --allow.
func confine(dirs []string) func(path string) error {
	return func(path string) error {
		r, err := resolvePath(path)
		if err == nil {
			for _, d := range dirs {
				if within(r, d) {
					return nil
				}
			}
		}
		what := "papers mcp was started without --allow and the client gave no roots"
		if len(dirs) > 0 {
			what = "it may read under " + strings.Join(dirs, ", ")
		}
		return hint.With(fmt.Errorf("%s is %w (%s)", path, ErrNotAllowed, what),
			"start the server with `papers mcp --allow DIR` (repeatable) for the directories it may ingest from, or add them to the client's roots; papers ingest on the command line reads any file")
	}
}

// within reports whether path lies in dir (both clean and absolute).
func within(path, dir string) bool {
	if path == dir {
		return true
	}
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}
