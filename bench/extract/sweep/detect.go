package main

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strings"

	"github.com/papers-cli/papers/ingest/pdf/syntax"
)

// detectOne returns the text-affecting features a PDF shows (the causes
// the labels file groups files by): fonts whose glyph names are numbers,
// Type 3 fonts, CID fonts with no ToUnicode, form-field appearances, a
// CropBox smaller than the MediaBox, Form XObjects with a /BBox, content
// streams shared by pages, base-14 fonts with no /Widths, operators inside
// TJ arrays; "open-error" when package syntax cannot open the file. It is how
// bench/extract/peer-labels.tsv was started; the paper column and the
// layout causes (two-column, small-caps) were added by reading the files.
var numericGlyph = regexp.MustCompile(`^[A-Za-z]{0,2}\d{1,3}$`)

func detectOne(path string) (features []string) {
	set := map[string]bool{}
	defer func() {
		if r := recover(); r != nil {
			set["open-error"] = true
		}
		for k := range set {
			features = append(features, k)
		}
		sort.Strings(features)
	}()
	data, err := os.ReadFile(path)
	if err != nil {
		return []string{"open-error"}
	}
	file, err := syntax.Open(context.Background(), data)
	if err != nil {
		set["open-error"] = true
		return
	}
	n := file.NumPages()
	contents := map[string]int{}
	seenFont := map[string]bool{}
	for i := 0; i < n && i < 200; i++ {
		v := file.Page(i) // with its inherited attributes
		if mb, cb := box(v, "MediaBox"), box(v, "CropBox"); mb[2] > mb[0] && cb[2] > cb[0] {
			am := (mb[2] - mb[0]) * (mb[3] - mb[1])
			ac := (min(cb[2], mb[2]) - max(cb[0], mb[0])) * (min(cb[3], mb[3]) - max(cb[1], mb[1]))
			if ac < 0.9*am {
				set["cropbox"] = true
			}
		}
		c := v.Key("Contents")
		key := c.String()
		if c.Kind() == syntax.Stream || c.Kind() == syntax.Array {
			// Streams print as their dictionary; add the length to tell
			// different streams with identical dictionaries apart.
			var b []byte
			if c.Kind() == syntax.Stream {
				b, _ = c.Bytes(1 << 20)
			}
			key = fmt.Sprintf("%s#%d#%d#%x", key, c.ID(), len(b), b[:min(64, len(b))])
			if len(b) > 200 {
				contents[key]++
			}
			if c.Kind() == syntax.Stream && tjOperator.Match(b) {
				set["tj-operator"] = true
			}
		}
		annots := v.Key("Annots")
		for j := 0; j < annots.Len() && j < 500; j++ {
			a := annots.Index(j)
			st := a.Key("Subtype").Name()
			if (st == "Widget" || st == "FreeText") && a.Key("AP").Key("N").Kind() != syntax.Null {
				set["annot-ap"] = true
			}
		}
		res := v.Key("Resources")
		xo := res.Key("XObject")
		for _, k := range xo.Keys() {
			x := xo.Key(k)
			if x.Key("Subtype").Name() == "Form" && x.Key("BBox").Len() == 4 {
				set["form-bbox"] = true
			}
		}
		fonts := res.Key("Font")
		for _, k := range fonts.Keys() {
			f := fonts.Key(k)
			id := f.Key("BaseFont").Name() + "/" + k
			if seenFont[id] {
				continue
			}
			seenFont[id] = true
			st := f.Key("Subtype").Name()
			diffs := f.Key("Encoding").Key("Differences")
			num, names := 0, 0
			for d := 0; d < diffs.Len(); d++ {
				if x := diffs.Index(d); x.Kind() == syntax.Name {
					names++
					if numericGlyph.MatchString(x.Name()) {
						num++
					}
				}
			}
			if names > 0 && num*2 > names && f.Key("ToUnicode").Kind() == syntax.Null {
				set["numeric-glyphs"] = true
			}
			if st == "Type3" {
				set["type3"] = true
			}
			if st == "Type0" && f.Key("ToUnicode").Kind() == syntax.Null {
				set["cid-no-tounicode"] = true
			}
			if (st == "Type1" || st == "TrueType") && f.Key("Widths").Kind() == syntax.Null && base14[strings.TrimPrefix(f.Key("BaseFont").Name(), "")] {
				set["base14-no-widths"] = true
			}
		}
	}
	for _, c := range contents {
		if c > 1 {
			set["shared-content"] = true
		}
	}
	return
}

var tjOperator = regexp.MustCompile(`\[[^\]]*\)\s*-?\d*\.?\d*\s*[A-Za-z*']{1,3}\s[^\]]*\]\s*TJ`)

var base14 = map[string]bool{}

func init() {
	for _, n := range strings.Fields(`Times-Roman Times-Bold Times-Italic Times-BoldItalic Helvetica Helvetica-Bold
		Helvetica-Oblique Helvetica-BoldOblique Courier Courier-Bold Courier-Oblique Courier-BoldOblique Symbol ZapfDingbats
		Arial Arial,Bold Arial,Italic Arial,BoldItalic TimesNewRoman TimesNewRoman,Bold CourierNew Helv`) {
		base14[n] = true
	}
}

func box(v syntax.Value, key string) [4]float64 {
	var b [4]float64
	for p := v; p.Kind() == syntax.Dict; p = p.Key("Parent") {
		if x := p.Key(key); x.Len() == 4 {
			for i := range b {
				b[i] = x.Index(i).Float64()
			}
			if b[0] > b[2] {
				b[0], b[2] = b[2], b[0]
			}
			if b[1] > b[3] {
				b[1], b[3] = b[3], b[1]
			}
			return b
		}
	}
	return b
}
