package browse

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// Binding is one action's keys: the keys it matches and what the help
// screen says (key.Binding's Help), and the key as the footer names it.
type Binding struct {
	key.Binding
	Foot string // e.g. "j/k": the footer adds the word of its screen
}

func bind(foot, help, desc string, keys ...string) Binding {
	return Binding{Binding: key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc)), Foot: foot}
}

// KeyMap is browse's keys, declared once: the model matches key presses
// against it, the help screen (?) lists it and the footer names the keys
// of each screen from it.
type KeyMap struct {
	Down, Up             Binding // move the cursor or scroll, one line
	Top, Bottom          Binding
	PageDown, PageUp     Binding
	NextPaper, PrevPaper Binding // in a paper: the next one of the list it was opened from
	Open                 Binding // open the paper under the cursor; choose a topic
	OpenURL              Binding
	Save                 Binding
	AskPaper             Binding
	AskTopic             Binding
	Search               Binding
	Related              Binding
	Review               Binding // ask the page's newest papers a question; in a review, one more
	Topic                Binding
	Back                 Binding // back a screen; cancels what runs
	Help                 Binding
	Quit                 Binding
	Interrupt            Binding // quits from anywhere, a question line included
}

// DefaultKeyMap is the keys browse uses.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Down:      bind("j", "j ↓", "down", "j", "down"),
		Up:        bind("k", "k ↑", "up", "k", "up"),
		Top:       bind("g", "g", "first", "g", "home"),
		Bottom:    bind("G", "G", "last", "G", "end"),
		PageDown:  bind("PgDn", "PgDn", "a page down", "pgdown", "space", "ctrl+d"),
		PageUp:    bind("PgUp", "PgUp", "a page up", "pgup", "ctrl+u"),
		NextPaper: bind("J", "J", "in a paper: the next paper", "J"),
		PrevPaper: bind("K", "K", "in a paper: the previous paper", "K"),
		Open:      bind("Enter", "Enter", "open the paper: abstract, sections, chunks", "enter"),
		OpenURL:   bind("o", "o", "open its PDF or arXiv page in the browser", "o"),
		Save:      bind("s", "s", "save or unsave it (papers list --saved)", "s"),
		AskPaper:  bind("a", "a", "ask this paper (AskPDF)", "a"),
		AskTopic:  bind("A", "A", "ask about the topic", "A"),
		Search:    bind("/", "/", "search the topic", "/"),
		Related:   bind("r", "r", "related papers", "r"),
		Review:    bind("v", "v", fmt.Sprintf("a review: ask the newest %d papers a question (v: one more)", ReviewRows), "v"),
		Topic:     bind("t", "t", "switch topic", "t"),
		Back:      bind("Esc", "Esc", "back; cancels an answer or a search", "esc"),
		Help:      bind("?", "?", "this help", "?"),
		Quit:      bind("q", "q", "quit", "q"),
		Interrupt: bind("ctrl+c", "ctrl+c", "quit", "ctrl+c"),
	}
}

// helpRows are the help screen's lines: a key (or a pair) and what it does.
func (k KeyMap) helpRows() [][2]string {
	pair := func(a, b Binding, desc string) [2]string {
		ha, hb := a.Help(), b.Help()
		ka, ra, _ := strings.Cut(ha.Key, " ")
		kb, rb, _ := strings.Cut(hb.Key, " ")
		keys := ka + "/" + kb
		if ra != "" && rb != "" {
			keys += " " + ra + "/" + rb
		}
		return [2]string{keys, desc}
	}
	one := func(b Binding) [2]string { return [2]string{b.Help().Key, b.Help().Desc} }
	return [][2]string{
		pair(k.Down, k.Up, "move"),
		pair(k.Top, k.Bottom, "first / last"),
		pair(k.PageDown, k.PageUp, "a page down / up"),
		one(k.Open),
		pair(k.NextPaper, k.PrevPaper, "in a paper: the next / previous paper"),
		one(k.OpenURL),
		one(k.Save),
		one(k.AskPaper),
		one(k.AskTopic),
		one(k.Search),
		one(k.Related),
		one(k.Review),
		one(k.Topic),
		one(k.Back),
		one(k.Help),
		one(k.Quit),
	}
}

// foot is one key of a footer, with the word its screen gives it.
type foot struct {
	b    []Binding // one, or a pair named together ("j/k")
	word string
}

// footer names the keys of screen s.
func (k KeyMap) footer(s screen) string {
	move := foot{[]Binding{k.Down, k.Up}, "move"}
	var items []foot
	switch s {
	case scrPaper:
		items = []foot{{[]Binding{k.NextPaper, k.PrevPaper}, "move"}, {[]Binding{k.Down, k.Up}, "scroll"}, {[]Binding{k.Save}, "save"},
			{[]Binding{k.OpenURL}, "open"}, {[]Binding{k.AskPaper}, "AskPDF"}, {[]Binding{k.Related}, "related"}, {[]Binding{k.Help}, "help"}, {[]Binding{k.Quit}, "quit"}}
	case scrAnswer:
		items = []foot{{[]Binding{k.Down, k.Up}, "scroll"}, {[]Binding{k.Back}, "back"}, {[]Binding{k.Quit}, "quit"}}
	case scrReview:
		items = []foot{{[]Binding{k.Down, k.Up}, "scroll"}, {[]Binding{k.Review}, "another question"}, {[]Binding{k.Back}, "back"}, {[]Binding{k.Quit}, "quit"}}
	case scrPicker:
		items = []foot{move, {[]Binding{k.Open}, "choose"}, {[]Binding{k.Back}, "back"}, {[]Binding{k.Quit}, "quit"}}
	case scrHelp:
		items = []foot{{[]Binding{k.Help}, "or " + k.Back.Foot + " back"}, {[]Binding{k.Quit}, "quit"}}
	default:
		items = []foot{move, {[]Binding{k.Open}, "open"}, {[]Binding{k.Save}, "save"}, {[]Binding{k.OpenURL}, "open"},
			{[]Binding{k.AskPaper}, "AskPDF"}, {[]Binding{k.AskTopic}, "ask"}, {[]Binding{k.Search}, "search"}, {[]Binding{k.Related}, "related"},
			{[]Binding{k.Topic}, "topic"}, {[]Binding{k.Help}, "help"}, {[]Binding{k.Quit}, "quit"}}
	}
	parts := make([]string, len(items))
	for i, it := range items {
		names := make([]string, len(it.b))
		for j, b := range it.b {
			names[j] = b.Foot
		}
		parts[i] = fmt.Sprintf("%s %s", strings.Join(names, "/"), it.word)
	}
	return strings.Join(parts, " · ")
}

// is reports whether key press p is one of b's keys.
func is(p tea.KeyPressMsg, b Binding) bool { return key.Matches(p, b.Binding) }
