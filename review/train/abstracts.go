package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/papers-cli/papers/ask/rank"
	"github.com/papers-cli/papers/ingest"
	"github.com/papers-cli/papers/ingest/chunk"
	"github.com/papers-cli/papers/review"
	"github.com/papers-cli/papers/store"
)

// Structured abstracts (SciFact's corpus: biomedical abstracts whose
// authors headed their parts BACKGROUND, OBJECTIVE, METHODS, RESULTS, ...)
// say, in their authors' own labels, which sentences state the problem a
// paper addresses and which its method. The labels are taken out of the
// text the model sees.
var abstractParts = map[string]*regexp.Regexp{
	"problem": regexp.MustCompile(`^(BACKGROUND|OBJECTIVES?|PURPOSE|AIMS?|CONTEXT|INTRODUCTION|IMPORTANCE|RATIONALE|MOTIVATION|STUDY QUESTION|WHAT IS KNOWN ALREADY|AIMS? AND OBJECTIVES?|BACKGROUND AND (AIMS?|OBJECTIVES?|PURPOSE))$`),
	"method":  regexp.MustCompile(`^(METHODS?|MATERIALS? (AND|&) METHODS|DESIGN|STUDY DESIGN|EXPERIMENTAL DESIGN|RESEARCH DESIGN AND METHODS|METHODOLOGY|APPROACH)$`),
}

// labelled is an abstract's parts: each label with its text.
type part struct{ label, text string }

// parts splits a structured abstract into its labelled parts; ok is false
// for an abstract without labels.
func parts(text string) ([]part, bool) {
	var out []part
	for _, seg := range strings.Split(text, "\n") {
		seg = strings.TrimSpace(seg)
		ws := strings.Fields(seg)
		n := 0
		for n < len(ws) && isLabelWord(ws[n]) {
			n++
		}
		if n == 0 || n == len(ws) {
			if len(out) == 0 {
				return nil, false
			}
			out[len(out)-1].text += " " + seg
			continue
		}
		out = append(out, part{strings.Join(ws[:n], " "), strings.Join(ws[n:], " ")})
	}
	return out, len(out) >= 2
}

func isLabelWord(w string) bool {
	if w == "&" || w == "AND" {
		return true
	}
	letters := 0
	for _, r := range w {
		switch {
		case r >= 'A' && r <= 'Z':
			letters++
		case r == ',' || r == '/' || r == '-':
		default:
			return false
		}
	}
	return letters >= 2
}

// abstractGroups are the structured abstracts of corpus (JSONL) as groups
// of kind's sentences, the sentences of the parts abstractParts[kind]
// labels as positives; every other one goes to dev.
func abstractGroups(corpus, kind string) (train, dev []rank.Group, err error) {
	f, err := os.Open(corpus)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	tmp, err := os.CreateTemp("", "abstracts-*.jsonl")
	if err != nil {
		return nil, nil, err
	}
	defer os.Remove(tmp.Name())
	labels := map[string][]part{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	w := bufio.NewWriter(tmp)
	for sc.Scan() {
		var r struct {
			ID    string `json:"_id"`
			Title string `json:"title"`
			Text  string `json:"text"`
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return nil, nil, err
		}
		ps, ok := parts(r.Text)
		if !ok {
			continue
		}
		var texts []string
		for _, p := range ps {
			texts = append(texts, p.text)
		}
		labels[r.ID] = ps
		b, _ := json.Marshal(map[string]string{"_id": r.ID, "title": r.Title, "text": strings.Join(texts, " ")})
		w.Write(append(b, '\n'))
	}
	if err := sc.Err(); err != nil {
		return nil, nil, err
	}
	if err := w.Flush(); err != nil {
		return nil, nil, err
	}
	tmp.Close()
	n := 0
	err = ingest.CorpusRecords(tmp.Name(), chunk.Defaults, nil, func(p store.Paper, chunks []store.Chunk) error {
		sents := review.Sentences(p, chunks, kind, buckets)
		g := rank.Group{Target: make([]float64, len(sents))}
		any := false
		for i, s := range sents {
			g.Vectors = append(g.Vectors, s.Features)
			for _, pt := range labels[p.ID] {
				if abstractParts[kind].MatchString(pt.label) && strings.Contains(pt.text, tail(s.Text)) {
					g.Target[i] = 1
					any = true
				}
			}
		}
		if !any {
			return nil
		}
		if n++; n%5 == 0 {
			dev = append(dev, g)
		} else {
			train = append(train, g)
		}
		return nil
	})
	return train, dev, err
}

var _ = filepath.Join
