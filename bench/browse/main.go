// Command browse times `papers browse` as a user meets it (issue 13): the
// binary started on a pseudo-terminal (creack/pty) whose screen is a
// terminal emulator (charmbracelet/x/vt), as in the end-to-end test. It
// measures the time from exec to the first frame showing the page, the
// time from each key press (j, then G and g) to the screen changing, and
// the process's memory from /proc before q quits it.
//
//	go run ./bench/browse -bin /tmp/papers -home LIBRARY -topic NAME
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/charmbracelet/x/vt"
	"github.com/creack/pty"
)

func main() {
	bin := flag.String("bin", "papers", "the papers binary")
	home := flag.String("home", "", "the library (PAPERS_HOME)")
	topic := flag.String("topic", "", "the topic to open")
	runs := flag.Int("runs", 5, "runs")
	keys := flag.Int("keys", 60, "j presses timed per run")
	w := flag.Int("w", 80, "terminal width")
	h := flag.Int("h", 24, "terminal height")
	flag.Parse()
	var first, firstCPU, key, jump []time.Duration
	var mem []string
	for range *runs {
		f, fc, k, j, m, err := run(*bin, *home, *topic, *keys, *w, *h)
		if err != nil {
			fmt.Fprintln(os.Stderr, "browse:", err)
			os.Exit(1)
		}
		first, firstCPU = append(first, f), append(firstCPU, fc)
		key = append(key, k...)
		jump = append(jump, j...)
		mem = append(mem, m)
	}
	fmt.Printf("papers browse --topic %s at %dx%d, %d runs\n", *topic, *w, *h, *runs)
	fmt.Printf("  first frame (exec to the page on screen): %s\n", stats(first))
	fmt.Printf("  CPU used by then (user+system, 10 ms ticks): %s\n", stats(firstCPU))
	fmt.Printf("  j (key to screen changed, %d presses):     %s\n", len(key), stats(key))
	fmt.Printf("  G and g (to the last paper and back):     %s\n", stats(jump))
	for i, m := range mem {
		fmt.Printf("  memory of run %d before q: %s\n", i+1, m)
	}
}

func stats(ds []time.Duration) string {
	slices.Sort(ds)
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	return fmt.Sprintf("min %.1f ms, p50 %.1f ms, p90 %.1f ms, max %.1f ms", ms(ds[0]), ms(ds[len(ds)/2]), ms(ds[len(ds)*9/10]), ms(ds[len(ds)-1]))
}

// screen is what the terminal shows.
type screen struct {
	mu  sync.Mutex
	emu *vt.Emulator
}

func (s *screen) text() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.emu.String()
}

// until waits for ok(screen), polling every 0.2 ms, and returns when it
// first held.
func (s *screen) until(ok func(string) bool, limit time.Duration) (time.Time, error) {
	deadline := time.Now().Add(limit)
	for {
		if ok(s.text()) {
			return time.Now(), nil
		}
		if time.Now().After(deadline) {
			return time.Time{}, fmt.Errorf("the screen did not change in %s; it shows:\n%s", limit, s.text())
		}
		time.Sleep(200 * time.Microsecond)
	}
}

func run(bin, home, topic string, keys, w, h int) (first, firstCPU time.Duration, key, jump []time.Duration, mem string, err error) {
	c := exec.Command(bin, "browse", "--topic", topic, "--offline")
	c.Env = append(os.Environ(), "PAPERS_HOME="+home, "TERM=xterm-256color", "OPENAI_API_KEY=", "OPENAI_BASE_URL=", "PAPERS_LLM=")
	start := time.Now()
	ptm, err := pty.StartWithSize(c, &pty.Winsize{Cols: uint16(w), Rows: uint16(h)})
	if err != nil {
		return 0, 0, nil, nil, "", err
	}
	defer ptm.Close()
	s := &screen{emu: vt.NewEmulator(w, h)}
	go func() {
		buf := make([]byte, 32<<10)
		for {
			n, err := ptm.Read(buf)
			if n > 0 {
				s.mu.Lock()
				s.emu.Write(buf[:n])
				s.mu.Unlock()
			}
			if err != nil {
				return
			}
		}
	}()
	go io.Copy(ptm, s.emu)
	at, err := s.until(func(t string) bool { return strings.Contains(t, "Latest papers") && strings.Contains(t, "▸") }, 30*time.Second)
	if err != nil {
		return 0, 0, nil, nil, "", err
	}
	first, firstCPU = at.Sub(start), cpuOf(c.Process.Pid)
	press := func(k string) (time.Duration, error) {
		before := s.text()
		t0 := time.Now()
		if _, err := ptm.WriteString(k); err != nil {
			return 0, err
		}
		at, err := s.until(func(t string) bool { return t != before }, 10*time.Second)
		if err != nil {
			return 0, err
		}
		d := at.Sub(t0)
		time.Sleep(5 * time.Millisecond) // let the frame finish drawing
		return d, nil
	}
	for range keys {
		d, err := press("j")
		if err != nil {
			return 0, 0, nil, nil, "", err
		}
		key = append(key, d)
	}
	for _, k := range []string{"G", "g"} {
		d, err := press(k)
		if err != nil {
			return 0, 0, nil, nil, "", err
		}
		jump = append(jump, d)
	}
	mem = memory(c.Process.Pid)
	ptm.WriteString("q")
	if err := c.Wait(); err != nil {
		return 0, 0, nil, nil, "", fmt.Errorf("papers browse: %w", err)
	}
	return first, firstCPU, key, jump, mem, nil
}

// cpuOf is the CPU time process pid used so far (/proc/PID/stat utime and
// stime, in clock ticks of 10 ms).
func cpuOf(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	s := string(b)
	fs := strings.Fields(s[strings.LastIndexByte(s, ')')+2:]) // fields from the 3rd
	var u, st int64
	fmt.Sscan(fs[11], &u)
	fmt.Sscan(fs[12], &st)
	return time.Duration(u+st) * 10 * time.Millisecond
}

// memory is the peak and current resident memory of process pid, the
// anonymous part (the heap) apart from mapped files (the library).
func memory(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return err.Error()
	}
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		for _, k := range []string{"VmHWM", "VmRSS", "RssAnon", "RssFile"} {
			if strings.HasPrefix(l, k+":") {
				out = append(out, strings.Join(strings.Fields(l), " "))
			}
		}
	}
	return strings.Join(out, ", ")
}
