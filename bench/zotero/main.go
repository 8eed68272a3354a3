// Command zotero writes a synthetic Zotero data directory for benchmarks:
// the real schema of a Zotero 7 zotero.sqlite (shared/data/zotero, its
// items removed) filled with N items of the usual types, with creators,
// dates in Zotero's stored form, DOIs, arXiv ids, tags, nested
// collections, a few items in the trash, and PDF attachments: copies of
// real PDFs under storage/<KEY>/ for some items, absent files for others.
//
//	go run ./bench/zotero -src ../shared/data/zotero/yi1699-zotero7 -dir /tmp/zot200 -items 200 \
//	    -pdfs ../shared/data/pdfs/papers/toolformer_2302.04761v1.pdf,...
package main

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"

	_ "modernc.org/sqlite"
)

func main() {
	src := flag.String("src", "", "a Zotero data directory whose schema is copied")
	dir := flag.String("dir", "", "the data directory to write")
	items := flag.Int("items", 200, "regular items")
	pdfs := flag.String("pdfs", "", "comma-separated PDFs attached to the first items, one each")
	missing := flag.Int("missing", 10, "items with a PDF attachment whose file is absent")
	flag.Parse()
	if *src == "" || *dir == "" {
		fmt.Fprintln(os.Stderr, "zotero: -src and -dir are required")
		os.Exit(2)
	}
	var files []string
	if *pdfs != "" {
		files = strings.Split(*pdfs, ",")
	}
	if err := run(context.Background(), *src, *dir, *items, *missing, files); err != nil {
		fmt.Fprintln(os.Stderr, "zotero:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, src, dir string, n, missing int, pdfs []string) error {
	if err := os.MkdirAll(filepath.Join(dir, "storage"), 0o755); err != nil {
		return err
	}
	dbPath := filepath.Join(dir, "zotero.sqlite")
	if err := copyFile(filepath.Join(src, "zotero.sqlite"), dbPath); err != nil {
		return err
	}
	db, err := sql.Open("sqlite", dbPath)
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, q := range []string{"DELETE FROM itemAttachments", "DELETE FROM itemNotes", "DELETE FROM itemAnnotations", "DELETE FROM collectionItems",
		"DELETE FROM itemTags", "DELETE FROM itemCreators", "DELETE FROM itemData", "DELETE FROM deletedItems", "DELETE FROM items",
		"DELETE FROM collections", "DELETE FROM tags", "DELETE FROM creators", "DELETE FROM itemDataValues"} {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	s := &synth{ctx: ctx, tx: tx, r: rand.New(rand.NewPCG(7, 11))}
	if err := s.lookups(); err != nil {
		return err
	}
	cols, err := s.collections()
	if err != nil {
		return err
	}
	types := []string{"journalArticle", "journalArticle", "conferencePaper", "preprint", "preprint", "book", "bookSection", "thesis", "report", "webpage"}
	for i := 0; i < n; i++ {
		typ := types[i%len(types)]
		id, _, err := s.item(typ, 0)
		if err != nil {
			return err
		}
		if err := s.fill(id, typ, i); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, "INSERT INTO collectionItems (collectionID, itemID, orderIndex) VALUES (?, ?, ?)", cols[i%len(cols)], id, i); err != nil {
			return err
		}
		switch {
		case i < len(pdfs):
			if err := s.attach(dir, id, pdfs[i], true); err != nil {
				return err
			}
		case i < len(pdfs)+missing:
			if err := s.attach(dir, id, fmt.Sprintf("missing-%d.pdf", i), false); err != nil {
				return err
			}
		}
		if i%50 == 49 { // a few in the trash
			if _, err := tx.ExecContext(ctx, "INSERT INTO deletedItems (itemID) VALUES (?)", id); err != nil {
				return err
			}
		}
	}
	return tx.Commit()
}

type synth struct {
	ctx     context.Context
	tx      *sql.Tx
	r       *rand.Rand
	nextID  int64
	types   map[string]int64
	fields  map[string]int64
	creator map[string]int64
}

func (s *synth) lookups() error {
	s.types, s.fields, s.creator = map[string]int64{}, map[string]int64{}, map[string]int64{}
	for q, m := range map[string]map[string]int64{
		"SELECT typeName, itemTypeID FROM itemTypesCombined":  s.types,
		"SELECT fieldName, fieldID FROM fieldsCombined":       s.fields,
		"SELECT creatorType, creatorTypeID FROM creatorTypes": s.creator,
	} {
		rows, err := s.tx.QueryContext(s.ctx, q)
		if err != nil {
			return err
		}
		for rows.Next() {
			var k string
			var v int64
			if err := rows.Scan(&k, &v); err != nil {
				rows.Close()
				return err
			}
			m[k] = v
		}
		rows.Close()
	}
	s.nextID = 1
	return nil
}

const keyChars = "23456789ABCDEFGHIJKLMNPQRSTUVWXYZ"

func (s *synth) key() string {
	b := make([]byte, 8)
	for i := range b {
		b[i] = keyChars[s.r.IntN(len(keyChars))]
	}
	return string(b)
}

func (s *synth) item(typ string, parent int64) (int64, string, error) {
	id, key := s.nextID, s.key()
	s.nextID++
	day := fmt.Sprintf("2024-%02d-%02d 10:00:00", 1+s.r.IntN(12), 1+s.r.IntN(28))
	_, err := s.tx.ExecContext(s.ctx, `INSERT INTO items (itemID, itemTypeID, dateAdded, dateModified, clientDateModified, libraryID, key)
		VALUES (?, ?, ?, ?, ?, 1, ?)`, id, s.types[typ], day, day, day, key)
	return id, key, err
}

func (s *synth) set(item int64, field, value string) error {
	fid, ok := s.fields[field]
	if !ok {
		return fmt.Errorf("no field %s in the schema", field)
	}
	if _, err := s.tx.ExecContext(s.ctx, "INSERT OR IGNORE INTO itemDataValues (value) VALUES (?)", value); err != nil {
		return err
	}
	_, err := s.tx.ExecContext(s.ctx, "INSERT INTO itemData (itemID, fieldID, valueID) SELECT ?, ?, valueID FROM itemDataValues WHERE value = ?", item, fid, value)
	return err
}

var words = strings.Fields(`learning reinforcement agents language models retrieval graph neural networks policy reward
	diffusion image compression satellite transformer attention survey benchmark evaluation robust efficient scalable`)

func (s *synth) title() string {
	n := 4 + s.r.IntN(6)
	ws := make([]string, n)
	for i := range ws {
		w := words[s.r.IntN(len(words))]
		ws[i] = strings.ToUpper(w[:1]) + w[1:]
	}
	return strings.Join(ws, " ")
}

var given = []string{"Ana", "Li", "Wei", "Maria", "John", "Yuki", "Omar", "Elena", "Kofi", "Priya"}
var family = []string{"Lima", "Zhang", "Müller", "García Márquez", "Smith", "Tanaka", "Haddad", "Rossi", "Mensah", "Iyer"}

func (s *synth) fill(id int64, typ string, i int) error {
	dates := []string{"2023-05-00 2023-05", "2021-03-17 17 March 2021", "2019-00-00 2019", "0000-00-00 Spring 2020", "2024-10-02 2024-10-02"}
	set := map[string]string{"title": s.title(), "date": dates[i%len(dates)], "abstractNote": s.title() + ". " + s.title() + "."}
	switch typ {
	case "journalArticle":
		set["publicationTitle"], set["volume"], set["pages"], set["DOI"] = "Journal of "+s.title(), fmt.Sprint(1+i%40), fmt.Sprintf("%d-%d", 100+i, 110+i), fmt.Sprintf("10.1000/j.%d", i)
	case "conferencePaper":
		set["proceedingsTitle"], set["pages"], set["DOI"] = "Proceedings of "+s.title(), fmt.Sprintf("%d-%d", i, i+8), fmt.Sprintf("10.1000/c.%d", i)
	case "preprint":
		id := fmt.Sprintf("24%02d.%05d", 1+i%12, 10000+i)
		set["repository"], set["archiveID"], set["url"] = "arXiv", "arXiv:"+id, "http://arxiv.org/abs/"+id
		set["extra"] = "arXiv:" + id + " [cs]"
	case "book", "bookSection":
		set["publisher"] = "Press of " + s.title()
		if typ == "bookSection" {
			set["bookTitle"] = s.title()
		}
	case "thesis":
		set["university"] = "University of " + family[i%len(family)]
	case "report":
		set["institution"] = "Institute of " + s.title()
	case "webpage":
		set["url"], set["websiteTitle"] = fmt.Sprintf("https://example.org/%d", i), "Example"
	}
	for k, v := range set {
		if err := s.set(id, k, v); err != nil {
			return err
		}
	}
	for a := 0; a < 1+s.r.IntN(5); a++ {
		first, last, mode := given[s.r.IntN(len(given))], family[s.r.IntN(len(family))], 0
		if s.r.IntN(10) == 0 {
			first, last, mode = "", "The "+s.title()+" Consortium", 1
		}
		if _, err := s.tx.ExecContext(s.ctx, "INSERT OR IGNORE INTO creators (firstName, lastName, fieldMode) VALUES (?, ?, ?)", first, last, mode); err != nil {
			return err
		}
		if _, err := s.tx.ExecContext(s.ctx, `INSERT INTO itemCreators (itemID, creatorID, creatorTypeID, orderIndex)
			SELECT ?, creatorID, ?, ? FROM creators WHERE firstName = ? AND lastName = ? AND fieldMode = ?`,
			id, s.creator["author"], a, first, last, mode); err != nil {
			return err
		}
	}
	for t := 0; t < s.r.IntN(4); t++ {
		name := words[s.r.IntN(len(words))]
		if _, err := s.tx.ExecContext(s.ctx, "INSERT OR IGNORE INTO tags (name) VALUES (?)", name); err != nil {
			return err
		}
		if _, err := s.tx.ExecContext(s.ctx, "INSERT OR IGNORE INTO itemTags (itemID, tagID, type) SELECT ?, tagID, 0 FROM tags WHERE name = ?", id, name); err != nil {
			return err
		}
	}
	return nil
}

func (s *synth) collections() ([]int64, error) {
	var ids []int64
	for i, name := range []string{"Reading", "Reading/RL", "Reading/RL/Agents", "Thesis", "Thesis/Related work"} {
		id := int64(i + 1)
		var p any
		if j := strings.LastIndex(name, "/"); j >= 0 {
			for k, n := range []string{"Reading", "Reading/RL", "Reading/RL/Agents", "Thesis"} {
				if n == name[:j] {
					p = int64(k + 1)
				}
			}
			name = name[j+1:]
		}
		if _, err := s.tx.ExecContext(s.ctx, "INSERT INTO collections (collectionID, collectionName, parentCollectionID, libraryID, key) VALUES (?, ?, ?, 1, ?)",
			id, name, p, s.key()); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, nil
}

// attach gives item a PDF attachment: a copy of file under storage/<KEY>/,
// or (present false) a record whose file is absent.
func (s *synth) attach(dir string, item int64, file string, present bool) error {
	id, key, err := s.item("attachment", item)
	if err != nil {
		return err
	}
	name := filepath.Base(file)
	if present {
		if err := os.MkdirAll(filepath.Join(dir, "storage", key), 0o755); err != nil {
			return err
		}
		if err := copyFile(file, filepath.Join(dir, "storage", key, name)); err != nil {
			return err
		}
	}
	if err := s.set(id, "title", "Full Text PDF"); err != nil {
		return err
	}
	_, err = s.tx.ExecContext(s.ctx, "INSERT INTO itemAttachments (itemID, parentItemID, linkMode, contentType, path) VALUES (?, ?, 0, 'application/pdf', ?)",
		id, item, "storage:"+name)
	return err
}

func copyFile(from, to string) error {
	b, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, b, 0o644)
}
