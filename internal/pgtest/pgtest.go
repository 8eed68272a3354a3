// Package pgtest gives tests a real PostgreSQL server with pgvector: the
// one PAPERS_TEST_DATABASE_URL names (PostgreSQL 16 or later with the vector
// and citext extensions installed), or else PGlite, PostgreSQL 18 compiled
// to WebAssembly with pgvector, pg_textsearch and citext, served on a free loopback
// port by @electric-sql/pglite-socket's pglite-server.
//
// The PGlite server is started once per test binary, on first use (about
// 2.5 s of wall time here, most of it node loading the WebAssembly module
// and the extensions), and stops when the binary exits: it runs under a
// shell that kills it when the pipe to this process closes, so a test
// binary killed by a timeout leaves no server behind. Its npm packages are
// pinned in testdata/pglite/package-lock.json; .ci/run installs them, and a
// plain go test installs them with npm ci on first use.
//
// Each test gets a schema of its own (URL), dropped when the test ends, so
// tests share one server without seeing each other's tables.
package pgtest

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// EnvURL names the variable that points the tests at a real PostgreSQL
// instead of PGlite: a URL such as postgres://me@localhost/papers_test whose
// database has (or lets the user create) the vector and citext extensions. Tests create
// schemas named t_<random> in it and drop them.
const EnvURL = "PAPERS_TEST_DATABASE_URL"

// SchemaParam is the URL query parameter that names the schema a library
// lives in (package pgstore reads it; PostgreSQL never sees it).
const SchemaParam = "schema"

var (
	once    sync.Once
	baseURL string
	kind    string
	errBase error
	// stopServer is never called, but held: it holds the pipe whose
	// closing (by a finalizer, were it dropped) stops the server.
	stopServer func()
)

// Server returns the URL of the server the tests use (starting PGlite on
// first use) and what it is: "pglite" or "postgres".
func Server(t testing.TB) (u, what string) {
	t.Helper()
	once.Do(func() {
		if u := os.Getenv(EnvURL); u != "" {
			baseURL, kind = u, "postgres"
			return
		}
		baseURL, stopServer, errBase = startPGlite()
		kind = "pglite"
	})
	if errBase != nil {
		t.Fatalf("start PostgreSQL for the tests: %v", errBase)
	}
	return baseURL, kind
}

// URL returns the server's URL with a schema of the test's own: empty, in
// no one else's use, and dropped (with everything in it) when t ends.
func URL(t testing.TB) string {
	t.Helper()
	base, _ := Server(t)
	var b [6]byte
	rand.Read(b[:])
	schema := "t_" + hex.EncodeToString(b[:])
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		conn, err := pgx.Connect(ctx, base)
		if err != nil {
			t.Errorf("drop the test's schema %s: %v%s", schema, err, serverLog())
			return
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, "DROP SCHEMA IF EXISTS "+schema+" CASCADE"); err != nil {
			t.Errorf("drop the test's schema %s: %v", schema, err)
		}
	})
	return WithSchema(base, schema)
}

// WithSchema returns u with its schema parameter set to schema.
func WithSchema(u, schema string) string {
	p, err := url.Parse(u)
	if err != nil {
		return u
	}
	q := p.Query()
	q.Set(SchemaParam, schema)
	p.RawQuery = q.Encode()
	return p.String()
}

// Dir returns the directory of the pinned npm packages.
func Dir() (string, error) {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return "", errors.New("cannot locate package pgtest's source")
	}
	return filepath.Join(filepath.Dir(file), "testdata", "pglite"), nil
}

var listening = regexp.MustCompile(`listening on \{"port":(\d+)`)

// startPGlite installs the npm packages if needed, starts pglite-server on
// a free loopback port (port 0: the kernel picks it, the server prints it)
// and returns its URL once it accepts connections, and a function that
// stops it (Server never calls it: its server lives as long as the binary).
func startPGlite() (u string, stop func(), err error) {
	dir, err := Dir()
	if err != nil {
		return "", nil, err
	}
	node, err := exec.LookPath("node")
	if err != nil {
		return "", nil, fmt.Errorf("node (20 or later) is needed to run PGlite for the PostgreSQL tests, or set %s to a PostgreSQL 16+ with pgvector: %w", EnvURL, err)
	}
	if err := install(dir); err != nil {
		return "", nil, err
	}
	server := filepath.Join(dir, "node_modules", "@electric-sql", "pglite-socket", "dist", "scripts", "server.js")
	// The shell reads its stdin, a pipe from this process: when the test
	// binary exits, however it exits, the read ends and the server is
	// killed. -m: pglite-server multiplexes its connections over PGlite's
	// single session, a transaction at a time.
	script := `"$0" "$1" --host 127.0.0.1 --port 0 --max-connections 64 ` +
		`--extensions @electric-sql/pglite-pgvector:vector,@electric-sql/pglite-pg_textsearch:pg_textsearch,citext & ` +
		`pid=$!; read _; kill $pid`
	cmd := exec.Command("sh", "-c", script, node, server)
	cmd.Dir = dir
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return "", nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return "", nil, err
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		return "", nil, fmt.Errorf("start pglite-server: %w", err)
	}
	stop = func() {
		stdin.Close()
		cmd.Wait()
	}
	port := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			line := sc.Text()
			logMu.Lock()
			if log.Len() < 1<<16 && !strings.HasPrefix(line, "Client connected") {
				log.WriteString(line + "\n")
			}
			logMu.Unlock()
			if m := listening.FindStringSubmatch(line); m != nil {
				port <- m[1]
			}
		}
		close(port)
		io.Copy(io.Discard, out)
	}()
	select {
	case p, ok := <-port:
		if ok {
			// The simple protocol: pglite-server runs every connection's
			// messages on one PostgreSQL session, where pgx's cached
			// prepared statements (one name per query text) of two
			// connections collide ("prepared statement ... already
			// exists"), and the messages of an extended-protocol query can
			// interleave with another connection's. A query is one message
			// in the simple protocol, and a transaction keeps the session.
			return "postgres://postgres:postgres@127.0.0.1:" + p + "/postgres?sslmode=disable&default_query_exec_mode=simple_protocol", stop, nil
		}
	case <-time.After(5 * time.Minute): // 2.5-5 s idle; over 2 minutes were seen at load 35
	}
	stop()
	logMu.Lock()
	defer logMu.Unlock()
	return "", nil, fmt.Errorf("pglite-server did not start listening; it said:\n%s", log.String())
}

// log is what the PGlite server printed (its first 64 KB but for
// connections).
var (
	log   strings.Builder
	logMu sync.Mutex
)

// serverLog returns what the PGlite server printed, for a failure's
// message (nothing when the tests use PAPERS_TEST_DATABASE_URL's server).
func serverLog() string {
	logMu.Lock()
	defer logMu.Unlock()
	if log.Len() == 0 {
		return ""
	}
	return "\nthe PGlite server said:\n" + log.String()
}

// install runs npm ci in dir unless its packages are there; a lock file
// keeps test binaries running at once from installing over each other.
func install(dir string) error {
	ready := func() bool {
		_, err := os.Stat(filepath.Join(dir, "node_modules", "@electric-sql", "pglite-socket", "package.json"))
		return err == nil
	}
	if ready() {
		return nil
	}
	lock := filepath.Join(dir, ".install.lock")
	for start := time.Now(); ; time.Sleep(200 * time.Millisecond) {
		f, err := os.OpenFile(lock, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		if err == nil {
			f.Close()
			break
		}
		if fi, err := os.Stat(lock); err == nil && time.Since(fi.ModTime()) > 10*time.Minute || time.Since(start) > 10*time.Minute {
			os.Remove(lock) // left by an install that was killed
		}
	}
	defer os.Remove(lock)
	if ready() {
		return nil
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		return fmt.Errorf("PGlite is not installed and npm is not there to install it (install nodejs and npm, then run npm ci in %s): %w", dir, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, npm, "ci", "--no-audit", "--no-fund", "--loglevel=error")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("npm ci in %s (installing PGlite from the npm registry) failed: %v\n%s", dir, err, out)
	}
	return nil
}
