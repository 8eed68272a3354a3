// Command mcpmem measures the memory of `papers mcp` (issue 15: the
// server stays under 300 MB) on a library: it starts the server, speaks
// MCP's stdio transport to it (initialize, then each tool call of -calls
// in turn, waiting for its answer), samples /proc/PID/status every 5 ms
// from start to exit, and prints the peaks of VmRSS, RssAnon and RssFile
// with VmHWM, and each call's wall time.
//
//	go run ./bench/mcpmem -bin /tmp/papers -home /tmp/mcp100k
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"
)

func main() {
	bin := flag.String("bin", "papers", "the papers binary")
	home := flag.String("home", "", "the library (PAPERS_HOME)")
	calls := flag.String("calls", `search:{"query":"model training data"};ask:{"question":"How is the model trained?"};related:{"id":"syn-000100"}`,
		"tool calls, NAME:JSON arguments, separated by ;")
	flag.Parse()
	if *home == "" {
		fmt.Fprintln(os.Stderr, "mcpmem: -home is required")
		os.Exit(2)
	}
	if err := run(*bin, *home, *calls); err != nil {
		fmt.Fprintln(os.Stderr, "mcpmem:", err)
		os.Exit(1)
	}
}

// peaks are the highest values, in kB, of /proc/PID/status fields seen.
type peaks struct {
	mu              sync.Mutex
	rss, anon, file int
	hwm             int
}

func (p *peaks) sample(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, l := range strings.Split(string(b), "\n") {
		f := strings.Fields(l)
		if len(f) < 2 {
			continue
		}
		v, _ := strconv.Atoi(f[1])
		switch f[0] {
		case "VmRSS:":
			p.rss = max(p.rss, v)
		case "RssAnon:":
			p.anon = max(p.anon, v)
		case "RssFile:":
			p.file = max(p.file, v)
		case "VmHWM:":
			p.hwm = max(p.hwm, v)
		}
	}
	return true
}

func run(bin, home, calls string) error {
	cmd := exec.Command(bin, "mcp")
	cmd.Env = append(os.Environ(), "PAPERS_HOME="+home)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return err
	}
	var pk peaks
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-done:
				return
			case <-time.After(5 * time.Millisecond):
				pk.sample(cmd.Process.Pid)
			}
		}
	}()
	r := bufio.NewReader(out)
	id := 0
	call := func(method string, params any) (json.RawMessage, error) {
		id++
		msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
		if _, err := in.Write(append(msg, '\n')); err != nil {
			return nil, err
		}
		for {
			line, err := r.ReadBytes('\n')
			if err != nil {
				return nil, fmt.Errorf("%s: %w", method, err)
			}
			var resp struct {
				ID     *int            `json:"id"`
				Result json.RawMessage `json:"result"`
				Error  json.RawMessage `json:"error"`
			}
			if json.Unmarshal(line, &resp) != nil || resp.ID == nil || *resp.ID != id {
				continue // a notification
			}
			if resp.Error != nil {
				return nil, fmt.Errorf("%s: %s", method, resp.Error)
			}
			return resp.Result, nil
		}
	}
	if _, err := call("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "mcpmem", "version": "1"}}); err != nil {
		return err
	}
	in.Write([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n"))
	fmt.Printf("started and initialized in %.0f ms\n", ms(time.Since(start)))
	for _, c := range strings.Split(calls, ";") {
		name, args, ok := strings.Cut(strings.TrimSpace(c), ":")
		if !ok {
			return fmt.Errorf("call %q: want NAME:JSON", c)
		}
		t := time.Now()
		res, err := call("tools/call", map[string]any{"name": name, "arguments": json.RawMessage(args)})
		if err != nil {
			return err
		}
		var r struct {
			IsError bool `json:"isError"`
		}
		json.Unmarshal(res, &r)
		pk.sample(cmd.Process.Pid)
		fmt.Printf("  %-8s %6.0f ms (isError %v, %d bytes)\n", name, ms(time.Since(t)), r.IsError, len(res))
	}
	pk.sample(cmd.Process.Pid)
	in.Close()
	io.Copy(io.Discard, r)
	err = cmd.Wait()
	close(done)
	fmt.Printf("peak VmHWM %d MB; sampled peaks: VmRSS %d MB, RssAnon %d MB, RssFile %d MB\n",
		pk.hwm/1024, pk.rss/1024, pk.anon/1024, pk.file/1024)
	return err
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
