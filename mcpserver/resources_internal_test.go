package mcpserver

import (
	"net/url"
	"testing"
)

// TestResourceURI: every paper id gives a URI that parses (the SDK panics
// on one that does not) and reads back as the id.
func TestResourceURI(t *testing.T) {
	for id, want := range map[string]string{
		"2501.12948":              "papers://2501.12948",
		"hep-th/9901001":          "papers://hep-th/9901001",
		"topic-001":               "papers://topic-001",
		"pdf:af3b60c8ad85c10b":    "papers:///pdf:af3b60c8ad85c10b",
		"zotero:ABCD1234":         "papers:///zotero:ABCD1234",
		"doc 7":                   "papers:///doc%207",
		"a@b":                     "papers:///a@b",
		"x?y#z":                   "papers:///x%3Fy%23z",
		"50%":                     "papers:///50%25",
		"über/straße":             "papers:///%C3%BCber%2Fstra%C3%9Fe",
		"corpus:42/v":             "papers://corpus:42/v", // a host and port: it parses
		"UPPER.case_id~1":         "papers://UPPER.case_id~1",
		"1234.5678:has-colon-end": "papers:///1234.5678:has-colon-end",
	} {
		got := resourceURI(id)
		if got != want {
			t.Errorf("resourceURI(%q) = %q, want %q", id, got, want)
		}
		if _, err := url.Parse(got); err != nil {
			t.Errorf("resourceURI(%q) = %q does not parse: %v", id, got, err)
		}
		if back, ok := resourceID(got); !ok || back != id {
			t.Errorf("resourceID(%q) = %q, %v, want %q", got, back, ok, id)
		}
	}
}
