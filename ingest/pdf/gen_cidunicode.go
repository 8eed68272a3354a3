//go:build ignore

// gen_cidunicode writes cidunicode.bin: the text of every CID of Adobe's
// five CJK character collections (Japan1, GB1, CNS1, Korea1, KR), for CID
// fonts that have no ToUnicode map and draw with a font the file does not
// embed, or embeds without a Unicode cmap (pdftotext reads them through the
// same tables). The source is Adobe's CMap resources, BSD-3-Clause (the
// notice is kept in cidunicode.go), as Debian's poppler-data ships them:
//
//	apt-get download poppler-data && dpkg -x poppler-data_*.deb pd
//	go run gen_cidunicode.go pd/usr/share/poppler/cMap > cidunicode.bin
//
// (or /usr/share/poppler/cMap where poppler-data is installed). Format,
// flate-compressed: per collection its name (uvarint length, bytes), its
// entry count (uvarint), then per entry in CID order the CID's distance from
// the previous one (uvarint), its rune count (uvarint) and each rune as its
// difference from the rune written before it (varint). Variation selectors
// (U+FE00-FE0F, U+E0100-E01EF) are dropped: they pick a glyph shape, not a
// character.
package main

import (
	"bufio"
	"compress/flate"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"unicode/utf16"
)

var collections = []string{"Japan1", "GB1", "CNS1", "Korea1", "KR"}

var (
	char  = regexp.MustCompile(`^<([0-9a-fA-F]+)>\s*<([0-9a-fA-F]+)>\s*$`)
	rng   = regexp.MustCompile(`^<([0-9a-fA-F]+)>\s*<([0-9a-fA-F]+)>\s*<([0-9a-fA-F]+)>\s*$`)
	inBF  = regexp.MustCompile(`begin(bfchar|bfrange)$`)
	outBF = regexp.MustCompile(`^end(bfchar|bfrange)$`)
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: go run gen_cidunicode.go CMAPDIR > cidunicode.bin")
		os.Exit(2)
	}
	zw, err := flate.NewWriter(os.Stdout, flate.BestCompression)
	check(err)
	var buf []byte
	for _, c := range collections {
		m := read(filepath.Join(os.Args[1], "Adobe-"+c, "Adobe-"+c+"-UCS2"))
		cids := make([]int, 0, len(m))
		for cid := range m {
			cids = append(cids, cid)
		}
		sort.Ints(cids)
		buf = binary.AppendUvarint(buf, uint64(len(c)))
		buf = append(buf, c...)
		buf = binary.AppendUvarint(buf, uint64(len(cids)))
		prevCID, prevRune := -1, rune(0)
		for _, cid := range cids {
			rs := m[cid]
			buf = binary.AppendUvarint(buf, uint64(cid-prevCID))
			buf = binary.AppendUvarint(buf, uint64(len(rs)))
			for _, r := range rs {
				buf = binary.AppendVarint(buf, int64(r-prevRune))
				prevRune = r
			}
			prevCID = cid
		}
		fmt.Fprintf(os.Stderr, "%s: %d CIDs\n", c, len(cids))
	}
	_, err = zw.Write(buf)
	check(err)
	check(zw.Close())
}

// read parses the bfchar and bfrange entries of one CID-to-UCS2 CMap.
func read(path string) map[int][]rune {
	f, err := os.Open(path)
	check(err)
	defer f.Close()
	m := map[int][]rune{}
	sc := bufio.NewScanner(f)
	in := false
	for sc.Scan() {
		line := sc.Text()
		switch {
		case inBF.MatchString(line):
			in = true
			continue
		case outBF.MatchString(line):
			in = false
			continue
		case !in:
			continue
		}
		if s := rng.FindStringSubmatch(line); s != nil {
			lo, hi, dst := num(s[1]), num(s[2]), unhex(s[3])
			for cid := lo; cid <= hi; cid++ {
				put(m, cid, dst)
				d := append([]byte(nil), dst...)
				d[len(d)-1]++ // ranges do not cross a 256 boundary
				dst = d
			}
			continue
		}
		if s := char.FindStringSubmatch(line); s != nil {
			put(m, num(s[1]), unhex(s[2]))
			continue
		}
		fmt.Fprintf(os.Stderr, "%s: cannot read %q\n", path, line)
		os.Exit(1)
	}
	check(sc.Err())
	return m
}

func put(m map[int][]rune, cid int, utf16be []byte) {
	u := make([]uint16, len(utf16be)/2)
	for i := range u {
		u[i] = uint16(utf16be[2*i])<<8 | uint16(utf16be[2*i+1])
	}
	var rs []rune
	for _, r := range utf16.Decode(u) {
		if r >= 0xfe00 && r <= 0xfe0f || r >= 0xe0100 && r <= 0xe01ef {
			continue
		}
		rs = append(rs, r)
	}
	if len(rs) > 0 {
		m[cid] = rs
	}
}

func num(h string) int {
	n := 0
	for _, b := range unhex(h) {
		n = n<<8 | int(b)
	}
	return n
}

func unhex(h string) []byte {
	b, err := hex.DecodeString(h)
	check(err)
	return b
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
