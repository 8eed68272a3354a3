// Command train fits the answer ranker of package ask/rank on QASPER's
// training split and reports it on the dev split, which it never fits on:
//
//	go run ./ask/train -data ../shared/data/qasper [-out ask/rank]
//
// It writes weights.json, df.txt.gz and assoc.txt.gz, the files ask/rank
// embeds. The same data gives the same files.
package main

import (
	"bufio"
	"encoding/gob"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/papers-cli/papers/ask/rank"
	"github.com/papers-cli/papers/eval"
	"github.com/papers-cli/papers/ingest"
	"github.com/papers-cli/papers/ingest/chunk"
)

func main() {
	data := flag.String("data", "../shared/data/qasper", "QASPER in the project's corpus format (train/ and dev/)")
	out := flag.String("out", "ask/rank", "where to write the model's files; empty: write nothing")
	dump := flag.String("dump", "", "also write the splits as read (gob: train and dev []rank.Labeled) to this file, for experiments")
	flag.Parse()
	if err := run(*data, *out, *dump, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
}

func run(data, out, dump string, w io.Writer) error {
	train, err := readSplit(filepath.Join(data, "train"))
	if err != nil {
		return err
	}
	dev, err := readSplit(filepath.Join(data, "dev"))
	if err != nil {
		return err
	}
	if dump != "" {
		f, err := os.Create(dump)
		if err != nil {
			return err
		}
		if err := gob.NewEncoder(f).Encode([2][]rank.Labeled{train, dev}); err != nil {
			f.Close()
			return err
		}
		if err := f.Close(); err != nil {
			return err
		}
	}
	m, report := rank.Train(train, dev)
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
			l.Answers = append(l.Answers, rank.LabeledAnswer{Type: a.Type, Text: a.Text, Evidence: a.Evidence})
		}
		out = append(out, l)
	}
	return out, nil
}

// readPapers reads a corpus into each paper's paragraphs, by _id.
func readPapers(path string) (map[string][]rank.Paragraph, error) {
	rc, err := eval.OpenMaybeGzip(path)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	out := map[string][]rank.Paragraph{}
	sc := bufio.NewScanner(rc)
	sc.Buffer(nil, 64<<20)
	for n := 1; sc.Scan(); n++ {
		p, chunks, err := ingest.CorpusRecord(sc.Bytes(), chunk.Defaults)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		out[p.ID] = rank.Paragraphs(chunks)
	}
	return out, sc.Err()
}
