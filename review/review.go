package review

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/papers-cli/papers/ask"
	"github.com/papers-cli/papers/internal/safetext"
	"github.com/papers-cli/papers/llm"
	"github.com/papers-cli/papers/retrieve"
	"github.com/papers-cli/papers/store"
)

// Cell is one paper's answer to one column's question. It is what the
// --json document of `papers review` holds per cell (field names are
// stable).
type Cell struct {
	Column int `json:"column"` // 1-based, as in Table.Columns
	// Answer is the short answer; "" when the paper does not state it
	// (Stated false): "not stated" is an answer, never a guess.
	Answer string `json:"answer"`
	// Quote is the sentence of the paper the answer rests on, found
	// verbatim in its text; "" when there is none.
	Quote   string  `json:"quote"`
	Page    int     `json:"page"`    // the quote's page, 1-based; 0 (null in JSON) when unknown or for a paper held without pages
	Section string  `json:"section"` // the quote's section heading; "abstract" for the title and abstract
	Stated  bool    `json:"stated"`  // whether the paper states an answer
	Score   float64 `json:"score"`   // the evidence's score (higher is better); 0 when not stated
	// Note says what is doubtful about the cell: "the model's quote is not
	// in the paper", "the model's reply could not be read". Omitted when
	// nothing is.
	Note string `json:"note,omitempty"`
}

// CellJSON is a Cell as the JSON has it: Page 0 as null.
type CellJSON struct {
	Column  int     `json:"column" jsonschema:"the column, 1-based"`
	Answer  string  `json:"answer" jsonschema:"the short answer; empty when the paper does not state it"`
	Quote   string  `json:"quote" jsonschema:"the sentence of the paper the answer rests on, verbatim; empty when none was found in the paper"`
	Page    *int    `json:"page" jsonschema:"the quote's page, 1-based; null when unknown or the paper has no pages"`
	Section string  `json:"section" jsonschema:"the quote's section heading; abstract for the title and abstract"`
	Stated  bool    `json:"stated" jsonschema:"whether the paper states an answer: false is not stated, never a guess"`
	Score   float64 `json:"score" jsonschema:"the evidence's score, higher is better"`
	Note    string  `json:"note,omitempty" jsonschema:"what is doubtful about the cell, e.g. a model's quote not found in the paper"`
}

// MarshalJSON writes Page 0 as null.
func (c Cell) MarshalJSON() ([]byte, error) { return json.Marshal(c.json()) }

func (c Cell) json() CellJSON {
	v := CellJSON{Column: c.Column, Answer: c.Answer, Quote: c.Quote, Section: c.Section, Stated: c.Stated, Score: c.Score, Note: c.Note}
	if c.Page > 0 {
		p := c.Page
		v.Page = &p
	}
	return v
}

// UnmarshalJSON reads what MarshalJSON writes.
func (c *Cell) UnmarshalJSON(b []byte) error {
	var v CellJSON
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*c = Cell{Column: v.Column, Answer: v.Answer, Quote: v.Quote, Section: v.Section, Stated: v.Stated, Score: v.Score, Note: v.Note}
	if v.Page != nil {
		c.Page = *v.Page
	}
	return nil
}

// Row is one paper of a table with its cells, one per column in order.
type Row struct {
	ID      string `json:"id"`
	Version int    `json:"-"`
	Title   string `json:"title"`
	// Name is what the paper goes by (ask.ShortName: "ECHO", "ReBel"),
	// "" when it has none; the terminal table labels rows with it.
	Name  string `json:"-"`
	Cells []Cell `json:"cells"`
}

// Table is a review: its JSON is the --json document of `papers review`,
// {"columns": [QUESTION...], "rows": [{"id", "title", "cells": [...]}]}.
type Table struct {
	Columns []Column
	Rows    []Row
	// Answerer names what computed the cells (Answerer.Name).
	Answerer string
	// Computed and Cached count the cells computed by this Build and those
	// taken from the library's cache; Missing those an interruption left.
	Computed, Cached, Missing int
	// Usage is the model's tokens for the cells computed (Model answerer).
	Usage llm.Usage
	// Warnings are said once each on stderr (the cache could not be
	// written, ...).
	Warnings []string
}

// Document is the --json document of a table (field names are stable):
// the columns as their questions, the rows with their cells.
type Document struct {
	Columns []string `json:"columns" jsonschema:"the questions, in the order of the cells"`
	Rows    []DocRow `json:"rows" jsonschema:"one per paper"`
}

// DocRow is one paper of a Document.
type DocRow struct {
	ID    string     `json:"id"`
	Title string     `json:"title"`
	Cells []CellJSON `json:"cells" jsonschema:"one per column: the short answer, the verbatim quote with its page and section, whether the paper states it, the evidence's score"`
}

// Document is t as its JSON has it.
func (t *Table) Document() Document {
	d := Document{Columns: make([]string, len(t.Columns)), Rows: make([]DocRow, len(t.Rows))}
	for i, c := range t.Columns {
		d.Columns[i] = c.Question
	}
	for i, r := range t.Rows {
		row := DocRow{ID: r.ID, Title: r.Title, Cells: make([]CellJSON, len(r.Cells))}
		for j, c := range r.Cells {
			row.Cells[j] = c.json()
		}
		d.Rows[i] = row
	}
	return d
}

// MarshalJSON writes t.Document().
func (t *Table) MarshalJSON() ([]byte, error) { return json.Marshal(t.Document()) }

// Library is what a review reads and writes; *store.Library satisfies it.
type Library interface {
	retrieve.Index
	// Chunks returns a paper's chunks in order (to find quotes in it).
	Chunks(ctx context.Context, paperID string) ([]store.Chunk, error)
	// Fingerprints, ReviewCells and PutReviewCells are the cache of cells.
	Fingerprints(ctx context.Context, ids []string) (map[string]string, error)
	ReviewCells(ctx context.Context, ids, questions []string, answerer string) ([]store.ReviewCell, error)
	PutReviewCells(ctx context.Context, cells []store.ReviewCell) error
}

var _ Library = (*store.Library)(nil)

// Progress is where a Build is: Done cells of Total, Cached of them from
// the library's cache.
type Progress struct {
	Done, Total, Cached int
}

// Options tune Build. The zero value is usable.
type Options struct {
	// Workers bounds the cells computed at once (default: the CPUs for
	// the offline answerer, 4 for a model).
	Workers int
	// Recompute ignores cached cells; the new ones replace them.
	Recompute bool
	// Progress, when set, is called after the cache was read and after
	// each cell computed, from one goroutine at a time.
	Progress func(Progress)
}

// flushEvery bounds how long a computed cell waits to be cached: an
// interrupted run loses at most this much work.
const flushEvery = 500 * time.Millisecond

// Build fills the table of papers (rows, in the order given) by columns.
// Cached cells of the same paper state, question and answerer are reused
// (unless opts.Recompute); the others are computed by a, at most
// opts.Workers at once, and cached as they finish. When ctx is cancelled,
// the cells done are cached, the table is returned with Missing counting
// the others (their cells say so) and the error is the context's. A model
// failure stops the build the same way and is returned.
func Build(ctx context.Context, lib Library, a Answerer, papers []store.Paper, cols []Column, opts Options) (*Table, error) {
	t := &Table{Columns: cols, Rows: make([]Row, len(papers)), Answerer: a.Name()}
	ids := make([]string, len(papers))
	questions := make([]string, len(cols))
	for i, c := range cols {
		questions[i] = questionKey(c.Question)
	}
	for i, p := range papers {
		ids[i] = p.ID
		t.Rows[i] = Row{ID: p.ID, Version: p.Version, Title: safetext.OneLine(p.Title), Name: ask.ShortName(&p), Cells: make([]Cell, len(cols))}
	}
	fps, err := lib.Fingerprints(ctx, ids)
	if err != nil {
		return nil, err
	}
	done := make([][]bool, len(papers))
	for i := range done {
		done[i] = make([]bool, len(cols))
	}
	if !opts.Recompute {
		cached, err := lib.ReviewCells(ctx, ids, questions, t.Answerer)
		if err != nil {
			return nil, err
		}
		col := map[string]int{}
		for j, q := range questions {
			col[q] = j
		}
		row := map[string]int{}
		for i, id := range ids {
			row[id] = i
		}
		for _, rc := range cached {
			i, j := row[rc.PaperID], col[rc.Question]
			var c Cell
			if rc.Fingerprint != fps[rc.PaperID] || json.Unmarshal(rc.Cell, &c) != nil {
				continue // computed on another state of the paper, or unreadable: computed again
			}
			c.Column = j + 1
			t.Rows[i].Cells[j] = c
			done[i][j] = true
			t.Cached++
		}
	}
	total := len(papers) * len(cols)
	report := func() {
		if opts.Progress != nil {
			opts.Progress(Progress{Done: t.Cached + t.Computed, Total: total, Cached: t.Cached})
		}
	}
	report()

	type job struct{ i, j int }
	var jobs []job
	for i := range papers {
		for j := range cols {
			if !done[i][j] {
				jobs = append(jobs, job{i, j})
			}
		}
	}
	texts := newTexts(lib)
	sink := newCellSink(lib, t)
	workers := opts.Workers
	if workers <= 0 {
		workers = a.workers()
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(workers)
	var mu sync.Mutex // t.Rows' cells, done, t.Computed, report
	for _, jb := range jobs {
		if gctx.Err() != nil {
			break
		}
		g.Go(func() error {
			p := papers[jb.i]
			pt, err := texts.get(gctx, p)
			if err != nil {
				return err
			}
			c, err := a.answer(gctx, pt, cols[jb.j])
			if err != nil {
				return fmt.Errorf("%s, column %d (%s): %w", p.ID, jb.j+1, cols[jb.j].Name, err)
			}
			c.Column = jb.j + 1
			sink.add(p.ID, fps[p.ID], questions[jb.j], c)
			mu.Lock()
			t.Rows[jb.i].Cells[jb.j] = c
			done[jb.i][jb.j] = true
			t.Computed++
			report()
			mu.Unlock()
			return nil
		})
	}
	err = g.Wait()
	sink.close(context.WithoutCancel(ctx))
	t.Usage = a.usage()
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		for i := range t.Rows {
			for j := range cols {
				if !done[i][j] {
					t.Rows[i].Cells[j] = Cell{Column: j + 1, Note: "not computed: the review was stopped"}
					t.Missing++
				}
			}
		}
		if ctx.Err() != nil {
			err = ctx.Err()
		}
		return t, err
	}
	return t, nil
}

// texts loads each paper's chunks once, when its first cell needs them.
type texts struct {
	lib Library
	mu  sync.Mutex
	m   map[string]*textOnce
}

type textOnce struct {
	once sync.Once
	t    *paperText
	err  error
}

func newTexts(lib Library) *texts { return &texts{lib: lib, m: map[string]*textOnce{}} }

func (ts *texts) get(ctx context.Context, p store.Paper) (*paperText, error) {
	ts.mu.Lock()
	o, ok := ts.m[p.ID]
	if !ok {
		o = &textOnce{}
		ts.m[p.ID] = o
	}
	ts.mu.Unlock()
	o.once.Do(func() {
		chunks, err := ts.lib.Chunks(ctx, p.ID)
		if err != nil {
			o.err = fmt.Errorf("read %s: %w", p.ID, err)
			return
		}
		o.t = newPaperText(p, chunks)
	})
	return o.t, o.err
}

// cellSink writes computed cells to the cache in batches, at most
// flushEvery after they were computed. A cache that cannot be written (a
// read-only library, a full disk) is reported once in the table's
// warnings; the review goes on.
type cellSink struct {
	lib     Library
	t       *Table
	mu      sync.Mutex
	pending []store.ReviewCell
	failed  bool
	tick    *time.Ticker
	stop    chan struct{}
	stopped chan struct{}
}

func newCellSink(lib Library, t *Table) *cellSink {
	s := &cellSink{lib: lib, t: t, tick: time.NewTicker(flushEvery), stop: make(chan struct{}), stopped: make(chan struct{})}
	go func() {
		defer close(s.stopped)
		for {
			select {
			case <-s.tick.C:
				s.flush(context.Background())
			case <-s.stop:
				return
			}
		}
	}()
	return s
}

func (s *cellSink) add(id, fingerprint, question string, c Cell) {
	b, err := json.Marshal(c)
	if err != nil {
		return
	}
	s.mu.Lock()
	s.pending = append(s.pending, store.ReviewCell{PaperID: id, Question: question, Answerer: s.t.Answerer, Fingerprint: fingerprint, Cell: b})
	s.mu.Unlock()
}

// flush writes what is pending; one writer at a time (the ticker's
// goroutine, then close).
func (s *cellSink) flush(ctx context.Context) {
	s.mu.Lock()
	batch := s.pending
	s.pending = nil
	failed := s.failed
	s.mu.Unlock()
	if len(batch) == 0 || failed {
		return
	}
	if err := s.lib.PutReviewCells(ctx, batch); err != nil {
		s.mu.Lock()
		s.failed = true
		s.t.Warnings = append(s.t.Warnings, fmt.Sprintf("the cells computed are not kept for the next run: %v", err))
		s.mu.Unlock()
	}
}

func (s *cellSink) close(ctx context.Context) {
	s.tick.Stop()
	close(s.stop)
	<-s.stopped
	s.flush(ctx)
}

// Answerer fills one cell: the Offline and Model answerers of this
// package.
type Answerer interface {
	// Name identifies the answerer and its version for the cache: cells
	// of another name are never reused.
	Name() string
	answer(ctx context.Context, p *paperText, c Column) (Cell, error)
	workers() int
	usage() llm.Usage
}

// defaultWorkers is the offline answerer's: one per CPU.
func defaultWorkers() int { return max(1, runtime.GOMAXPROCS(0)) }

// notStated is the cell of a paper that does not state the answer.
func notStated() Cell { return Cell{} }
