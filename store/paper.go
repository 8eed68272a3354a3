package store

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/papers-cli/papers/role"
)

// Paper is one paper of the library, keyed by its versionless ID.
//
// arXiv papers use their arXiv id ("2501.12948", "astro-ph/0601001") and
// carry the Version that was ingested; local PDFs are keyed by a content hash
// ("pdf:" + first 16 hex digits of SHA-256) and corpus records by their "_id".
type Paper struct {
	ID           string    `json:"id"`
	Version      int       `json:"version"` // arXiv version (1, 2, ...); 0 when the source has none
	Title        string    `json:"title"`
	Abstract     string    `json:"abstract,omitempty"`
	Authors      []string  `json:"authors"`
	Affiliations []string  `json:"affiliations,omitempty"`
	Published    time.Time `json:"published"`  // zero when unknown
	Updated      time.Time `json:"updated"`    // zero when unknown
	Categories   []string  `json:"categories"` // primary category first
	Comment      string    `json:"comment,omitempty"`
	JournalRef   string    `json:"journal_ref,omitempty"`
	DOI          string    `json:"doi,omitempty"`
	URL          string    `json:"url,omitempty"`
	Source       string    `json:"source"`                 // "arxiv", "pdf", "jsonl" or "zotero": where the paper first came from
	Pages        int       `json:"pages"`                  // pages of full text held; 0 when abstract only
	Chunks       int       `json:"chunks"`                 // chunks held for this paper
	ContentHash  string    `json:"content_hash,omitempty"` // SHA-256 hex of the PDF or record text
	TextError    string    `json:"text_error,omitempty"`   // why the full text is missing, if it is
	AddedAt      time.Time `json:"added_at"`

	// ArxivID is the versionless arXiv id when the paper is known to be on
	// arXiv, whatever its source: papers with one are keyed by it.
	ArxivID string `json:"arxiv_id,omitempty"`
	// Bibliographic record, as a reference manager holds it (empty when
	// unknown). Type is a CSL item type: "article-journal",
	// "paper-conference", "article" (a preprint), "book", "chapter",
	// "thesis", "report", "webpage", ...; "" for arXiv preprints and files
	// of unknown kind.
	Type      string `json:"type,omitempty"`
	Venue     string `json:"venue,omitempty"` // journal, proceedings, book or site title
	Volume    string `json:"volume,omitempty"`
	Issue     string `json:"issue,omitempty"`
	PageRange string `json:"page_range,omitempty"` // as printed: "5921-5932"
	Publisher string `json:"publisher,omitempty"`  // publisher, university or institution
	// Issued is the publication date as precisely as the source gives it:
	// "2023", "2023-05" or "2023-05-17" ("" when unknown or when Published,
	// an arXiv submission date, says it all).
	Issued string `json:"issued,omitempty"`

	// Tags are the paper's labels with where each came from (see Tag).
	Tags []Tag `json:"tags,omitempty"`
	// Saved is when the user saved the paper (Library.Save); zero when it
	// is not saved. Like user tags it is the user's, not the sources': Put
	// ignores it and keeps it.
	Saved time.Time `json:"-"`
	// MetadataSource says where each metadata field came from, by field
	// name ("title", "authors", "published", "doi", "arxiv_id", "abstract",
	// "venue", ...): "arxiv", "zotero", "corpus", or for local PDFs
	// "pdf:xmp", "pdf:info", "pdf:layout" (the first page's layout),
	// "pdf:stamp" (arXiv's side stamp) or "pdf:text". A field with no entry
	// is empty or came with the paper's Source.
	MetadataSource map[string]string `json:"metadata_source,omitempty"`
}

// Tag is a label on a paper. Source says who set it: "zotero" (a Zotero
// tag, or a collection as "zotero:Collection/Sub"), "corpus" (a corpus
// record's metadata.tags) or "user" (set in papers itself). Names are
// case-insensitive within a source.
type Tag struct {
	Name   string `json:"name"`
	Source string `json:"source"`
}

// TagUser is the Source of tags users set themselves. Put never removes
// them: re-ingesting a paper replaces only the tags of other sources.
const TagUser = "user"

// Chunk is one retrievable passage of a paper.
//
// Seq 0 is the title+abstract chunk (PageStart = PageEnd = 0); body chunks
// follow in reading order with the 1-based page span they were cut from and
// the section heading in force where they start, if one was detected.
type Chunk struct {
	PaperID   string `json:"paper_id"`
	Seq       int    `json:"seq"`
	PageStart int    `json:"page_start"`
	PageEnd   int    `json:"page_end"`
	Section   string `json:"section,omitempty"`
	// Role is what the chunk's text is there for (role.Body for prose,
	// role.Table, role.Caption, ...); chunks stored before schema 7 read
	// as role.Body.
	Role role.Role `json:"role"`
	Text string    `json:"text"`
	// PageBreaks are the byte offsets in Text where pages PageStart+1 to
	// PageEnd start, in order (equal offsets for an empty page): a chunk
	// that spans pages knows which text is on which. Nil for a chunk of one
	// page, and for chunks stored before schema 6, whose breaks are unknown.
	PageBreaks []int     `json:"page_breaks,omitempty"`
	Vector     []float32 `json:"-"` // normalised; len = the library's embedder dimensions
}

// ChunkID is the stable identifier of a chunk: "<paper id>#<seq>".
func ChunkID(paperID string, seq int) string {
	return paperID + "#" + strconv.Itoa(seq)
}

// HashFile returns the SHA-256 of a file's content in hex: the ContentHash
// of a local PDF, whose first 16 digits make its "pdf:" id.
func HashFile(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	sum, err := HashReader(f)
	if err != nil {
		return "", fmt.Errorf("read %s: %w", path, err)
	}
	return sum, nil
}

// HashReader returns the SHA-256 of what r yields, in hex, as HashFile
// does for a file.
func HashReader(r io.Reader) (string, error) {
	h := sha256.New()
	if _, err := io.Copy(h, r); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
