package pdf

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestReadersAgree: the page text reads the same document through package
// syntax and through ledongthuc/pdf (the clean copy syntax writes) and gets
// the same text, title and warnings: the two readers cross-check each
// other's objects, names, numbers, strings and streams.
func TestReadersAgree(t *testing.T) {
	files := pdfsIn(t, needData(t, "pdfs/papers"))
	peer := needData(t, "pdfs/peer/pdfs")
	files = append(files, filepath.Join(peer, "pdfjs/issue918.pdf"), filepath.Join(peer, "pdfminer/issue-625-identity-cmap.pdf"),
		filepath.Join(peer, "cermine/cermine-web__src__test__resources__pdf__test1.pdf"), filepath.Join("testdata", "type3-flipped.pdf"))
	if raceDetector && !fullTests {
		files = files[len(files)-5:] // the small ones
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			own, err1 := ExtractBytesWith(context.Background(), data, OwnReader)
			other, err2 := ExtractBytesWith(context.Background(), data, Ledongthuc)
			if err1 != nil || err2 != nil {
				t.Fatalf("own reader: %v; ledongthuc: %v", err1, err2)
			}
			if own.Text() != other.Text() {
				a, b := own.Text(), other.Text()
				i := 0
				for i < len(a) && i < len(b) && a[i] == b[i] {
					i++
				}
				t.Errorf("the texts differ at byte %d: %.80q against %.80q", i, a[i:], b[i:])
			}
			if own.Title != other.Title || len(own.Warnings) != len(other.Warnings) {
				t.Errorf("title %q, %d warnings; ledongthuc: %q, %d warnings", own.Title, len(own.Warnings), other.Title, len(other.Warnings))
			}
		})
	}
}
