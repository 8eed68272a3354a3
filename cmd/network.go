package cmd

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/papers-cli/papers/internal/netlog"
	"github.com/papers-cli/papers/internal/textkit"
)

func init() { register(newNetworkCmd) }

type networkOptions struct {
	*globalOptions
	since string
	json  bool
}

func newNetworkCmd(g *globalOptions) *cobra.Command {
	o := &networkOptions{globalOptions: g}
	c := &cobra.Command{
		Use:   "network",
		Short: "List and sum the network requests papers made (the library's network ledger)",
		Long: `List every request papers sent over the network for this library (arXiv
searches and PDFs, model and embedding servers, metadata services), oldest
first, then their sums by host and purpose.

Each request is recorded when it ends, in network.jsonl in the library
directory: when it was sent, the host, what it was for, its HTTP status,
the bytes of its request and response bodies, and for model servers the
model and the tokens it used. Query strings, keys and headers are never
recorded. Under --offline no request is made, and none is recorded.`,
		Example: `  papers network --since 7d
  papers network --json | jq -s 'map(.bytes_received) | add'`,
		Args: exactArgs(0),
		RunE: func(c *cobra.Command, args []string) error {
			return runNetwork(c.Context(), o)
		},
	}
	c.Flags().StringVar(&o.since, "since", "", "only requests sent on or after this date (YYYY-MM-DD, or 1h, 7d, 4w back)")
	addJSON(c, &o.json, "print one JSON object per request (time, host, method, path, purpose, status, bytes_sent, bytes_received, ms, error, model, tokens_in, tokens_out)")
	return c
}

func runNetwork(_ context.Context, o *networkOptions) error {
	var since time.Time
	if o.since != "" {
		var err error
		if since, err = parseSince(o.since, time.Now()); err != nil {
			return err
		}
	}
	dir, err := o.libraryDir()
	if err != nil {
		return err
	}
	rs, err := netlog.Read(dir, since)
	if err != nil {
		return err
	}
	if o.json {
		for _, r := range rs {
			if err := writeJSON(o.io.Out, r); err != nil {
				return err
			}
		}
		return nil
	}
	if len(rs) == 0 {
		fmt.Fprintf(o.io.ErrOut, "no network requests recorded%s (the ledger is %s)\n", sinceNote(o.since), filepath.Join(dir, netlog.LedgerName))
		return nil
	}
	t := newTable(o.io.Out, o.io)
	if o.io.OutTTY {
		t.row("TIME", "HOST", "PURPOSE", "STATUS", "SENT", "RECEIVED", "MS", "TOKENS", "PATH")
	}
	for _, r := range rs {
		t.row(r.Time.Local().Format("2006-01-02 15:04:05"), r.Host, orDash(r.Purpose), requestStatus(r), byteSize(r.Sent), byteSize(r.Received),
			strconv.FormatInt(r.Millis, 10), tokenCount(r.TokensIn, r.TokensOut), r.Path)
	}
	t.flush()
	by, all := netlog.Sum(rs)
	fmt.Fprintln(o.io.Out)
	t = newTable(o.io.Out, o.io)
	for _, s := range by {
		t.row(s.Host, orDash(s.Purpose), textkit.Count(s.Requests, "request"), strconv.Itoa(s.Failed)+" failed",
			byteSize(s.Sent)+" sent", byteSize(s.Received)+" received", tokenCount(s.TokensIn, s.TokensOut))
	}
	t.row("total", "", textkit.Count(all.Requests, "request"), strconv.Itoa(all.Failed)+" failed",
		byteSize(all.Sent)+" sent", byteSize(all.Received)+" received", tokenCount(all.TokensIn, all.TokensOut))
	t.flush()
	return nil
}

// parseSince reads --since: a date (parseDate) or a span back from now in
// hours as well (1h, 12h), which a ledger needs and papers do not.
func parseSince(s string, now time.Time) (time.Time, error) {
	if d, err := time.ParseDuration(s); err == nil && d > 0 {
		return now.Add(-d), nil
	}
	return parseDate(s, now)
}

func sinceNote(since string) string {
	if since == "" {
		return ""
	}
	return " since " + since
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func requestStatus(r netlog.Record) string {
	if r.Status == 0 {
		return orDash(r.Error)
	}
	s := strconv.Itoa(r.Status)
	if r.Error != "" {
		s += " " + r.Error // the body broke off
	}
	return s
}

// byteSize is a byte count for people: 812 B, 48.2 kB, 3.1 MB.
func byteSize(n int64) string {
	switch {
	case n < 1000:
		return strconv.FormatInt(n, 10) + " B"
	case n < 1000_000:
		return strconv.FormatFloat(float64(n)/1e3, 'f', 1, 64) + " kB"
	case n < 1000_000_000:
		return strconv.FormatFloat(float64(n)/1e6, 'f', 1, 64) + " MB"
	}
	return strconv.FormatFloat(float64(n)/1e9, 'f', 2, 64) + " GB"
}

func tokenCount(in, out int) string {
	if in == 0 && out == 0 {
		return "-"
	}
	return fmt.Sprintf("%d in, %d out", in, out)
}
