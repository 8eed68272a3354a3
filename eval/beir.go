// Package eval measures retrieval on BEIR-format test collections (a corpus
// JSONL, a queries JSONL and a qrels TSV, as in shared/data/scifact): it
// reads them and computes nDCG@k, Recall@k and MRR@k the way BEIR's
// pytrec_eval does.
package eval

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/papers-cli/papers/internal/beir"
	"github.com/papers-cli/papers/internal/localfile"
)

// Doc is one corpus record.
type Doc struct {
	ID       string         `json:"_id"`
	Title    string         `json:"title"`
	Text     string         `json:"text"`
	Metadata map[string]any `json:"metadata,omitempty"`
}

// Query is one query record.
type Query struct {
	ID   string `json:"_id"`
	Text string `json:"text"`
}

// UnmarshalJSON reads a record whose "_id" is a JSON string or number.
func (d *Doc) UnmarshalJSON(b []byte) error {
	type plain Doc
	var v struct {
		plain
		ID beir.ID `json:"_id"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*d = Doc(v.plain)
	d.ID = string(v.ID)
	return nil
}

// UnmarshalJSON reads a record whose "_id" is a JSON string or number.
func (q *Query) UnmarshalJSON(b []byte) error {
	type plain Query
	var v struct {
		plain
		ID beir.ID `json:"_id"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*q = Query(v.plain)
	q.ID = string(v.ID)
	return nil
}

// maxQrelsBytes caps a qrels file, read whole: BEIR's largest are a few
// MB.
const maxQrelsBytes = 1 << 30

// Qrels maps a query id to the graded relevance of its judged documents.
type Qrels map[string]map[string]int

// ReadCorpus reads a BEIR corpus.jsonl.
func ReadCorpus(path string) ([]Doc, error) { return readJSONL[Doc](path) }

// ReadQueries reads a BEIR queries.jsonl.
func ReadQueries(path string) ([]Query, error) { return readJSONL[Query](path) }

func readJSONL[T any](path string) ([]T, error) {
	// A device or a named pipe is refused, not read for ever; a file is
	// read in one go (the evaluations are not cancelled midway).
	f, err := localfile.Open(context.Background(), path, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []T
	r := bufio.NewReaderSize(f, 1<<20)
	for n := 1; ; n++ {
		line, err := r.ReadBytes('\n')
		if len(strings.TrimSpace(string(line))) > 0 {
			var v T
			if e := json.Unmarshal(line, &v); e != nil {
				return nil, fmt.Errorf("%s:%d: %w", path, n, e)
			}
			out = append(out, v)
		}
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", path, err)
		}
	}
}

// ReadQrels reads a BEIR qrels TSV ("query-id corpus-id score" with a
// header line). Scores <= 0 are kept but count as not relevant.
func ReadQrels(path string) (Qrels, error) {
	data, err := localfile.ReadFile(context.Background(), path, maxQrelsBytes)
	if err != nil {
		return nil, err
	}
	q := Qrels{}
	for n, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if len(f) != 3 {
			return nil, fmt.Errorf("%s:%d: want 3 fields, got %d", path, n+1, len(f))
		}
		s, err := strconv.Atoi(f[2])
		if err != nil {
			if n == 0 {
				continue // header
			}
			return nil, fmt.Errorf("%s:%d: score %q is not an integer", path, n+1, f[2])
		}
		if q[f[0]] == nil {
			q[f[0]] = map[string]int{}
		}
		q[f[0]][f[1]] = s
	}
	return q, nil
}

// Judged returns the queries that have at least one relevant document in
// qrels, in the order given; an id given twice counts once, as its first
// record (see Duplicates).
func Judged(queries []Query, qrels Qrels) []Query {
	var out []Query
	seen := make(map[string]bool, len(queries))
	for _, q := range queries {
		if seen[q.ID] {
			continue
		}
		seen[q.ID] = true
		for _, s := range qrels[q.ID] {
			if s > 0 {
				out = append(out, q)
				break
			}
		}
	}
	return out
}

// MissingJudged counts the distinct relevant documents of the judged
// queries (see Judged) and how many of them in says are not in the corpus
// searched. Many missing means near-zero scores that measure the wrong
// corpus, not the ranking.
func MissingJudged(queries []Query, qrels Qrels, in func(docID string) bool) (missing, judged int) {
	seen := map[string]bool{}
	for _, q := range Judged(queries, qrels) {
		for id, s := range qrels[q.ID] {
			if s <= 0 || seen[id] {
				continue
			}
			seen[id] = true
			judged++
			if !in(id) {
				missing++
			}
		}
	}
	return missing, judged
}

// Duplicates returns the ids that more than one query has, in the order
// their second record comes.
func Duplicates(queries []Query) []string {
	var out []string
	n := make(map[string]int, len(queries))
	for _, q := range queries {
		if n[q.ID]++; n[q.ID] == 2 {
			out = append(out, q.ID)
		}
	}
	return out
}

// IDs returns the sorted query ids of qrels.
func (q Qrels) IDs() []string {
	ids := make([]string, 0, len(q))
	for id := range q {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// Collection is a BEIR test collection read whole: the corpus, the queries
// that have judgements in one split, and those judgements.
type Collection struct {
	Docs    []Doc
	Queries []Query
	Qrels   Qrels
}

// Slice is a smaller collection for quick checks: the first nq queries
// (all if fewer), the documents judged for them and the first others
// documents judged for none of them, in corpus order.
func (c Collection) Slice(nq, others int) Collection {
	out := Collection{Queries: c.Queries[:min(nq, len(c.Queries))], Qrels: c.Qrels}
	judged := map[string]bool{}
	for _, q := range out.Queries {
		for id := range c.Qrels[q.ID] {
			judged[id] = true
		}
	}
	for _, d := range c.Docs {
		if judged[d.ID] || others > 0 {
			if !judged[d.ID] {
				others--
			}
			out.Docs = append(out.Docs, d)
		}
	}
	return out
}

// ReadCollection reads dir/corpus.jsonl, dir/queries.jsonl and
// dir/qrels/SPLIT.tsv (the BEIR layout, e.g. split "train" or "test").
func ReadCollection(dir, split string) (Collection, error) {
	docs, err := ReadCorpus(filepath.Join(dir, "corpus.jsonl"))
	if err != nil {
		return Collection{}, err
	}
	qs, err := ReadQueries(filepath.Join(dir, "queries.jsonl"))
	if err != nil {
		return Collection{}, err
	}
	qrels, err := ReadQrels(filepath.Join(dir, "qrels", split+".tsv"))
	if err != nil {
		return Collection{}, err
	}
	return Collection{Docs: docs, Queries: Judged(qs, qrels), Qrels: qrels}, nil
}
