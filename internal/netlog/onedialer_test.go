package netlog

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// networkAPIs are the ways of opening a connection or of reaching a
// transport other than this package's: a program that uses none of them
// outside netlog sends every request through a Transport, whose dialer
// refuses offline.
var networkAPIs = map[string]map[string]bool{
	"http": {"DefaultTransport": true, "DefaultClient": true, "Transport": true,
		"Get": true, "Head": true, "Post": true, "PostForm": true},
	"net": {"Dial": true, "DialTimeout": true, "Dialer": true, "DialTCP": true, "DialUDP": true,
		"DialIP": true, "DialUnix": true},
	"tls": {"Dial": true, "DialWithDialer": true, "Dialer": true},
}

// TestOneDialer proves by reading the source that no package of papers
// but this one builds an HTTP transport or a dialer or uses net/http's
// default client: the offline guarantee holds by construction. Tests are
// exempt (they build their own clients for fake servers).
func TestOneDialer(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	self, _ := filepath.Abs(".")
	files := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path == self || d.Name() == "testdata" || d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".") && path != root {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		files++
		names := map[string]string{} // local name -> package path, for the packages above
		for _, imp := range f.Imports {
			p := strings.Trim(imp.Path.Value, `"`)
			base := p[strings.LastIndex(p, "/")+1:]
			if p != "net/http" && p != "net" && p != "crypto/tls" {
				continue
			}
			local := base
			if imp.Name != nil {
				local = imp.Name.Name
			}
			names[local] = base
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			x, ok := sel.X.(*ast.Ident)
			if !ok {
				return true
			}
			if pkg, ok := names[x.Name]; ok && networkAPIs[pkg][sel.Sel.Name] {
				rel, _ := filepath.Rel(root, path)
				t.Errorf("%s uses %s.%s: send requests through the run's netlog.Transport instead (internal/netlog)", rel, pkg, sel.Sel.Name)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Fatalf("read %d Go files under %s: is this the repository?", files, root)
	}
}
