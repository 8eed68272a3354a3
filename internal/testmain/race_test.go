package testmain

import (
	"bufio"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestRacePackagesListed: test.sh runs under the race detector exactly
// the packages (with tests) whose own code is concurrent (concurrency),
// so that no concurrent code loses the detector when a package gains a
// goroutine, and none pays for it without one.
func TestRacePackagesListed(t *testing.T) {
	root := filepath.Join("..", "..")
	listed, err := racePackages(filepath.Join(root, "test.sh"))
	if err != nil {
		t.Fatal(err)
	}
	pkgs, err := testedPackages(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range pkgs {
		why, err := concurrency(filepath.Join(root, dir))
		if err != nil {
			t.Fatal(err)
		}
		inList := slices.Contains(listed, "./"+dir)
		switch {
		case why != "" && !inList:
			t.Errorf("%s is concurrent (%s) but test.sh runs its tests without the race detector: add ./%s to its race list", dir, why, dir)
		case why == "" && inList:
			t.Errorf("test.sh runs ./%s under the race detector, but none of its code is concurrent: move it to the plain run (drop it from the race list)", dir)
		}
	}
	for _, p := range listed {
		if !slices.Contains(pkgs, strings.TrimPrefix(p, "./")) {
			t.Errorf("test.sh's race list names %s, which is not a package with tests", p)
		}
	}
	if len(listed) == 0 {
		t.Error("test.sh lists no race package")
	}
}

// racePackages reads the race list of test.sh: the lines between
// "race=(" and ")", one "./dir" a line.
func racePackages(script string) ([]string, error) {
	f, err := os.Open(script)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []string
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "race=(":
			in = true
		case in && line == ")":
			return out, nil
		case in && line != "" && !strings.HasPrefix(line, "#"):
			out = append(out, line)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return nil, fmt.Errorf("%s: no race=( ... ) list", script)
}

// testedPackages are the directories under root (slash-separated,
// relative) holding a _test.go file, as go list ./... walks them.
func testedPackages(root string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(name, "_test.go") {
			rel, err := filepath.Rel(root, filepath.Dir(path))
			if err != nil {
				return err
			}
			if rel = filepath.ToSlash(rel); !slices.Contains(out, rel) {
				out = append(out, rel)
			}
		}
		return nil
	})
	return out, err
}

// concurrency says why the package in dir is concurrent, or "" if it is
// not: its non-test code runs on more than one goroutine, or keeps state
// for callers that do. That is a go statement; a Go method (errgroup,
// WaitGroup); a function that runs what it is given on a goroutine of its
// own (time or context AfterFunc, signal.Notify, an HTTP server's
// handlers); a writer or reader handed to exec.Cmd (copied on its
// goroutines); a channel or select; sync, sync/atomic or x/sync.
//
// A package with none of these runs only on its caller's goroutine, and
// its test binary has nothing of its own for the race detector to compare;
// where other packages call it concurrently, their race runs instrument
// it.
func concurrency(dir string) (string, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return "", err
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			return "", err
		}
		for _, im := range f.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			if p == "sync" || p == "sync/atomic" || strings.HasPrefix(p, "golang.org/x/sync/") {
				return fmt.Sprintf("%s imports %s", fset.Position(im.Pos()), p), nil
			}
		}
		var why string
		ast.Inspect(f, func(n ast.Node) bool {
			if why != "" {
				return false
			}
			switch n := n.(type) {
			case *ast.GoStmt:
				why = "a go statement"
			case *ast.ChanType:
				why = "a channel"
			case *ast.SelectStmt:
				why = "a select"
			case *ast.SendStmt:
				why = "a channel send"
			case *ast.UnaryExpr:
				if n.Op == token.ARROW {
					why = "a channel receive"
				}
			case *ast.CallExpr:
				name := ""
				switch fn := n.Fun.(type) {
				case *ast.SelectorExpr:
					name = fn.Sel.Name
				case *ast.Ident:
					name = fn.Name
				}
				switch name {
				case "Go", "AfterFunc", "Notify", "NotifyContext", "Serve", "ServeTLS", "ListenAndServe", "ListenAndServeTLS", "NewServer", "NewTLSServer", "NewUnstartedServer":
					why = "a call of " + name
				}
			case *ast.KeyValueExpr:
				if k, ok := n.Key.(*ast.Ident); ok && (k.Name == "Stdout" || k.Name == "Stderr" || k.Name == "Stdin") {
					why = "an exec.Cmd's " + k.Name
				}
			case *ast.AssignStmt:
				for _, l := range n.Lhs {
					if s, ok := l.(*ast.SelectorExpr); ok && (s.Sel.Name == "Stdout" || s.Sel.Name == "Stderr" || s.Sel.Name == "Stdin") {
						why = "an exec.Cmd's " + s.Sel.Name
					}
				}
			}
			if why != "" {
				why = fmt.Sprintf("%s: %s", fset.Position(n.Pos()), why)
			}
			return why == ""
		})
		if why != "" {
			return why, nil
		}
	}
	return "", nil
}
