package ingest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/papers-cli/papers/export"
	"github.com/papers-cli/papers/ingest/arxiv"
	"github.com/papers-cli/papers/ingest/arxiv/arxivtest"
	"github.com/papers-cli/papers/store"
)

// TestZoteroImport imports a real user's Zotero 7 library (42 items: 18
// regular, 3 standalone PDFs, 11 PDFs present and 10 absent, arXiv ids in
// four forms; see shared/data/zotero/yi1699-zotero7/SOURCE.txt) twice,
// then once more after items were edited in Zotero (on a copy of its
// database, the files shared).
func TestZoteroImport(t *testing.T) {
	t.Parallel()
	cosmicEntry := arxiv.Entry{ID: "2410.01698", Version: 1, Title: "COSMIC: Compress Satellite Images Efficiently via Diffusion Compensation",
		Summary: "With the rapidly increasing number of satellites in space ...", Authors: []arxiv.Author{{Name: "Ziyuan Zhang"}, {Name: "Han Qiu"}},
		Published: time.Date(2024, 10, 2, 0, 0, 0, 0, time.UTC), Updated: time.Date(2024, 10, 9, 0, 0, 0, 0, time.UTC),
		PrimaryCategory: "eess.IV", Categories: []string{"eess.IV", "cs.CV"}, AbsURL: "https://arxiv.org/abs/2410.01698v1"}
	f := newFixture(t, arxivtest.Options{}, cosmicEntry)
	ctx := context.Background()
	src := filepath.Join(f.data, "zotero", "yi1699-zotero7")
	dir := t.TempDir()
	copyFile(t, filepath.Join(src, "zotero.sqlite"), filepath.Join(dir, "zotero.sqlite"))
	abs, _ := filepath.Abs(filepath.Join(src, "storage"))
	if err := os.Symlink(abs, filepath.Join(dir, "storage")); err != nil {
		t.Fatal(err)
	}
	sum := func() [32]byte {
		b, err := os.ReadFile(filepath.Join(dir, "zotero.sqlite"))
		if err != nil {
			t.Fatalf("test data missing: %v", err)
		}
		return sha256.Sum256(b)
	}
	before := sum()
	rep, err := f.in.Zotero(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	if sum() != before {
		t.Error("zotero.sqlite changed")
	}
	// an item whose PDF fails is reported once: failed, its record kept
	if len(rep.Added)+len(rep.Failed) != 21 || len(rep.Updated)+len(rep.Unchanged) != 0 {
		t.Errorf("added %d (%v), failed %v, updated %v, unchanged %v; want the 18 items and 3 standalone PDFs added or kept without text", len(rep.Added), rep.Added, rep.Failed, rep.Updated, rep.Unchanged)
	}
	for _, fl := range rep.Failed {
		if _, err := f.lib.Get(ctx, fl.Item); !fl.AbstractKept || slices.Contains(rep.Added, fl.Item) || err != nil {
			t.Errorf("failure %+v: the item must come in all the same, reported once (%v)", fl, err)
		}
	}
	if len(rep.Missing) != 11 {
		t.Errorf("%d missing attachments, want 11 (10 PDFs, 1 HTML snapshot): %+v", len(rep.Missing), rep.Missing)
	}
	for _, m := range rep.Missing {
		if m.Item == "" || m.Zotero == "" || m.Attachment == "" || !strings.Contains(m.Reason, "not found") {
			t.Errorf("missing %+v", m)
		}
	}
	get := func(id string) store.Paper {
		t.Helper()
		p, err := f.lib.Get(ctx, id)
		if err != nil {
			t.Fatalf("%s: %v (added %v)", id, err, rep.Added)
		}
		return p
	}
	// arXiv ids from the url, extra, archiveID and DOI, and from PDFs' stamps
	for _, id := range []string{"2410.01698", "1706.01000", "2006.11239", "1801.03924", "1706.03762", "2209.02646"} {
		if p := get(id); p.ArxivID != id {
			t.Errorf("%s: arXiv id %q", id, p.ArxivID)
		}
	}
	cosmic := get("2410.01698")
	if cosmic.Type != "article" || len(cosmic.Authors) != 7 || cosmic.Pages == 0 || cosmic.Source != "zotero" || cosmic.Issued != "2024-10-02" ||
		!slices.Contains(cosmic.Tags, store.Tag{Name: "zotero:卫星图像压缩", Source: "zotero"}) {
		t.Errorf("COSMIC: %+v", cosmic)
	}
	if ddpm := get("2006.11239"); ddpm.Pages != 0 || ddpm.Abstract == "" || ddpm.Authors[0] != "Jonathan Ho" {
		t.Errorf("DDPM (PDF missing): %d pages, abstract %q, authors %v", ddpm.Pages, ddpm.Abstract, ddpm.Authors)
	}
	psnr := get("zotero:VDTZ2IDW")
	if psnr.Type != "paper-conference" || psnr.Venue != "2010 20th International Conference on Pattern Recognition" || psnr.PageRange != "2366-2369" ||
		psnr.DOI != "10.1109/ICPR.2010.579" || psnr.Issued != "2010-08" || psnr.Pages != 4 {
		t.Errorf("PSNR vs SSIM: %+v", psnr)
	}
	ir := get("zotero:9LCYTSC9")
	if !slices.Contains(ir.Tags, store.Tag{Name: "zotero:科研预备/红外弱小目标识别", Source: "zotero"}) || ir.Volume != "32" || ir.Type != "article-journal" {
		t.Errorf("nested collection, volume: %v %q %s", ir.Tags, ir.Volume, ir.Type)
	}
	sat := get("zotero:ZWX7T4QC") // a standalone PDF named by its file: the file's own title
	if sat.Title != "Satellite Image Compression and Denoising With Neural Networks" || sat.MetadataSource["title"] != "pdf:info" {
		t.Errorf("standalone PDF: %q from %s", sat.Title, sat.MetadataSource["title"])
	}
	// its XMP names a journal, with a volume: a journal article
	if sat.Type != "article-journal" || sat.Venue != "IEEE Geoscience and Remote Sensing Letters" || sat.MetadataSource["type"] != "pdf:xmp" {
		t.Errorf("standalone PDF: type %q (from %s), venue %q", sat.Type, sat.MetadataSource["type"], sat.Venue)
	}
	if cjk := get("zotero:ES6V7V4U"); cjk.Title != "基于JPEG2000的卫星图像压缩_解压技术" {
		t.Errorf("CJK standalone PDF title %q", cjk.Title)
	}
	ps, err := f.lib.List(ctx, store.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	var bib bytes.Buffer
	if err := export.BibTeX(&bib, ps, nil); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"@inproceedings{hore2010image,", "@article{liu2023infrared,", "@article{deoliveira2022satellite,", "journal       = {IEEE Transactions on Image Processing}",
		"pages         = {5921--5932}", "@misc{zhang2024cosmic,", "eprint        = {2410.01698v1}"} {
		if !strings.Contains(bib.String(), want) {
			t.Errorf("BibTeX lacks %q", want)
		}
	}
	if strings.Contains(bib.String(), "file://") {
		t.Error("BibTeX has a file:// url")
	}

	// Again: everything unchanged, no PDF read.
	extracted := 0
	f.in.Observer = func(e Event) {
		if e.Kind == Extracted {
			extracted++
		}
	}
	rep, err = f.in.Zotero(ctx, dir)
	if err != nil || len(rep.Unchanged) != 21 || len(rep.Added)+len(rep.Updated)+len(rep.Failed) != 0 || extracted != 0 || len(rep.Missing) != 11 {
		t.Errorf("second run: %d unchanged, added %v, updated %v, failed %v, %d PDFs read, %d missing; %v",
			len(rep.Unchanged), rep.Added, rep.Updated, rep.Failed, extracted, len(rep.Missing), err)
	}

	zoteroEdits(t, ctx, f, dir)

	// papers update: the items with an arXiv id get arXiv's record; what
	// only Zotero knows (type, tags, collections) and the text stay
	rep, err = f.in.FillArxiv(ctx)
	if err != nil || !slices.Contains(rep.Updated, "2410.01698") {
		t.Fatalf("FillArxiv: updated %v, %v", rep.Updated, err)
	}
	c := get("2410.01698")
	if c.Source != "arxiv" || strings.Join(c.Categories, " ") != "eess.IV cs.CV" || c.Type != "article" || c.Pages != cosmic.Pages ||
		!slices.Contains(c.Tags, store.Tag{Name: "zotero:卫星图像压缩", Source: "zotero"}) {
		t.Errorf("COSMIC with arXiv's record: source %s, categories %v, type %q, %d pages, tags %v", c.Source, c.Categories, c.Type, c.Pages, c.Tags)
	}
	if p, err := f.lib.FindPaper(ctx, "zotero:753V43SM"); err != nil || p.ID != "2410.01698" {
		t.Errorf("the Zotero item's key: %s, %v", p.ID, err)
	}
}

// zoteroEdits: an item edited in Zotero since the last run (its
// dateModified moves, a tag removed, its title changed) is read again; the
// others are not; an item put in the trash is not removed.
func zoteroEdits(t *testing.T, ctx context.Context, f *fixture, dir string) {
	db, err := sql.Open("sqlite", filepath.Join(dir, "zotero.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`UPDATE items SET dateModified = '2026-01-01 00:00:00' WHERE key = 'U2E7QY9M'`,
		`DELETE FROM itemTags WHERE itemID = (SELECT itemID FROM items WHERE key = 'U2E7QY9M')
			AND tagID = (SELECT tagID FROM tags WHERE name = 'Computer Science - Graphics')`,
		`UPDATE itemDataValues SET value = 'The Unreasonable Effectiveness of Deep Features' WHERE valueID =
			(SELECT valueID FROM itemData d JOIN items i USING (itemID) WHERE i.key = 'U2E7QY9M' AND d.fieldID =
				(SELECT fieldID FROM fieldsCombined WHERE fieldName = 'title'))`,
		`INSERT INTO deletedItems (itemID) SELECT itemID FROM items WHERE key = 'QYLRNDKH'`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	db.Close()
	var notes []string
	f.in.Observer = func(e Event) {
		if e.Kind == Note {
			notes = append(notes, e.Msg)
		}
	}
	rep, err := f.in.Zotero(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(rep.Updated, ",") != "1801.03924" || len(rep.Unchanged) != 19 || len(rep.Added) != 0 {
		t.Errorf("re-run: updated %v, %d unchanged, added %v", rep.Updated, len(rep.Unchanged), rep.Added)
	}
	p, err := f.lib.Get(ctx, "1801.03924")
	if err != nil || p.Title != "The Unreasonable Effectiveness of Deep Features" || slices.Contains(p.Tags, store.Tag{Name: "Computer Science - Graphics", Source: "zotero"}) {
		t.Errorf("edited item: %+v, %v", p, err)
	}
	if _, err := f.lib.Get(ctx, "zotero:QYLRNDKH"); err != nil {
		t.Errorf("an item put in Zotero's trash was removed: %v", err)
	}
	if !slices.ContainsFunc(notes, func(n string) bool { return strings.Contains(n, "1 item imported before is in Zotero's trash") }) {
		t.Errorf("notes %q: the trashed item is not mentioned", notes)
	}
}
