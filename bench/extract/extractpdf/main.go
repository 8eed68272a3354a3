// Command extractpdf extracts PDFs with ingest/pdf, for benchmarks and
// memory measurements: extractpdf [-score REFDIR] FILE.pdf...
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/papers-cli/papers/ingest/pdf"
	"github.com/papers-cli/papers/ingest/pdf/score"
)

func main() {
	refDir := flag.String("score", "", "score against REFDIR/<name>.txt instead of printing text")
	quiet := flag.Bool("q", false, "print nothing (timing runs)")
	flag.Parse()
	status := 0
	for _, path := range flag.Args() {
		start := time.Now()
		doc, err := pdf.ExtractFile(context.Background(), path)
		el := time.Since(start)
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", path, err)
			status = 1
			if doc == nil {
				continue
			}
		}
		switch {
		case *quiet:
		case *refDir != "":
			name := strings.TrimSuffix(filepath.Base(path), ".pdf")
			ref, err := os.ReadFile(filepath.Join(*refDir, name+".txt"))
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				continue
			}
			r := score.Compare(doc.Text(), string(ref))
			fmt.Printf("%-48s word P %.3f R %.3f F1 %.3f  bigram F1 %.3f  %v\n", name, r.WordP, r.WordR, r.WordF1, r.BigramF1, el.Round(time.Millisecond))
		default:
			fmt.Print(doc.Text())
			fmt.Fprintf(os.Stderr, "title=%q arxiv=%q %q warnings=%q\n", doc.Title, doc.ArxivID, doc.ArxivDate, doc.Warnings)
		}
	}
	os.Exit(status)
}
