// Package zotero reads a Zotero data directory: the items of zotero.sqlite
// (Zotero 5 to 7 schemas) with their fields, creators, tags, collections
// and attachments, and where each attachment's file is under storage/ or
// on disk.
//
// Zotero keeps zotero.sqlite open, locked, while it runs, and writes it at
// any time. Read never opens it: it copies the database (with its journal
// or WAL, if any) to a temporary directory, checks that the file did not
// change while it was copied (else copies again), and reads the copy, so
// it is safe while Zotero runs and never writes to the user's files.
package zotero

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/papers-cli/papers/internal/localfile"
	"github.com/papers-cli/papers/internal/sqlitefile"
	_ "modernc.org/sqlite" // the database/sql driver "sqlite"
)

// DBName is Zotero's database file inside its data directory.
const DBName = "zotero.sqlite"

// ErrNoDatabase means the directory holds no zotero.sqlite.
var ErrNoDatabase = errors.New("no Zotero database (zotero.sqlite) in the directory")

// Library is what a Zotero data directory holds.
type Library struct {
	Dir string
	// Schema is the database's userdata version (Zotero 6: 120-121,
	// Zotero 7: 122 and up).
	Schema int
	// Items are the regular items and standalone files, not in the trash,
	// in the order Zotero added them. Notes and annotations are left out.
	Items []Item
	// Trashed are the keys (Item.ID form) of items in Zotero's trash.
	Trashed []string
}

// Item is one Zotero item.
type Item struct {
	Key string // Zotero's item key, "ABCD1234"
	// Lib is "u" for the user's own library, "g<groupID>" for a group's.
	Lib string
	// Type is Zotero's item type (journalArticle, preprint,
	// conferencePaper, ...); "attachment" for a standalone file.
	Type string
	// Fields holds every field by its own name (proceedingsTitle,
	// university) and by its base field's name (publicationTitle,
	// publisher), as Zotero maps them.
	Fields       map[string]string
	Creators     []Creator
	Tags         []string
	Collections  []string // each as its path from the top: "Reading/RL"
	Attachments  []Attachment
	DateAdded    string // "2024-10-10 13:58:21", UTC
	DateModified string
	// File is the item's own file when it is a standalone attachment.
	File *Attachment
}

// ID is the item's identity across runs and machines: "<Lib>/<Key>".
func (it Item) ID() string { return it.Lib + "/" + it.Key }

// Creator is one creator of an item, in Zotero's order.
type Creator struct {
	First, Last string
	// Single is Zotero's one-field mode (organisations, many CJK names):
	// the whole name is in Last.
	Single bool
	Type   string // author, editor, contributor, ...
	// Primary: the item type's main creator type (author for articles,
	// director for films, ...).
	Primary bool
}

// Link modes of attachments (itemAttachments.linkMode).
const (
	ImportedFile  = 0
	ImportedURL   = 1 // a web snapshot, stored like an imported file
	LinkedFile    = 2
	LinkedURL     = 3 // a link only: no file
	EmbeddedImage = 4
)

// Attachment is a file attached to an item (or standing alone).
type Attachment struct {
	Key         string
	Title       string
	ContentType string
	LinkMode    int
	// Path is the file's location on disk ("" when it has none: a linked
	// URL, or a path relative to Zotero's linked-attachment base
	// directory, which only Zotero's preferences know).
	Path string
	// Stored is the path as Zotero records it ("storage:x.pdf",
	// "attachments:Papers/x.pdf", "/home/u/x.pdf").
	Stored string
	// Missing says why the file cannot be read ("" when it is there).
	Missing      string
	DateModified string
	Size         int64
	ModTime      time.Time
}

// PDF says whether the attachment is meant to be a PDF (by content type
// or name); the caller checks the file's header before trusting it.
func (a Attachment) PDF() bool {
	return a.ContentType == "application/pdf" || strings.EqualFold(filepath.Ext(a.Stored), ".pdf")
}

// Read reads the Zotero data directory dir (see the package doc for how it
// stays safe while Zotero runs).
func Read(ctx context.Context, dir string) (*Library, error) {
	src := filepath.Join(dir, DBName)
	if st, err := os.Stat(src); err != nil || st.IsDir() {
		return nil, fmt.Errorf("%w: %s", ErrNoDatabase, dir)
	}
	tmp, err := os.MkdirTemp("", "papers-zotero-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	if err := snapshot(ctx, src, tmp); err != nil {
		return nil, err
	}
	db, err := sql.Open("sqlite", sqlitefile.URI(filepath.Join(tmp, DBName))+"?_pragma=query_only(1)&_pragma=busy_timeout(5000)")
	if err != nil {
		return nil, err
	}
	defer db.Close()
	lib := &Library{Dir: dir}
	if err := lib.read(ctx, db); err != nil {
		return nil, fmt.Errorf("read %s: %w", src, err)
	}
	return lib, nil
}

// snapshot copies the database and its journal or WAL into tmp, again if
// any of them changed while being copied (Zotero wrote), up to 5 times.
func snapshot(ctx context.Context, src, tmp string) error {
	files := []string{src, src + "-journal", src + "-wal"}
	stamp := func() string {
		var b strings.Builder
		for _, f := range files {
			if st, err := os.Stat(f); err == nil {
				fmt.Fprintf(&b, "%s %d %d;", f, st.Size(), st.ModTime().UnixNano())
			}
		}
		return b.String()
	}
	var last error
	for try := 0; try < 5; try++ {
		before := stamp()
		last = nil
		for _, f := range files {
			if err := copyFile(ctx, f, filepath.Join(tmp, filepath.Base(f))); err != nil && !errors.Is(err, os.ErrNotExist) {
				last = err
			}
		}
		if last == nil && stamp() == before {
			return nil
		}
		time.Sleep(200 * time.Millisecond)
	}
	if last != nil {
		return fmt.Errorf("copy %s: %w", src, last)
	}
	return fmt.Errorf("copy %s: Zotero kept writing it; try again in a moment", src)
}

// copyFile copies a regular file (a named pipe or a device in its place
// is refused, not read), stopping when ctx ends.
func copyFile(ctx context.Context, from, to string) error {
	in, err := localfile.Open(ctx, from, 0)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(to)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// read loads the items from an open copy of the database.
func (lib *Library) read(ctx context.Context, db *sql.DB) error {
	tables, err := tableSet(ctx, db)
	if err != nil {
		return err
	}
	for _, t := range []string{"items", "itemData", "itemDataValues", "itemAttachments", "creators", "itemCreators"} {
		if !tables[t] {
			return fmt.Errorf("not a Zotero database: no table %s", t)
		}
	}
	// Zotero 5.0.?? added the *Combined views of built-in and custom types.
	combined := func(name string) string {
		if tables[name+"Combined"] {
			return name + "Combined"
		}
		return name
	}
	if tables["version"] {
		_ = db.QueryRowContext(ctx, "SELECT version FROM version WHERE schema = 'userdata'").Scan(&lib.Schema)
	}
	libs, err := libraries(ctx, db, tables)
	if err != nil {
		return err
	}
	deleted := map[int64]bool{}
	if tables["deletedItems"] {
		if err := eachRow(ctx, db, "SELECT itemID FROM deletedItems", func(r *sql.Rows) error {
			var id int64
			err := r.Scan(&id)
			deleted[id] = true
			return err
		}); err != nil {
			return err
		}
	}
	// items
	type row struct {
		id, parent int64
		item       Item
		att        *Attachment
	}
	byID := map[int64]*row{}
	var order []int64
	q := `SELECT i.itemID, i.key, i.libraryID, t.typeName, i.dateAdded, i.dateModified
		FROM items i JOIN ` + combined("itemTypes") + ` t ON t.itemTypeID = i.itemTypeID ORDER BY i.dateAdded, i.itemID`
	if err := eachRow(ctx, db, q, func(r *sql.Rows) error {
		var id, libID int64
		var it Item
		if err := r.Scan(&id, &it.Key, &libID, &it.Type, &it.DateAdded, &it.DateModified); err != nil {
			return err
		}
		name, ok := libs[libID]
		if !ok || it.Type == "note" || it.Type == "annotation" {
			return nil // a feed's item, a note or an annotation
		}
		it.Lib = name
		if deleted[id] {
			if it.Type != "attachment" {
				lib.Trashed = append(lib.Trashed, it.ID())
			}
			return nil
		}
		it.Fields = map[string]string{}
		byID[id] = &row{id: id, item: it}
		order = append(order, id)
		return nil
	}); err != nil {
		return err
	}
	// fields, by own and base name
	base := ""
	if tables[combined("baseFieldMappings")] {
		base = `LEFT JOIN ` + combined("baseFieldMappings") + ` m ON m.itemTypeID = i.itemTypeID AND m.fieldID = d.fieldID
			LEFT JOIN ` + combined("fields") + ` b ON b.fieldID = m.baseFieldID`
	}
	baseCol := "''"
	if base != "" {
		baseCol = "coalesce(b.fieldName, '')"
	}
	q = `SELECT d.itemID, f.fieldName, ` + baseCol + `, v.value FROM itemData d
		JOIN items i ON i.itemID = d.itemID
		JOIN ` + combined("fields") + ` f ON f.fieldID = d.fieldID
		JOIN itemDataValues v ON v.valueID = d.valueID ` + base
	if err := eachRow(ctx, db, q, func(r *sql.Rows) error {
		var id int64
		var name, baseName string
		var value any
		if err := r.Scan(&id, &name, &baseName, &value); err != nil {
			return err
		}
		rw := byID[id]
		if rw == nil {
			return nil
		}
		v := strings.TrimSpace(fmt.Sprint(value))
		rw.item.Fields[name] = v
		if baseName != "" {
			rw.item.Fields[baseName] = v
		}
		return nil
	}); err != nil {
		return err
	}
	// creators, in order
	primary := "0"
	join := ""
	if tables["itemTypeCreatorTypes"] {
		primary = "coalesce(itc.primaryField, 0)"
		join = "LEFT JOIN itemTypeCreatorTypes itc ON itc.itemTypeID = i.itemTypeID AND itc.creatorTypeID = ic.creatorTypeID"
	}
	q = `SELECT ic.itemID, coalesce(c.firstName, ''), coalesce(c.lastName, ''), coalesce(c.fieldMode, 0), coalesce(ct.creatorType, ''), ` + primary + `
		FROM itemCreators ic JOIN creators c ON c.creatorID = ic.creatorID
		JOIN items i ON i.itemID = ic.itemID
		LEFT JOIN creatorTypes ct ON ct.creatorTypeID = ic.creatorTypeID ` + join + `
		ORDER BY ic.itemID, ic.orderIndex`
	if err := eachRow(ctx, db, q, func(r *sql.Rows) error {
		var id int64
		var c Creator
		var mode, prim int
		if err := r.Scan(&id, &c.First, &c.Last, &mode, &c.Type, &prim); err != nil {
			return err
		}
		c.Single, c.Primary = mode == 1, prim == 1
		if rw := byID[id]; rw != nil {
			rw.item.Creators = append(rw.item.Creators, c)
		}
		return nil
	}); err != nil {
		return err
	}
	// tags
	if tables["itemTags"] && tables["tags"] {
		if err := eachRow(ctx, db, "SELECT it.itemID, t.name FROM itemTags it JOIN tags t ON t.tagID = it.tagID ORDER BY it.itemID, t.name", func(r *sql.Rows) error {
			var id int64
			var name string
			if err := r.Scan(&id, &name); err != nil {
				return err
			}
			if rw := byID[id]; rw != nil {
				rw.item.Tags = append(rw.item.Tags, name)
			}
			return nil
		}); err != nil {
			return err
		}
	}
	if err := lib.collections(ctx, db, tables, func(id int64, path string) {
		if rw := byID[id]; rw != nil {
			rw.item.Collections = append(rw.item.Collections, path)
		}
	}); err != nil {
		return err
	}
	// attachments
	q = "SELECT itemID, coalesce(parentItemID, 0), coalesce(linkMode, 0), coalesce(contentType, ''), coalesce(path, '') FROM itemAttachments"
	if err := eachRow(ctx, db, q, func(r *sql.Rows) error {
		var id, parent int64
		var a Attachment
		if err := r.Scan(&id, &parent, &a.LinkMode, &a.ContentType, &a.Stored); err != nil {
			return err
		}
		rw := byID[id]
		if rw == nil {
			return nil // in the trash
		}
		a.Key, a.Title, a.DateModified = rw.item.Key, rw.item.Fields["title"], rw.item.DateModified
		lib.locate(&a)
		rw.parent, rw.att = parent, &a
		return nil
	}); err != nil {
		return err
	}
	for _, id := range order {
		rw := byID[id]
		if rw.item.Type != "attachment" || rw.att == nil || rw.parent == 0 {
			continue
		}
		if p := byID[rw.parent]; p != nil && p.item.Type != "attachment" {
			p.item.Attachments = append(p.item.Attachments, *rw.att)
		}
	}
	for _, id := range order {
		rw := byID[id]
		switch {
		case rw.item.Type != "attachment":
			lib.Items = append(lib.Items, rw.item)
		case rw.att != nil && rw.parent == 0 && rw.att.LinkMode != LinkedURL:
			rw.item.File = rw.att
			lib.Items = append(lib.Items, rw.item)
		}
	}
	return nil
}

// locate finds the attachment's file on disk.
func (lib *Library) locate(a *Attachment) {
	switch a.LinkMode {
	case LinkedURL, EmbeddedImage:
		return
	}
	stored := a.Stored
	switch {
	case strings.HasPrefix(stored, "storage:"):
		name := strings.TrimPrefix(stored, "storage:")
		// a name is a file in the item's own folder, nothing above it
		if name == "" || strings.ContainsAny(name, `/\`) || name == ".." {
			a.Missing = "the attachment's file name is not a plain name: " + stored
			return
		}
		a.Path = filepath.Join(lib.Dir, "storage", a.Key, name)
	case strings.HasPrefix(stored, "attachments:"):
		a.Missing = "linked relative to Zotero's base directory for linked attachments (" + stored + "), which papers cannot read from zotero.sqlite"
		return
	case stored == "":
		a.Missing = "no file recorded"
		return
	default:
		a.Path = stored
	}
	st, err := os.Stat(a.Path)
	switch {
	case err != nil:
		a.Missing = "file not found: " + a.Path
	case st.IsDir():
		a.Missing = "a directory, not a file: " + a.Path
	default:
		a.Size, a.ModTime = st.Size(), st.ModTime()
	}
}

// collections calls add for each item in a collection, with the
// collection's path. Collections in the trash are left out.
func (lib *Library) collections(ctx context.Context, db *sql.DB, tables map[string]bool, add func(item int64, path string)) error {
	if !tables["collections"] || !tables["collectionItems"] {
		return nil
	}
	type coll struct {
		name   string
		parent int64
	}
	cs := map[int64]coll{}
	if err := eachRow(ctx, db, "SELECT collectionID, collectionName, coalesce(parentCollectionID, 0) FROM collections", func(r *sql.Rows) error {
		var id int64
		var c coll
		err := r.Scan(&id, &c.name, &c.parent)
		cs[id] = c
		return err
	}); err != nil {
		return err
	}
	gone := map[int64]bool{}
	if tables["deletedCollections"] {
		if err := eachRow(ctx, db, "SELECT collectionID FROM deletedCollections", func(r *sql.Rows) error {
			var id int64
			err := r.Scan(&id)
			gone[id] = true
			return err
		}); err != nil {
			return err
		}
	}
	path := func(id int64) (string, bool) {
		var parts []string
		for depth := 0; id != 0 && depth < 64; depth++ {
			c, ok := cs[id]
			if !ok || gone[id] {
				return "", false
			}
			parts = append(parts, strings.ReplaceAll(c.name, "/", "-"))
			id = c.parent
		}
		slices.Reverse(parts)
		return strings.Join(parts, "/"), true
	}
	return eachRow(ctx, db, "SELECT collectionID, itemID FROM collectionItems ORDER BY collectionID, orderIndex", func(r *sql.Rows) error {
		var cid, iid int64
		if err := r.Scan(&cid, &iid); err != nil {
			return err
		}
		if p, ok := path(cid); ok {
			add(iid, p)
		}
		return nil
	})
}

// libraries names the libraries whose items count: the user's ("u") and
// groups' ("g<groupID>"); feeds are left out.
func libraries(ctx context.Context, db *sql.DB, tables map[string]bool) (map[int64]string, error) {
	out := map[int64]string{}
	if !tables["libraries"] {
		out[1] = "u"
		return out, nil
	}
	groups := map[int64]int64{}
	if tables["groups"] {
		if err := eachRow(ctx, db, "SELECT groupID, libraryID FROM groups", func(r *sql.Rows) error {
			var g, l int64
			err := r.Scan(&g, &l)
			groups[l] = g
			return err
		}); err != nil {
			return nil, err
		}
	}
	err := eachRow(ctx, db, "SELECT libraryID, type FROM libraries", func(r *sql.Rows) error {
		var id int64
		var typ string
		if err := r.Scan(&id, &typ); err != nil {
			return err
		}
		switch typ {
		case "user":
			out[id] = "u"
		case "group":
			out[id] = fmt.Sprintf("g%d", groups[id])
		}
		return nil
	})
	return out, err
}

func tableSet(ctx context.Context, db *sql.DB) (map[string]bool, error) {
	out := map[string]bool{}
	err := eachRow(ctx, db, "SELECT name FROM sqlite_master WHERE type IN ('table', 'view')", func(r *sql.Rows) error {
		var n string
		err := r.Scan(&n)
		out[n] = true
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("not a readable SQLite database: %w", err)
	}
	return out, nil
}

func eachRow(ctx context.Context, db *sql.DB, q string, fn func(*sql.Rows) error) error {
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := fn(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}
