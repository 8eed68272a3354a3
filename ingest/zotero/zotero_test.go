package zotero

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/papers-cli/papers/internal/shareddata"
)

// needSample is a real user's Zotero 7 data directory (see its
// SOURCE.txt in the shared data).
func needSample(t testing.TB) string {
	t.Helper()
	shareddata.Path(t, "zotero", "yi1699-zotero7", DBName)
	return shareddata.Path(t, "zotero", "yi1699-zotero7")
}

func TestReadRealLibrary(t *testing.T) {
	dir := needSample(t)
	before, _ := os.Stat(filepath.Join(dir, DBName))
	lib, err := Read(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	after, _ := os.Stat(filepath.Join(dir, DBName))
	if !before.ModTime().Equal(after.ModTime()) || before.Size() != after.Size() {
		t.Error("the Zotero database was touched")
	}
	if lib.Schema != 123 {
		t.Errorf("schema %d, want userdata 123", lib.Schema)
	}
	types := map[string]int{}
	byKey := map[string]Item{}
	present, missing := 0, 0
	for _, it := range lib.Items {
		types[it.Type]++
		byKey[it.Key] = it
		atts := it.Attachments
		if it.File != nil {
			atts = append(atts, *it.File)
		}
		for _, a := range atts {
			if a.Missing == "" {
				present++
			} else {
				missing++
			}
		}
	}
	want := map[string]int{"journalArticle": 11, "preprint": 4, "conferencePaper": 2, "webpage": 1, "attachment": 3}
	for k, n := range want {
		if types[k] != n {
			t.Errorf("%d items of type %s, want %d (all: %v)", types[k], k, n, types)
		}
	}
	if present != 11 || missing != 11 {
		t.Errorf("%d attachments present, %d missing; want 11 and 11 (10 PDFs and the HTML snapshot)", present, missing)
	}
	arxiv := map[string]string{}
	for _, it := range lib.Items {
		if id := it.ArxivID(); id != "" {
			arxiv[it.Key] = id
		}
	}
	wantArxiv := map[string]string{"753V43SM": "2410.01698", "BFWIFBSK": "1706.01000", "FCY8QVDX": "2006.11239", "U2E7QY9M": "1801.03924"}
	for k, id := range wantArxiv {
		if arxiv[k] != id {
			t.Errorf("%s: arXiv id %q, want %q", k, arxiv[k], id)
		}
	}
	if len(arxiv) != len(wantArxiv) {
		t.Errorf("arXiv ids %v, want only the 4 preprints'", arxiv)
	}
	cosmic := byKey["753V43SM"]
	if len(cosmic.Attachments) != 2 || cosmic.Date() != "2024-10-02" || cosmic.CSLType() != "article" || cosmic.Publisher() != "arXiv" {
		t.Errorf("COSMIC: %d attachments, date %q, type %s, publisher %q", len(cosmic.Attachments), cosmic.Date(), cosmic.CSLType(), cosmic.Publisher())
	}
	if as := cosmic.Authors(); len(as) != 7 || as[0] != "Ziyuan Zhang" {
		t.Errorf("COSMIC authors %q", as)
	}
	var cols []string
	for _, it := range lib.Items {
		for _, c := range it.Collections {
			if !slices.Contains(cols, c) {
				cols = append(cols, c)
			}
		}
	}
	nested := 0
	for _, c := range cols {
		if strings.Contains(c, "/") {
			nested++
		}
	}
	if nested == 0 {
		t.Errorf("collections %q: the nested ones should read Parent/Child", cols)
	}
	psnr := byKey["VDTZ2IDW"]
	if psnr.Date() != "2010-08" || psnr.Venue() != "2010 20th International Conference on Pattern Recognition" || psnr.DOI() != "10.1109/ICPR.2010.579" || psnr.CSLType() != "paper-conference" {
		t.Errorf("PSNR vs SSIM: date %q venue %q doi %q type %s", psnr.Date(), psnr.Venue(), psnr.DOI(), psnr.CSLType())
	}
}

func TestParseDateAndNames(t *testing.T) {
	for in, want := range map[string]string{
		"2023-05-00 2023-05": "2023-05", "2009-12-00 12/2009": "2009-12", "2024-10-02 2024-10-02": "2024-10-02",
		"2020-00-00 2020": "2020", "0000-00-00 Spring 2023": "2023", "2023": "2023", "": "", "n.d.": "", "2021-7-3": "2021-07-03",
	} {
		if got := ParseDate(in); got != want {
			t.Errorf("ParseDate(%q) = %q, want %q", in, got, want)
		}
	}
	for _, c := range []struct {
		c    Creator
		want string
	}{
		{Creator{First: "Ashish", Last: "Vaswani"}, "Ashish Vaswani"},
		{Creator{First: "Gabriel", Last: "García Márquez"}, "García Márquez, Gabriel"},
		{Creator{Last: "OpenAI", Single: true}, "OpenAI"},
		{Creator{Last: "张三", Single: true}, "张三"},
	} {
		if got := c.c.Name(); got != c.want {
			t.Errorf("Name(%+v) = %q, want %q", c.c, got, c.want)
		}
	}
	it := Item{Fields: map[string]string{"extra": "titleTranslation: x\n_eprint: 2209.09673"}}
	if got := it.ArxivID(); got != "2209.09673" {
		t.Errorf("_eprint in extra: %q", got)
	}
	it = Item{Fields: map[string]string{"url": "https://arxiv.org/abs/2303.11366v4", "DOI": "10.48550/arXiv.2303.11366"}}
	if got := it.ArxivID(); got != "2303.11366v4" || it.DOI() != "" {
		t.Errorf("url with version: %q, doi %q", got, it.DOI())
	}
}

// TestReadOlderSchema: a database without the *Combined tables (Zotero
// before custom item types) and without a trash for collections reads the
// same items, with Zotero 6's version numbers.
func TestReadOlderSchema(t *testing.T) {
	dir := needSample(t)
	old := t.TempDir()
	b, err := os.ReadFile(filepath.Join(dir, DBName))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(old, DBName), b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(mustAbs(t, filepath.Join(dir, "storage")), filepath.Join(old, "storage")); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", filepath.Join(old, DBName))
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"DROP TABLE itemTypesCombined", "DROP TABLE fieldsCombined", "DROP TABLE baseFieldMappingsCombined",
		"DROP TABLE itemTypeFieldsCombined", "DROP TABLE deletedCollections", "UPDATE version SET version = 120 WHERE schema = 'userdata'"} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	db.Close()
	now, err := Read(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	then, err := Read(context.Background(), old)
	if err != nil {
		t.Fatal(err)
	}
	if then.Schema != 120 || len(then.Items) != len(now.Items) {
		t.Fatalf("schema %d, %d items; want 120 and %d", then.Schema, len(then.Items), len(now.Items))
	}
	for i := range now.Items {
		a, b := now.Items[i], then.Items[i]
		if a.Key != b.Key || a.Type != b.Type || a.Fields["title"] != b.Fields["title"] || a.Date() != b.Date() ||
			strings.Join(a.Authors(), "|") != strings.Join(b.Authors(), "|") || a.Venue() != b.Venue() || a.ArxivID() != b.ArxivID() ||
			len(a.Attachments) != len(b.Attachments) || strings.Join(a.Collections, "|") != strings.Join(b.Collections, "|") {
			t.Errorf("item %s reads differently: %+v\nvs %+v", a.Key, a, b)
		}
	}
}

func mustAbs(t *testing.T, p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// Linked files are read where they are; paths relative to Zotero's base
// directory (a preference papers cannot read) and names that leave the
// item's folder are reported, never followed.
func TestLocateAttachments(t *testing.T) {
	dir := t.TempDir()
	linked := filepath.Join(dir, "elsewhere", "paper.pdf")
	os.MkdirAll(filepath.Dir(linked), 0o755)
	os.WriteFile(linked, []byte("%PDF-1.4 linked"), 0o644)
	os.MkdirAll(filepath.Join(dir, "storage", "ABCD1234"), 0o755)
	os.WriteFile(filepath.Join(dir, "storage", "ABCD1234", "x.pdf"), []byte("%PDF-1.4 stored"), 0o644)
	lib := &Library{Dir: dir}
	for _, c := range []struct {
		a            Attachment
		path, reason string
	}{
		{Attachment{Key: "ABCD1234", LinkMode: ImportedFile, Stored: "storage:x.pdf"}, filepath.Join(dir, "storage", "ABCD1234", "x.pdf"), ""},
		{Attachment{Key: "ABCD1234", LinkMode: ImportedFile, Stored: "storage:gone.pdf"}, filepath.Join(dir, "storage", "ABCD1234", "gone.pdf"), "file not found"},
		{Attachment{Key: "ABCD1234", LinkMode: ImportedFile, Stored: "storage:../../etc/passwd"}, "", "not a plain name"},
		{Attachment{Key: "EFGH5678", LinkMode: LinkedFile, Stored: linked}, linked, ""},
		{Attachment{Key: "EFGH5678", LinkMode: LinkedFile, Stored: "attachments:Papers/x.pdf"}, "", "base directory"},
		{Attachment{Key: "IJKL9012", LinkMode: LinkedURL, Stored: ""}, "", ""},
	} {
		a := c.a
		lib.locate(&a)
		if a.Path != c.path || c.reason == "" && a.Missing != "" || c.reason != "" && !strings.Contains(a.Missing, c.reason) {
			t.Errorf("%s: path %q missing %q; want %q, %q", c.a.Stored, a.Path, a.Missing, c.path, c.reason)
		}
	}
}
