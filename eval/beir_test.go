package eval

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/papers-cli/papers/internal/shareddata"
)

// sciFact returns the path of a SciFact file, failing when the shared data
// is missing.
func sciFact(t *testing.T, name string) string {
	t.Helper()
	return shareddata.Path(t, "scifact", name)
}

// firstLines returns the first n lines of a file.
func firstLines(t *testing.T, path string, n int) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.SplitN(string(b), "\n", n+1)[:n]
}

func TestNumericIDs(t *testing.T) {
	// real SciFact records, the first with its _id written as a number
	tests := []struct {
		name string
		read func(string) ([]string, error)
		file string
	}{
		{"queries", func(p string) ([]string, error) {
			qs, err := ReadQueries(p)
			var ids []string
			for _, q := range qs {
				if q.Text == "" {
					t.Errorf("query %s lost its text", q.ID)
				}
				ids = append(ids, q.ID)
			}
			return ids, err
		}, "queries.jsonl"},
		{"corpus", func(p string) ([]string, error) {
			ds, err := ReadCorpus(p)
			var ids []string
			for _, d := range ds {
				if d.Title == "" || d.Text == "" {
					t.Errorf("doc %s lost its title or text", d.ID)
				}
				ids = append(ids, d.ID)
			}
			return ids, err
		}, "corpus.jsonl"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			lines := firstLines(t, sciFact(t, tc.file), 2)
			var want []string
			for i, l := range lines {
				var d struct {
					ID string `json:"_id"`
				}
				if err := json.Unmarshal([]byte(l), &d); err != nil {
					t.Fatal(err)
				}
				want = append(want, d.ID)
				if i == 0 {
					lines[i] = strings.Replace(l, `"_id": "`+d.ID+`"`, `"_id": `+d.ID, 1)
					if lines[i] == l {
						t.Fatalf("no string _id in %s", l)
					}
				}
			}
			p := filepath.Join(t.TempDir(), tc.file)
			os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
			got, err := tc.read(p)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(got, " ") != strings.Join(want, " ") {
				t.Errorf("ids %q, want %q", got, want)
			}
		})
	}
	bad := filepath.Join(t.TempDir(), "bad.jsonl")
	os.WriteFile(bad, []byte(`{"_id": true, "text": "x"}`+"\n"), 0o644)
	if _, err := ReadQueries(bad); err == nil || !strings.Contains(err.Error(), "neither a string nor a number") {
		t.Errorf("a boolean _id: %v", err)
	}
}

func TestDuplicateQueries(t *testing.T) {
	qs, qrels := sciFactTrain(t)
	// query 0 again, with another query's text: scored twice it would
	// change the means
	dup := append(qs, Query{ID: qs[0].ID, Text: qs[1].Text}, qs[0])
	if got := Duplicates(dup); len(got) != 1 || got[0] != qs[0].ID {
		t.Errorf("Duplicates = %q, want [%s]", got, qs[0].ID)
	}
	if got := Duplicates(qs); len(got) != 0 {
		t.Errorf("SciFact has duplicates %q", got)
	}
	judged := Judged(dup, qrels)
	if len(judged) != 809 || judged[0] != qs[0] {
		t.Errorf("%d judged queries, the first %+v; want 809, the first record of %s", len(judged), judged[0], qs[0].ID)
	}
	var searched []string
	rep, err := Run(context.Background(), func(_ context.Context, q string) ([]string, error) {
		searched = append(searched, q)
		return nil, nil
	}, dup, qrels, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Queries != 809 || len(searched) != 809 {
		t.Errorf("Run scored %d queries and searched %d, want 809", rep.Queries, len(searched))
	}
}

func TestMissingJudged(t *testing.T) {
	qs, qrels := sciFactTrain(t)
	docs, err := ReadCorpus(sciFact(t, "corpus.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	// the train split judges 565 distinct documents relevant, 32 of them
	// among the first 300 of the corpus (counted with awk and comm)
	tests := []struct {
		name          string
		corpus        []Doc
		missing, want int
	}{
		{"whole corpus", docs, 0, 565},
		{"first 300", docs[:300], 533, 565},
		{"empty", nil, 565, 565},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ids := map[string]bool{}
			for _, d := range tc.corpus {
				ids[d.ID] = true
			}
			missing, judged := MissingJudged(qs, qrels, func(id string) bool { return ids[id] })
			if missing != tc.missing || judged != tc.want {
				t.Errorf("%d of %d judged documents missing, want %d of %d", missing, judged, tc.missing, tc.want)
			}
		})
	}
}

// sciFactTrain reads SciFact's queries and its train judgements.
func sciFactTrain(t *testing.T) ([]Query, Qrels) {
	t.Helper()
	qs, err := ReadQueries(sciFact(t, "queries.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	qrels, err := ReadQrels(sciFact(t, "qrels/train.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	return qs, qrels
}
