package cmd

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/papers-cli/papers/internal/hint"
	"github.com/papers-cli/papers/internal/textkit"
	"github.com/papers-cli/papers/library"
	"github.com/papers-cli/papers/resolve"
	"github.com/papers-cli/papers/store"
	"github.com/papers-cli/papers/topic"
)

func init() { register(newTopicCmd) }

func newTopicCmd(g *globalOptions) *cobra.Command {
	c := &cobra.Command{
		Use:   "topic",
		Short: "Follow arXiv topics: add, list, show and remove them",
		Long: `A topic is an arXiv search you follow. ` + "`papers update`" + ` fetches what is new or
revised in each topic, ` + "`papers momentum`" + ` shows how fast it grows and
` + "`papers digest`" + ` summarises its latest papers. A paper may belong to several
topics; ask, search, list, digest and export take --topic NAME.`,
		Example: `  papers topic add rl-agents --query 'abs:"reinforcement learning" AND abs:agent' --description "RL for LLM agents"
  papers update rl-agents
  papers topic list
  papers topic show rl-agents
  papers topic rm rl-agents --purge`,
		Args: usageArgs(cobra.NoArgs), // an unknown subcommand is a usage error (exit 2)
		RunE: func(c *cobra.Command, args []string) error { return c.Help() },
	}
	c.AddCommand(newTopicAddCmd(g), newTopicListCmd(g), newTopicShowCmd(g), newTopicRmCmd(g), newTopicDescribeCmd(g))
	return c
}

type topicAddOptions struct {
	*globalOptions
	name, query, description string
}

func newTopicAddCmd(g *globalOptions) *cobra.Command {
	o := &topicAddOptions{globalOptions: g}
	c := &cobra.Command{
		Use:   "add NAME --query 'ARXIV QUERY'",
		Short: "Follow a new topic (then run papers update NAME)",
		Example: `  papers topic add agents --query 'abs:agent AND cat:cs.CL'
  papers topic add grpo --query 'abs:GRPO OR ti:"group relative policy"' --description "GRPO and its variants"`,
		Args: exactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			o.name = strings.TrimSpace(args[0])
			return runTopicAdd(c.Context(), o)
		},
	}
	c.Flags().StringVar(&o.query, "query", "", "arXiv search query (ti:, abs:, au:, cat:, AND, OR, ANDNOT, \"phrases\")")
	c.Flags().StringVar(&o.description, "description", "", "what the topic is about (shown by topic show, used by digest)")
	return c
}

func runTopicAdd(ctx context.Context, o *topicAddOptions) error {
	name, query := o.name, o.query
	tp := store.Topic{Name: name, Query: query, Description: o.description}
	if err := topicHint(store.CheckTopic(tp)); err != nil {
		return err // before anything is opened
	}
	s, lib, err := openLibrary(ctx, o.globalOptions)
	if err != nil {
		return err
	}
	defer s.Close()
	err = lib.AddTopic(ctx, tp)
	if errors.Is(err, store.ErrTopicExists) {
		return withHint(err, "see it with `papers topic show %s`, or remove it first with `papers topic rm %s`", shellArg(name), shellArg(name))
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(o.io.Out, "following %s: %s\n", name, query)
	fmt.Fprintf(o.io.ErrOut, "fetch its papers with: papers update %s\n", shellArg(name))
	return nil
}

// topicHint makes a topic store.CheckTopic refuses a usage error with the
// fix.
func topicHint(err error) error {
	var bad *store.InvalidTopicError
	if !errors.As(err, &bad) {
		return err
	}
	switch bad.Problem {
	case store.TopicNoName:
		return withHint(withExit(err, ExitUsage), "name it in one word or quote it: papers topic add rl-agents --query 'ARXIV QUERY'")
	case store.TopicControlChar:
		return withHint(withExit(err, ExitUsage), "give a name on one line without tabs")
	}
	return withHint(usageError("a topic needs --query"), "give an arXiv query: ti:, abs:, au:, cat:, AND, OR, ANDNOT, \"phrases\"")
}

// topicRecord is the --json shape of a topic in topic list and topic show.
type topicRecord struct {
	Name        string   `json:"name"`
	Query       string   `json:"query"`
	Description string   `json:"description"`
	Papers      int      `json:"papers"`
	Created     string   `json:"created"`
	LastUpdate  *string  `json:"last_update"` // RFC 3339; null before the first update
	Last4       int      `json:"last_4_weeks"`
	Prev4       int      `json:"previous_4_weeks"`
	ChangePct   *float64 `json:"change_pct"`
}

func newTopicRecord(t store.Topic, m *topic.Momentum) topicRecord {
	r := topicRecord{Name: t.Name, Query: t.Query, Description: t.Description, Papers: t.Papers,
		Created: t.Created.UTC().Format(time.RFC3339), Last4: m.Last4, Prev4: m.Prev4, ChangePct: m.ChangePct}
	if !t.LastUpdate.IsZero() {
		s := t.LastUpdate.UTC().Format(time.RFC3339)
		r.LastUpdate = &s
	}
	return r
}

// momentumLine says "13 vs 16 (-18.8%)" for a table cell.
func momentumLine(m *topic.Momentum) string {
	s := fmt.Sprintf("%d vs %d", m.Last4, m.Prev4)
	if m.ChangePct != nil {
		s += fmt.Sprintf(" (%+.0f%%)", *m.ChangePct)
	}
	return s
}

func lastUpdateText(t store.Topic) string {
	if t.LastUpdate.IsZero() {
		return "never"
	}
	return t.LastUpdate.Local().Format("2006-01-02 15:04")
}

type topicListOptions struct {
	*globalOptions
	json bool
}

func newTopicListCmd(g *globalOptions) *cobra.Command {
	o := &topicListOptions{globalOptions: g}
	c := &cobra.Command{
		Use:   "list",
		Short: "List followed topics: query, papers held, last update, momentum",
		Long: `List followed topics. MOMENTUM is papers of the topic held in the library
from the last 4 weeks against the 4 weeks before (no request to arXiv; see
papers momentum for arXiv's own counts).`,
		Example: `  papers topic list
  papers topic list --json | jq -r 'select(.last_update == null) | .name'`,
		Args: exactArgs(0),
		RunE: func(c *cobra.Command, args []string) error { return runTopicList(c.Context(), o) },
	}
	addJSON(c, &o.json, "print NDJSON: one object per topic")
	return c
}

func runTopicList(ctx context.Context, o *topicListOptions) error {
	s, lib, err := openExisting(ctx, o.globalOptions)
	if err != nil {
		return err
	}
	defer s.Close()
	ts, err := lib.Topics(ctx)
	if err != nil {
		return err
	}
	out := o.io.Out
	if len(ts) == 0 && !o.json {
		fmt.Fprintln(o.io.ErrOut, "no topics yet; follow one with: papers topic add NAME --query 'ARXIV QUERY'")
		return nil
	}
	t := newTable(out, o.io)
	if t.tty && !o.json {
		t.row("NAME", "PAPERS", "LAST UPDATE", "MOMENTUM (4W)", "QUERY")
	}
	for _, tp := range ts {
		m, err := topic.MomentumOffline(ctx, lib, tp, time.Now())
		if err != nil {
			return err
		}
		if o.json {
			if err := writeJSON(out, newTopicRecord(tp, m)); err != nil {
				return err
			}
			continue
		}
		t.row(tp.Name, strconv.Itoa(tp.Papers), lastUpdateText(tp), momentumLine(m), tp.Query)
	}
	t.flush()
	return nil
}

type topicShowOptions struct {
	*globalOptions
	json   bool
	latest int

	name string
}

func newTopicShowCmd(g *globalOptions) *cobra.Command {
	o := &topicShowOptions{globalOptions: g}
	c := &cobra.Command{
		Use:   "show NAME",
		Short: "Show a topic: description, query, momentum and its latest papers",
		Example: `  papers topic show rl-agents
  papers topic show rl-agents --json | jq '.recent[].title'`,
		Args: exactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			o.name = args[0]
			return runTopicShow(c.Context(), o)
		},
	}
	addJSON(c, &o.json, "print JSON: the topic (papers: how many) with its latest papers (recent)")
	c.Flags().IntVar(&o.latest, "latest", 10, "latest papers to show")
	return c
}

func runTopicShow(ctx context.Context, o *topicShowOptions) error {
	s, err := o.session()
	if err != nil {
		return err
	}
	defer s.Close()
	lib, tp, err := openTopic(ctx, s, o.name)
	if err != nil {
		return err
	}
	m, err := topic.MomentumOffline(ctx, lib, tp, time.Now())
	if err != nil {
		return err
	}
	ps, err := lib.List(ctx, store.Filter{Topics: []string{tp.Name}, Limit: o.latest})
	if err != nil {
		return err
	}
	return writeTopic(o.io, tp, m, ps, o.json)
}

func writeTopic(s *IOStreams, tp store.Topic, m *topic.Momentum, ps []store.Paper, asJSON bool) error {
	out := s.Out
	if asJSON {
		recs := []paperRecord{}
		for _, p := range ps {
			recs = append(recs, newPaperRecord(p))
		}
		return writeJSON(out, struct {
			topicRecord
			Recent []paperRecord `json:"recent"` // "papers" is the count, as in topic list
		}{newTopicRecord(tp, m), recs})
	}
	fmt.Fprintln(out, tp.Name)
	if tp.Description != "" {
		fmt.Fprintf(out, "  %s\n", tp.Description)
	}
	fmt.Fprintf(out, "query:        %s\n", tp.Query)
	fmt.Fprintf(out, "papers:       %d\n", tp.Papers)
	fmt.Fprintf(out, "last update:  %s\n", lastUpdateText(tp))
	fmt.Fprintf(out, "momentum:     %s, last 4 weeks vs the 4 before (papers held)\n", momentumLine(m))
	if len(ps) > 0 {
		fmt.Fprintln(out, "latest papers:")
		t := newTable(out, s)
		for _, p := range ps {
			t.row("  "+p.ID, textkit.Day(p.Published), p.Title)
		}
		t.flush()
	}
	return nil
}

type topicRmOptions struct {
	*globalOptions
	purge bool

	name string
}

func newTopicRmCmd(g *globalOptions) *cobra.Command {
	o := &topicRmOptions{globalOptions: g}
	c := &cobra.Command{
		Use:   "rm NAME",
		Short: "Stop following a topic (its papers stay unless --purge)",
		Example: `  papers topic rm old-topic
  papers topic rm old-topic --purge   # also delete the papers it brought that no other topic holds`,
		Args: exactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			o.name = args[0]
			return runTopicRm(c.Context(), o)
		},
	}
	c.Flags().BoolVar(&o.purge, "purge", false, "also delete the papers the topic's updates brought into the library that no other topic holds")
	return c
}

func runTopicRm(ctx context.Context, o *topicRmOptions) error {
	s, err := o.session()
	if err != nil {
		return err
	}
	defer s.Close()
	lib, tp, err := openTopic(ctx, s, o.name)
	if err != nil {
		return err
	}
	purged, err := lib.RemoveTopic(ctx, tp.Name, o.purge)
	if err != nil {
		return err
	}
	if o.purge {
		fmt.Fprintf(o.io.Out, "removed topic %s and %d of its %s (the others belong to other topics or were in the library before it)\n", tp.Name, len(purged), textkit.Count(tp.Papers, "paper"))
	} else {
		fmt.Fprintf(o.io.Out, "removed topic %s; its %s %s in the library\n", tp.Name, textkit.Count(tp.Papers, "paper"), map[bool]string{true: "stays", false: "stay"}[tp.Papers == 1])
	}
	return nil
}

// shellArg quotes s for a POSIX shell when it needs it (hint.Shell).
func shellArg(s string) string { return hint.Shell(s) }

// openTopic opens the library and finds the named topic in it; on error
// nothing is left open.
func openTopic(ctx context.Context, s *library.Session, name string) (*store.Library, store.Topic, error) {
	lib, err := libraryOf(ctx, s)
	if err != nil {
		return nil, store.Topic{}, err
	}
	tp, err := resolve.Topic(ctx, lib, name)
	if err != nil {
		return nil, store.Topic{}, err
	}
	return lib, tp, nil
}
