package fts

import (
	"bufio"
	"database/sql"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	_ "modernc.org/sqlite"

	"github.com/papers-cli/papers/internal/shareddata"
)

// readCorpus returns the title and text of every SciFact abstract.
func readCorpus(t testing.TB) []string { return readCorpusN(t, 0) }

// readCorpusN returns the title and text of the first n SciFact abstracts
// (all of them for n = 0).
func readCorpusN(t testing.TB, n int) []string {
	t.Helper()
	f, err := os.Open(shareddata.Path(t, "scifact", "corpus.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var docs []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() && (n == 0 || len(docs) < n) {
		var d struct{ Title, Text string }
		if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
			t.Fatal(err)
		}
		docs = append(docs, d.Title+"\n"+d.Text)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return docs
}

// awkward are texts that exercise the tokenizer's edges: accents in both
// decomposed and composed forms, other scripts, digits, punctuation inside
// words, private-use characters and tokens too short or too long to stem.
var awkward = []string{
	"Naïve café résumé RÉSUMÉ Ångström Øresund straße ŒUVRE İstanbul",
	"cafe\u0301 nai\u0308ve e\u0301e\u0301 \u0301alone",
	"Ελληνικά κείμενα ΦΥΣΙΚΗ Кириллица ТЕКСТ 日本語のテキスト 中文 한국어",
	"COVID-19 SARS-CoV-2 IL-6 p53 TNF-α β-catenin 3.14 1,000,000 x86_64 e-mail",
	"don't it's o'clock re-evaluate state-of-the-art well‐known en–dash em—dash",
	"\ue000\ue001 private use; Ⅻ ½ ² ① numbers; 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 𝟏𝟐",
	"a an at is sky skies fly flies dying lying tying hopping hoped feed agreed disabled",
	strings.Repeat("x", 63) + "ing " + strings.Repeat("y", 70) + "ing " + "relational conditional generalization",
	"caresses ponies ties caress cats feed agreed plastered bled motoring sing conflated troubled sized hopping tanned falling hissing fizzed failing filing happy sky",
	"relational conditional rational valenci hesitanci digitizer conformabli radicalli differentli vileli analogousli vietnamization predication operator feudalism decisiveness hopefulness callousness formaliti sensitiviti sensibiliti",
	"triplicate formative formalize electriciti electrical hopeful goodness revival allowance inference airliner gyroscopic adjustable defensible irritant replacement adjustment dependent adoption homologou communism activate angulariti homologous effective bowdlerize",
	"probate rate cease controll roll archaeology geology biology",
}

// TestTermsAgreeWithFTS5 indexes the SciFact abstracts and the awkward
// texts with SQLite FTS5's own "porter unicode61 remove_diacritics 2"
// tokenizer and checks that Terms finds exactly the same terms with the
// same document and instance counts.
func TestTermsAgreeWithFTS5(t *testing.T) {
	docs := append(readCorpus(t), awkward...)
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	for _, q := range []string{
		`CREATE VIRTUAL TABLE d USING fts5 (text, tokenize = 'porter unicode61 remove_diacritics 2')`,
		`CREATE VIRTUAL TABLE v USING fts5vocab (d, 'row')`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		if _, err := tx.Exec(`INSERT INTO d (text) VALUES (?)`, d); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	type counts struct{ docs, n int }
	want := map[string]counts{}
	rows, err := db.Query(`SELECT term, doc, cnt FROM v`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var term string
		var c counts
		if err := rows.Scan(&term, &c.docs, &c.n); err != nil {
			t.Fatal(err)
		}
		want[term] = c
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}

	got := map[string]counts{}
	for _, d := range docs {
		seen := map[string]bool{}
		for term := range Terms(d) {
			c := got[string(term)]
			c.n++
			if !seen[string(term)] {
				seen[string(term)] = true
				c.docs++
			}
			got[string(term)] = c
		}
	}
	if len(want) < 20000 {
		t.Fatalf("FTS5 found only %d terms", len(want))
	}
	var bad []string
	for term, w := range want {
		if g := got[term]; g != w {
			bad = append(bad, term)
		}
	}
	for term := range got {
		if _, ok := want[term]; !ok {
			bad = append(bad, term)
		}
	}
	slices.Sort(bad)
	for i, term := range bad {
		if i == 30 {
			t.Errorf("... and %d more", len(bad)-30)
			break
		}
		t.Errorf("term %q: FTS5 %+v, ours %+v", term, want[term], got[term])
	}
	t.Logf("%d terms, %d disagree", len(want), len(bad))
}

func TestStem(t *testing.T) {
	// Porter's own examples, as FTS5 stems them.
	for w, want := range map[string]string{
		"caresses": "caress", "ponies": "poni", "cats": "cat", "agreed": "agre",
		"plastered": "plaster", "motoring": "motor", "conflated": "conflat",
		"hopping": "hop", "falling": "fall", "filing": "file", "happy": "happi",
		"relational": "relat", "generalization": "gener", "triplicate": "triplic",
		"effective": "effect", "controll": "control", "at": "at", "sky": "sky",
	} {
		if got := string(Stem([]byte(w), nil)); got != want {
			t.Errorf("Stem(%q) = %q, want %q", w, got, want)
		}
	}
}

// FuzzTerms feeds arbitrary text (chunk text comes from untrusted PDFs) to
// the tokenizer and stemmer: no panic, no empty token, stems no longer
// than their word plus one letter, and the same terms for a text whether
// it is indexed or queried.
func FuzzTerms(f *testing.F) {
	for _, s := range awkward {
		f.Add(s)
	}
	f.Add("\xff\xfe invalid \xc3 utf-8 \xe2\x82")
	f.Fuzz(func(t *testing.T, s string) {
		var words []string
		for w := range Words(s) {
			if len(w) == 0 {
				t.Fatalf("empty word in %q", s)
			}
			words = append(words, string(w))
			if st := Stem(w, nil); len(st) == 0 || len(st) > len(w)+1 {
				t.Fatalf("Stem(%q) = %q", w, st)
			}
		}
		bl := NewBuilder()
		bl.Add("", s)
		x, err := Parse(bl.AppendBinary(nil))
		if err != nil {
			t.Fatal(err)
		}
		q := QueryTerms(s)
		acc := make([]float64, 1)
		if err := x.Score(q, nil, acc); err != nil {
			t.Fatal(err)
		}
		if (len(words) > 0) != (acc[0] > 0) {
			t.Fatalf("%q: %d words, score %v", s, len(words), acc[0])
		}
	})
}
