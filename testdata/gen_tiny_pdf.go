//go:build ignore

// gen_tiny_pdf writes tiny.pdf, the two-page PDF the tests of a clone
// without ../shared/data extract and ingest: text in the standard
// Helvetica font, one paragraph a page, an Info dictionary with its title
// and author. Written for the project (no one else's text):
//
//	go run testdata/gen_tiny_pdf.go
package main

import (
	"bytes"
	"fmt"
	"os"
	"strings"
)

var pages = [][]string{
	{
		"Reward Shaping for Tool-Using Agents",
		"",
		"Abstract. We study how shaped rewards change what a tool-using",
		"language model agent learns. A dense reward for each successful",
		"tool call doubles the success rate on our benchmark of 120 tasks.",
	},
	{
		"2 Method",
		"",
		"The agent is trained with proximal policy optimization for",
		"40 thousand steps. Each episode ends after twelve tool calls or",
		"when the task is solved. Learning rate 3e-5, batch size 64.",
	},
}

func main() {
	var objs []string
	add := func(s string) int { objs = append(objs, s); return len(objs) }
	catalog := add("") // filled in below
	pagesObj := add("")
	font := add("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
	var kids []string
	for _, lines := range pages {
		var c strings.Builder
		c.WriteString("BT\n/F1 12 Tf\n14 TL\n72 720 Td\n")
		for _, l := range lines {
			c.WriteString("(" + strings.NewReplacer(`\`, `\\`, "(", `\(`, ")", `\)`).Replace(l) + ") Tj T*\n")
		}
		c.WriteString("ET\n")
		content := add(fmt.Sprintf("<< /Length %d >>\nstream\n%sendstream", c.Len(), c.String()))
		page := add(fmt.Sprintf("<< /Type /Page /Parent %d 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 %d 0 R >> >> /Contents %d 0 R >>", pagesObj, font, content))
		kids = append(kids, fmt.Sprintf("%d 0 R", page))
	}
	objs[catalog-1] = fmt.Sprintf("<< /Type /Catalog /Pages %d 0 R >>", pagesObj)
	objs[pagesObj-1] = fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), len(kids))
	info := add("<< /Title (Reward Shaping for Tool-Using Agents) /Author (Ada Tester) /CreationDate (D:20250301120000Z) >>")

	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
	offsets := make([]int, len(objs))
	for i, o := range objs {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root %d 0 R /Info %d 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, catalog, info, xref)
	if err := os.WriteFile("testdata/tiny.pdf", b.Bytes(), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
