// Package browse is `papers browse`: a research feed's topic page in the
// terminal, a bubbletea program. The page shows a topic (or the whole
// library): its name and description, its momentum as the feed words it
// and a 12-week chart, then its latest papers; a paper opens with its
// abstract, sections and chunks; s saves, a asks the paper (AskPDF), A the
// topic, / searches, r lists related papers, v asks every paper of the page
// one question more (a review table, as papers review makes it), t
// switches topic.
//
// The Model is a pure function of messages: every read or write of the
// library runs in a tea.Cmd through the Backend and comes back as a
// message, so tests drive Update with keys and results and compare View
// with golden screens. Long work (an answer, a search, related papers)
// runs with a context of its own that Esc cancels; its result, if it comes
// after all, is dropped by its sequence number.
package browse

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/spinner"
	"charm.land/bubbles/v2/textinput"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"

	"github.com/papers-cli/papers/ask"
	"github.com/papers-cli/papers/internal/safetext"
	"github.com/papers-cli/papers/internal/textkit"
	"github.com/papers-cli/papers/related"
	"github.com/papers-cli/papers/retrieve"
	"github.com/papers-cli/papers/review"
	"github.com/papers-cli/papers/store"
	"github.com/papers-cli/papers/topic"
)

// Options configure a Model.
type Options struct {
	// Topic is the topic to open; "" opens the whole library, or the topic
	// picker when PickTopic is set.
	Topic     string
	PickTopic bool
	// Page, if not nil, is the page already loaded (the first frame then
	// shows it at once); else Init loads it.
	Page *Page
	// Color allows colours and styles (NO_COLOR, TERM=dumb turn it off).
	Color bool
	// Open opens a URL in the user's browser; nil, or an error, shows the
	// URL instead.
	Open func(url string) error
	// Online asks arXiv for the topic's momentum in the background (the
	// library's count shows meanwhile).
	Online bool
	// Width and Height are the terminal's size until the first
	// tea.WindowSizeMsg (0: 80x24).
	Width, Height int
	// Keys are the keys (nil: DefaultKeyMap).
	Keys *KeyMap
}

// screen is what the model shows.
type screen int

const (
	scrPage screen = iota
	scrPaper
	scrAnswer
	scrSearch
	scrRelated
	scrPicker
	scrHelp
	scrReview
)

// inputKind is what the question line is for.
type inputKind int

const (
	inNone inputKind = iota
	inAskPaper
	inAskTopic
	inSearch
	inReview
)

// ReviewRows is how many papers of the page (its newest) the review view
// asks: a table that stays readable, and quick to fill.
const ReviewRows = 20

// Model is the browse program's state. The zero value is not usable:
// build it with New.
type Model struct {
	be   Backend
	opts Options
	st   styles
	keys KeyMap
	w, h int

	stack []screen // screens below the current one, for Esc

	page     *Page
	pageList cursor

	paper     *Detail
	paperView viewport.Model

	answerQ, answerOn string // the question, and what it asks ("this paper", the topic)
	answerText        strings.Builder
	answerRes         *ask.Result
	answerErr         error
	answerView        viewport.Model
	stream            chan tea.Msg

	searchQ    string
	hits       []retrieve.Passage
	searchList cursor

	relatedTo   store.Paper
	rel         []related.Result
	relatedList cursor

	topics     []store.Topic
	pickerList cursor

	reviewPapers []store.Paper
	reviewCols   []review.Column
	reviewTable  *review.Table
	reviewView   viewport.Model

	input    textinput.Model
	inputFor inputKind

	spin   spinner.Model
	busy   string // what is running ("answering"), "" when idle
	cancel context.CancelFunc
	seq    int // of the work running; results of other work are dropped

	saves map[string]time.Time // saves and unsaves (zero) made here, by paper

	status string // one line for the user: an error, a URL, "saved"
	err    error  // a failure to load the page itself
}

// New builds the model of papers browse on be.
func New(be Backend, opts Options) *Model {
	m := &Model{be: be, opts: opts, st: newStyles(opts.Color), w: opts.Width, h: opts.Height, page: opts.Page, saves: map[string]time.Time{}}
	m.keys = DefaultKeyMap()
	if opts.Keys != nil {
		m.keys = *opts.Keys
	}
	if m.w <= 0 {
		m.w = 80
	}
	if m.h <= 0 {
		m.h = 24
	}
	m.input = textinput.New()
	ist := textinput.DefaultStyles(true)
	ist.Cursor.Blink = false
	m.input.SetStyles(ist)
	m.spin = spinner.New(spinner.WithSpinner(spinner.MiniDot))
	m.paperView = viewport.New()
	m.answerView = viewport.New()
	m.reviewView = viewport.New()
	if opts.PickTopic && opts.Topic == "" && opts.Page == nil {
		m.push(scrPicker)
	}
	m.layout()
	return m
}

// Init loads what the first screen needs.
func (m *Model) Init() tea.Cmd {
	var cmds []tea.Cmd
	if m.top() == scrPicker {
		cmds = append(cmds, m.loadTopics())
	} else if m.page == nil {
		cmds = append(cmds, m.loadPage(m.opts.Topic))
	}
	if m.page != nil {
		cmds = append(cmds, m.onlineMomentum(), m.loadRest())
	}
	return tea.Batch(cmds...)
}

// Messages: every result comes back as one.
type (
	pageMsg struct {
		page *Page
		rest bool // all the papers of the page shown, its newest first loaded
		err  error
	}
	momentumMsg struct {
		topic string
		m     *topic.Momentum
	}
	topicsMsg struct {
		topics []store.Topic
		err    error
	}
	paperMsg struct {
		seq    int
		detail *Detail
		err    error
	}
	savedMsg struct {
		id    string
		saved bool
		err   error
	}
	chunkMsg struct {
		seq  int
		text string
	}
	answerMsg struct {
		seq int
		res *ask.Result
		err error
	}
	searchMsg struct {
		seq   int
		query string
		hits  []retrieve.Passage
		err   error
	}
	relatedMsg struct {
		seq int
		to  store.Paper
		res []related.Result
		err error
	}
	openedMsg struct {
		url string
		err error
	}
	reviewMsg struct {
		seq   int
		cols  []review.Column
		table *review.Table
		err   error
	}
)

func (m *Model) top() screen {
	if len(m.stack) == 0 {
		return scrPage
	}
	return m.stack[len(m.stack)-1]
}

func (m *Model) push(s screen) {
	if m.top() != s || len(m.stack) == 0 && s != scrPage {
		m.stack = append(m.stack, s)
	}
}

func (m *Model) pop() {
	if len(m.stack) > 0 {
		m.stack = m.stack[:len(m.stack)-1]
	}
}

// startWork begins long work: a context Esc cancels, a sequence number
// its results carry, and the spinner.
func (m *Model) startWork(what string) (context.Context, int, tea.Cmd) {
	m.stopWork()
	ctx, cancel := context.WithCancel(context.Background())
	m.seq++
	m.cancel, m.busy, m.status = cancel, what, ""
	return ctx, m.seq, m.spin.Tick
}

// stopWork cancels the work running, if any.
func (m *Model) stopWork() {
	if m.cancel != nil {
		m.cancel()
	}
	m.cancel, m.busy, m.stream = nil, "", nil
}

// loadPage loads the newest papers of page name (FirstPapers; the rest
// follows, loadRest).
func (m *Model) loadPage(name string) tea.Cmd {
	be := m.be
	return func() tea.Msg {
		pg, err := be.Page(context.Background(), name, FirstPapers)
		return pageMsg{page: pg, err: err}
	}
}

// loadRest loads every paper of the page shown when it holds only its
// newest.
func (m *Model) loadRest() tea.Cmd {
	if !m.page.Partial() {
		return nil
	}
	be, name := m.be, ""
	if !m.page.All {
		name = m.page.Topic.Name
	}
	return func() tea.Msg {
		pg, err := be.Page(context.Background(), name, 0)
		return pageMsg{page: pg, rest: true, err: err}
	}
}

func (m *Model) onlineMomentum() tea.Cmd {
	if !m.opts.Online || m.page == nil || m.page.All {
		return nil
	}
	be, t := m.be, m.page.Topic
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		mo, err := be.OnlineMomentum(ctx, t)
		if err != nil || mo == nil {
			return nil // the library's count stays
		}
		return momentumMsg{topic: t.Name, m: mo}
	}
}

func (m *Model) loadTopics() tea.Cmd {
	be := m.be
	return func() tea.Msg {
		ts, err := be.Topics(context.Background())
		return topicsMsg{topics: ts, err: err}
	}
}

// Update handles one message.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.w, m.h = msg.Width, msg.Height
		m.layout()
		return m, nil
	case spinner.TickMsg:
		if m.busy == "" {
			return m, nil
		}
		var cmd tea.Cmd
		m.spin, cmd = m.spin.Update(msg)
		return m, cmd
	case tea.KeyPressMsg:
		return m, m.key(msg)
	case tea.PasteMsg:
		if m.inputFor != inNone {
			var cmd tea.Cmd
			m.input, cmd = m.input.Update(msg)
			return m, cmd
		}
		return m, nil
	}
	return m, m.result(msg)
}

// result takes the result of a Cmd.
func (m *Model) result(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case pageMsg:
		if msg.rest {
			// The rest of the page shown: keep its cursor, its momentum
			// (arXiv's, if it came) and the saves made meanwhile.
			if m.page == nil || msg.err != nil || msg.page.All != m.page.All || !strings.EqualFold(msg.page.Topic.Name, m.page.Topic.Name) {
				return nil
			}
			msg.page.Momentum = m.page.Momentum
			m.page = msg.page
			for id, at := range m.saves {
				m.markSaved(id, at)
			}
			m.layout()
			return nil
		}
		if msg.err != nil {
			m.err = msg.err
			return nil
		}
		m.page, m.err = msg.page, nil
		m.pageList = cursor{}
		m.layout()
		return tea.Batch(m.onlineMomentum(), m.loadRest())
	case momentumMsg:
		if m.page != nil && !m.page.All && m.page.Topic.Name == msg.topic {
			m.page.Momentum = msg.m
		}
	case topicsMsg:
		if msg.err != nil {
			m.status = "topics: " + msg.err.Error()
			return nil
		}
		m.topics = msg.topics
		m.pickerList = cursor{}
		if m.page != nil && !m.page.All {
			for i, t := range m.topics {
				if strings.EqualFold(t.Name, m.page.Topic.Name) {
					m.pickerList.i = i + 1
				}
			}
		}
	case paperMsg:
		if msg.seq != m.seq {
			return nil
		}
		m.stopWork()
		if msg.err != nil {
			m.status = msg.err.Error()
			return nil
		}
		m.paper = msg.detail
		m.push(scrPaper)
		m.renderPaper()
		m.paperView.GotoTop()
	case savedMsg:
		if msg.err != nil {
			m.status = msg.err.Error()
			return nil
		}
		at := time.Time{}
		if msg.saved {
			at = time.Now()
		}
		m.saves[msg.id] = at
		m.markSaved(msg.id, at)
		if msg.saved {
			m.status = "saved " + msg.id + " (papers list --saved)"
		} else {
			m.status = "unsaved " + msg.id
		}
	case chunkMsg:
		if msg.seq != m.seq {
			return nil
		}
		m.answerText.WriteString(msg.text)
		m.renderAnswer(true)
		return m.next()
	case answerMsg:
		if msg.seq != m.seq {
			return nil
		}
		m.stopWork()
		m.answerRes, m.answerErr = msg.res, msg.err
		m.renderAnswer(true)
	case searchMsg:
		if msg.seq != m.seq {
			return nil
		}
		m.stopWork()
		if msg.err != nil {
			m.status = "search: " + msg.err.Error()
			return nil
		}
		m.searchQ, m.hits, m.searchList = msg.query, msg.hits, cursor{}
		m.push(scrSearch)
	case relatedMsg:
		if msg.seq != m.seq {
			return nil
		}
		m.stopWork()
		if msg.err != nil {
			m.status = "related: " + msg.err.Error()
			return nil
		}
		m.relatedTo, m.rel, m.relatedList = msg.to, msg.res, cursor{}
		m.push(scrRelated)
	case reviewMsg:
		if msg.seq != m.seq {
			return nil
		}
		m.stopWork()
		if msg.err != nil {
			m.status = "review: " + msg.err.Error()
			if msg.table != nil && msg.table.Computed+msg.table.Cached > 0 {
				m.status += fmt.Sprintf(" (%d cells done are kept)", msg.table.Computed+msg.table.Cached)
			}
			return nil
		}
		m.reviewCols, m.reviewTable = msg.cols, msg.table
		m.push(scrReview)
		m.renderReview()
		m.reviewView.GotoTop()
	case openedMsg:
		if msg.err != nil || m.opts.Open == nil {
			m.status = "open in a browser: " + msg.url
		} else {
			m.status = "opened " + msg.url
		}
	}
	return nil
}

// next waits for the next piece of a streamed answer.
func (m *Model) next() tea.Cmd {
	ch := m.stream
	if ch == nil {
		return nil
	}
	return func() tea.Msg {
		msg, ok := <-ch
		if !ok {
			return nil
		}
		return msg
	}
}

// markSaved updates every copy of paper id the model holds: saved at at
// (zero: not saved).
func (m *Model) markSaved(id string, at time.Time) {
	set := func(p *store.Paper) {
		if p.ID == id {
			p.Saved = at
		}
	}
	if m.page != nil {
		for i := range m.page.Papers {
			set(&m.page.Papers[i])
		}
	}
	for i := range m.rel {
		set(&m.rel[i].Paper)
	}
	if m.paper != nil {
		set(&m.paper.Paper)
		m.renderPaper()
	}
}

// key handles a key press.
func (m *Model) key(k tea.KeyPressMsg) tea.Cmd {
	keys := &m.keys
	if is(k, keys.Interrupt) {
		m.stopWork()
		return tea.Quit
	}
	if m.inputFor != inNone {
		return m.inputKey(k)
	}
	if is(k, keys.Back) {
		if m.busy != "" {
			m.stopWork()
			m.status = "cancelled"
			if m.top() == scrAnswer {
				m.answerErr = context.Canceled
				m.renderAnswer(true)
			}
			return nil
		}
		if m.top() == scrPicker && m.page == nil {
			return nil // nothing below to go back to
		}
		m.pop()
		m.status = ""
		return nil
	}
	switch {
	case is(k, keys.Quit):
		m.stopWork()
		return tea.Quit
	case is(k, keys.Help):
		if m.top() == scrHelp {
			m.pop()
		} else {
			m.push(scrHelp)
		}
		return nil
	}
	switch m.top() {
	case scrHelp:
		return nil
	case scrPicker:
		return m.pickerKey(k)
	case scrPaper:
		return m.paperKey(k)
	case scrAnswer:
		m.scroll(&m.answerView, k)
		return nil
	case scrReview:
		if is(k, keys.Review) {
			return m.startInput(inReview)
		}
		m.scroll(&m.reviewView, k)
		return nil
	}
	// Screens that list papers (the page, search hits, related).
	l, n, per := m.currentList()
	if l == nil {
		return nil
	}
	if m.moveKey(l, n, max(1, m.listRows()/per), k) {
		return nil
	}
	switch {
	case is(k, keys.Topic):
		m.push(scrPicker)
		return m.loadTopics()
	case is(k, keys.AskTopic):
		return m.startInput(inAskTopic)
	case is(k, keys.Search):
		return m.startInput(inSearch)
	case is(k, keys.Review):
		if m.top() == scrPage && m.page != nil && len(m.page.Papers) > 0 {
			m.reviewPapers, m.reviewCols, m.reviewTable = m.page.Papers[:min(len(m.page.Papers), ReviewRows)], nil, nil
			return m.startInput(inReview)
		}
	}
	p, ok := m.selected()
	if !ok {
		return nil
	}
	if is(k, keys.Open) {
		return m.openPaper(p.ID)
	}
	return m.paperAction(k, p)
}

// moveKey moves list l of n items, rows a page, by a movement key; it
// reports whether k was one.
func (m *Model) moveKey(l *cursor, n, rows int, k tea.KeyPressMsg) bool {
	keys := &m.keys
	switch {
	case is(k, keys.Down):
		l.move(1, n, rows)
	case is(k, keys.Up):
		l.move(-1, n, rows)
	case is(k, keys.Top):
		l.move(-n, n, rows)
	case is(k, keys.Bottom):
		l.move(n, n, rows)
	case is(k, keys.PageDown):
		l.move(rows, n, rows)
	case is(k, keys.PageUp):
		l.move(-rows, n, rows)
	default:
		return false
	}
	return true
}

// paperAction does what k asks of paper p (save, open, ask, related), on
// a list or in the paper itself.
func (m *Model) paperAction(k tea.KeyPressMsg, p store.Paper) tea.Cmd {
	keys := &m.keys
	switch {
	case is(k, keys.Save):
		return m.toggleSave(p)
	case is(k, keys.OpenURL):
		return m.openURL(p)
	case is(k, keys.AskPaper):
		return m.startInput(inAskPaper)
	case is(k, keys.Related):
		return m.findRelated(p)
	}
	return nil
}

// currentList is the list of the screen shown, its length and its rows
// per item.
func (m *Model) currentList() (*cursor, int, int) { return m.listOf(m.top()) }

// listOf is the list screen s shows (nil for a screen without one), its
// length and its rows per item.
func (m *Model) listOf(s screen) (*cursor, int, int) {
	switch s {
	case scrSearch:
		return &m.searchList, len(m.hits), 2
	case scrRelated:
		return &m.relatedList, len(m.rel), 3
	case scrPage:
		if m.page == nil {
			return nil, 0, 1
		}
		return &m.pageList, len(m.page.Papers), 3
	}
	return nil, 0, 1
}

// selected is the paper under the cursor of the screen shown (the paper
// itself when one is open).
func (m *Model) selected() (store.Paper, bool) { return m.selectedOn(m.top()) }

// selectedOn is the paper under the cursor of screen s.
func (m *Model) selectedOn(s screen) (store.Paper, bool) {
	switch s {
	case scrPaper:
		if m.paper != nil {
			return m.paper.Paper, true
		}
	case scrSearch:
		if m.searchList.i < len(m.hits) {
			return m.hits[m.searchList.i].Paper, true
		}
	case scrRelated:
		if m.relatedList.i < len(m.rel) {
			return m.rel[m.relatedList.i].Paper, true
		}
	case scrPage:
		if m.page != nil && m.pageList.i < len(m.page.Papers) {
			return m.page.Papers[m.pageList.i], true
		}
	}
	return store.Paper{}, false
}

func (m *Model) paperKey(k tea.KeyPressMsg) tea.Cmd {
	if m.scroll(&m.paperView, k) {
		return nil
	}
	keys := &m.keys
	p, _ := m.selected()
	switch {
	case is(k, keys.NextPaper):
		return m.nextPaper(1)
	case is(k, keys.PrevPaper):
		return m.nextPaper(-1)
	case is(k, keys.AskTopic):
		return m.startInput(inAskTopic)
	case is(k, keys.Search):
		return m.startInput(inSearch)
	case is(k, keys.Topic):
		m.push(scrPicker)
		return m.loadTopics()
	}
	return m.paperAction(k, p)
}

// nextPaper opens, in place of the paper shown, the paper d places
// after it in the list it was opened from (the feed's reader: J/K move).
func (m *Model) nextPaper(d int) tea.Cmd {
	from := scrPage
	if n := len(m.stack); n >= 2 {
		from = m.stack[n-2]
	}
	l, n, per := m.listOf(from)
	if l == nil || n == 0 {
		return nil
	}
	was := l.i
	l.move(d, n, max(1, m.listRowsOf(from)/per))
	if l.i == was {
		if d > 0 {
			m.status = "the last paper of the list"
		} else {
			m.status = "the first paper of the list"
		}
		return nil
	}
	p, ok := m.selectedOn(from)
	if !ok {
		return nil
	}
	return m.openPaper(p.ID)
}

// scroll moves a viewport by a key; it reports whether the key was one.
func (m *Model) scroll(v *viewport.Model, k tea.KeyPressMsg) bool {
	keys := &m.keys
	switch {
	case is(k, keys.Down):
		v.ScrollDown(1)
	case is(k, keys.Up):
		v.ScrollUp(1)
	case is(k, keys.PageDown):
		v.PageDown()
	case is(k, keys.PageUp):
		v.PageUp()
	case is(k, keys.Top):
		v.GotoTop()
	case is(k, keys.Bottom):
		v.GotoBottom()
	default:
		return false
	}
	return true
}

func (m *Model) pickerKey(k tea.KeyPressMsg) tea.Cmd {
	n := len(m.topics) + 1 // "All papers" first
	rows := max(1, m.h-4)
	if is(k, m.keys.PageDown) || is(k, m.keys.PageUp) {
		return nil // the picker moves by lines and ends only
	}
	if m.moveKey(&m.pickerList, n, rows, k) {
		return nil
	}
	if is(k, m.keys.Open) {
		name := ""
		if i := m.pickerList.i; i > 0 && i <= len(m.topics) {
			name = m.topics[i-1].Name
		}
		m.stack = nil
		m.page = nil
		return m.loadPage(name)
	}
	return nil
}

func (m *Model) openPaper(id string) tea.Cmd {
	ctx, seq, tick := m.startWork("opening " + id)
	be := m.be
	return tea.Batch(tick, func() tea.Msg {
		d, err := be.Paper(ctx, id)
		return paperMsg{seq: seq, detail: d, err: err}
	})
}

func (m *Model) toggleSave(p store.Paper) tea.Cmd {
	be, save := m.be, p.Saved.IsZero()
	return func() tea.Msg {
		err := be.SetSaved(context.Background(), p.ID, save)
		return savedMsg{id: p.ID, saved: save, err: err}
	}
}

func (m *Model) openURL(p store.Paper) tea.Cmd {
	url := m.be.URL(p)
	if url == "" {
		m.status = "no PDF or page is known for " + p.ID
		return nil
	}
	open := m.opts.Open
	return func() tea.Msg {
		if open == nil {
			return openedMsg{url: url, err: errors.New("no opener")}
		}
		return openedMsg{url: url, err: open(url)}
	}
}

func (m *Model) findRelated(p store.Paper) tea.Cmd {
	ctx, seq, tick := m.startWork("finding papers like " + p.ID)
	be := m.be
	name := ""
	if m.page != nil && !m.page.All {
		name = m.page.Topic.Name
	}
	return tea.Batch(tick, func() tea.Msg {
		res, err := be.Related(ctx, p.ID, name)
		return relatedMsg{seq: seq, to: p, res: res, err: err}
	})
}

// startInput opens the question line.
func (m *Model) startInput(k inputKind) tea.Cmd {
	m.inputFor = k
	m.input.Reset()
	switch k {
	case inAskPaper:
		p, _ := m.selected()
		m.input.Prompt = "Ask " + safetext.OneLine(p.ID) + ": "
		m.input.Placeholder = "a question about this paper"
	case inAskTopic:
		m.input.Prompt = "Ask " + m.scopeName() + ": "
		m.input.Placeholder = "a question about these papers"
	case inSearch:
		m.input.Prompt = "Search " + m.scopeName() + ": "
		m.input.Placeholder = "words, a phrase, a question"
	case inReview:
		m.input.Prompt = fmt.Sprintf("Ask each of %s: ", textkit.Count(len(m.reviewPapers), "paper"))
		m.input.Placeholder = "a question, or name: question (What method does it propose?)"
	}
	m.input.SetWidth(max(10, m.w-len(m.input.Prompt)-2))
	return m.input.Focus()
}

// scopeName names what A and / cover: the topic, or the library.
func (m *Model) scopeName() string {
	if m.page == nil || m.page.All {
		return "the library"
	}
	return m.page.Topic.Name
}

// scope is the filter of A and /: the topic's papers.
func (m *Model) scope() store.Filter {
	if m.page == nil || m.page.All {
		return store.Filter{}
	}
	return store.Filter{Topics: []string{m.page.Topic.Name}}
}

// inputKey handles a key on the question line: Back leaves it, Open (the
// Enter key) sends it, the others edit it.
func (m *Model) inputKey(k tea.KeyPressMsg) tea.Cmd {
	switch {
	case is(k, m.keys.Back):
		m.inputFor = inNone
		m.input.Blur()
		return nil
	case is(k, m.keys.Open):
		q := strings.TrimSpace(m.input.Value())
		kind := m.inputFor
		m.inputFor = inNone
		m.input.Blur()
		if q == "" {
			return nil
		}
		switch kind {
		case inAskPaper:
			p, _ := m.selected()
			return m.ask(q, "about "+p.ID+" "+p.Title, store.Filter{IDs: []string{p.ID}})
		case inAskTopic:
			return m.ask(q, "about "+m.scopeName(), m.scope())
		case inSearch:
			return m.runSearch(q)
		case inReview:
			return m.runReview(q)
		}
		return nil
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(k)
	return cmd
}

// ask streams an answer into the answer screen.
func (m *Model) ask(q, on string, f store.Filter) tea.Cmd {
	ctx, seq, tick := m.startWork("answering")
	m.answerQ, m.answerOn, m.answerRes, m.answerErr = q, on, nil, nil
	m.answerText.Reset()
	if m.top() == scrAnswer {
		m.pop()
	}
	m.push(scrAnswer)
	m.renderAnswer(false)
	ch := make(chan tea.Msg, 64)
	m.stream = ch
	be := m.be
	go func() {
		defer close(ch)
		w := chanWriter{ctx: ctx, seq: seq, ch: ch}
		res, err := be.Ask(ctx, q, f, w)
		select {
		case ch <- answerMsg{seq: seq, res: res, err: err}:
		case <-ctx.Done():
		}
	}()
	return tea.Batch(tick, m.next())
}

// chanWriter sends what an answer writes to the model, piece by piece.
type chanWriter struct {
	ctx context.Context
	seq int
	ch  chan<- tea.Msg
}

func (w chanWriter) Write(p []byte) (int, error) {
	select {
	case w.ch <- chunkMsg{seq: w.seq, text: string(p)}:
		return len(p), nil
	case <-w.ctx.Done():
		return 0, w.ctx.Err()
	}
}

// runReview asks the review's papers one question more: its table grows
// by a column (cells cached by earlier reviews come at once).
func (m *Model) runReview(q string) tea.Cmd {
	col, err := review.ParseColumn(q)
	if err != nil {
		m.status = "review: " + err.Error()
		return nil
	}
	cols, err := review.CheckColumns(append(append([]review.Column(nil), m.reviewCols...), col))
	if err != nil {
		m.status = "review: " + err.Error()
		return nil
	}
	ctx, seq, tick := m.startWork(fmt.Sprintf("asking %s", textkit.Count(len(m.reviewPapers), "paper")))
	be, papers := m.be, m.reviewPapers
	return tea.Batch(tick, func() tea.Msg {
		t, err := be.Review(ctx, papers, cols)
		return reviewMsg{seq: seq, cols: cols, table: t, err: err}
	})
}

func (m *Model) runSearch(q string) tea.Cmd {
	ctx, seq, tick := m.startWork("searching")
	be, f := m.be, m.scope()
	return tea.Batch(tick, func() tea.Msg {
		hits, err := be.Search(ctx, q, f)
		return searchMsg{seq: seq, query: q, hits: hits, err: err}
	})
}

// cursor is a position in a list and the first item shown.
type cursor struct{ i, top int }

// move moves the cursor by d within n items, keeping it among the rows
// items shown.
func (c *cursor) move(d, n, rows int) {
	if n == 0 {
		c.i, c.top = 0, 0
		return
	}
	c.i = min(max(c.i+d, 0), n-1)
	c.fit(rows)
}

// fit scrolls so that the cursor is among the rows items shown.
func (c *cursor) fit(rows int) {
	if c.i < c.top {
		c.top = c.i
	}
	if c.i >= c.top+rows {
		c.top = c.i - rows + 1
	}
}
