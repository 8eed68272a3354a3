// Command train fits the answer ranker of package ask/rank on QASPER's
// training split, and its full-text sentence weights on the shared
// full-text questions, and reports it on QASPER's dev split, which it
// never fits weights on:
//
//	go run ./ask/train -data ../shared/data [-out ask/rank]
//
// It writes weights.json, df.txt.gz and assoc.txt.gz, the files ask/rank
// embeds. The same data gives the same files.
package main

import (
	"context"
	"encoding/gob"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/papers-cli/papers/ask/rank"
	"github.com/papers-cli/papers/embed"
	"github.com/papers-cli/papers/eval"
	"github.com/papers-cli/papers/ingest"
	"github.com/papers-cli/papers/ingest/chunk"
	"github.com/papers-cli/papers/store"
)

func main() {
	data := flag.String("data", "../shared/data", "the shared data: qasper/ (train and dev splits), qa/ and pdfs/papers/ (the full-text questions and their papers)")
	out := flag.String("out", "ask/rank", "where to write the model's files; empty: write nothing")
	dump := flag.String("dump", "", "also write the splits as read (gob: train and dev []rank.Labeled) to this file, for experiments")
	flag.Parse()
	if err := run(*data, *out, *dump, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
}

func run(data, out, dump string, w io.Writer) error {
	train, err := readSplit(filepath.Join(data, "qasper", "train"))
	if err != nil {
		return err
	}
	dev, err := readSplit(filepath.Join(data, "qasper", "dev"))
	if err != nil {
		return err
	}
	full, err := readFullText(filepath.Join(data, "qa", "fulltext-dev.jsonl"), filepath.Join(data, "pdfs", "papers"))
	if err != nil {
		return err
	}
	if dump != "" {
		f, err := os.Create(dump)
		if err != nil {
			return err
		}
		if err := gob.NewEncoder(f).Encode([3][]rank.Labeled{train, dev, full}); err != nil {
			f.Close()
			return err
		}
		if err := f.Close(); err != nil {
			return err
		}
	}
	m, report := rank.Train(train, dev, full)
	fmt.Fprint(w, report)
	if out == "" {
		return nil
	}
	return writeModel(m, out)
}

// writeModel writes the model's three files into dir.
func writeModel(m *rank.Model, dir string) error {
	names := []string{"weights.json", "df.txt.gz", "assoc.txt.gz"}
	files := make([]*os.File, len(names))
	for i, n := range names {
		f, err := os.Create(filepath.Join(dir, n))
		if err != nil {
			return err
		}
		defer f.Close()
		files[i] = f
	}
	if err := m.WriteFiles(files[0], files[1], files[2]); err != nil {
		return err
	}
	for _, f := range files {
		if err := f.Close(); err != nil {
			return err
		}
	}
	return nil
}

// readSplit reads a QASPER split: its papers cut into chunks as JSONL
// ingest cuts them (the default chunker) and read back into paragraphs,
// and its questions, each with its paper.
func readSplit(dir string) ([]rank.Labeled, error) {
	corpus, questions, err := eval.QASPERFiles(dir)
	if err != nil {
		return nil, err
	}
	papers, err := readPapers(corpus)
	if err != nil {
		return nil, err
	}
	qs, err := eval.ReadQASPERQuestions(questions)
	if err != nil {
		return nil, err
	}
	out := make([]rank.Labeled, 0, len(qs))
	for _, q := range qs {
		paras, ok := papers[q.Paper]
		if !ok {
			return nil, fmt.Errorf("%s: question %s asks of paper %s, which its corpus does not hold", questions, q.ID, q.Paper)
		}
		l := rank.Labeled{ID: q.ID, Question: q.Q, Paper: paras}
		for _, a := range q.Answers {
			l.Answers = append(l.Answers, rank.LabeledAnswer{Type: a.Type, Text: a.Text, Spans: a.Spans, Evidence: a.Evidence})
		}
		out = append(out, l)
	}
	return out, nil
}

// readPapers reads a corpus into each paper's paragraphs, by _id.
func readPapers(path string) (map[string][]rank.Paragraph, error) {
	out := map[string][]rank.Paragraph{}
	err := ingest.CorpusRecords(path, chunk.Defaults, nil, func(p store.Paper, chunks []store.Chunk) error {
		out[p.ID] = rank.Paragraphs(chunks)
		return nil
	})
	return out, err
}

// readFullText reads full-text questions (shared/data/qa's format) with
// their papers: the PDFs are ingested into a scratch library as papers
// ingest would (local embedder, default chunker) and read back into
// paragraphs.
func readFullText(questions, pdfs string) ([]rank.Labeled, error) {
	qs, err := eval.ReadQuestions(questions, true)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "papers-train-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	ctx := context.Background()
	if _, err := ingest.Build(ctx, dir, embed.NewLocal(), ingest.Sources{PDFs: []string{pdfs}}); err != nil {
		return nil, fmt.Errorf("ingest %s: %w", pdfs, err)
	}
	lib, err := store.Open(ctx, dir)
	if err != nil {
		return nil, err
	}
	defer lib.Close()
	if err := eval.ResolvePapers(ctx, lib, qs, pdfs); err != nil {
		return nil, err
	}
	papers := map[string][]rank.Paragraph{}
	var out []rank.Labeled
	for _, q := range qs {
		paras, ok := papers[q.Paper]
		if !ok {
			chunks, err := lib.Chunks(ctx, q.Paper)
			if err != nil {
				return nil, err
			}
			paras = rank.Paragraphs(chunks)
			papers[q.Paper] = paras
		}
		out = append(out, rank.Labeled{ID: q.Line, Question: q.Q, Paper: paras, Facts: q.Expect})
	}
	return out, nil
}
