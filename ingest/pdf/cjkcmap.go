package pdf

import (
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/korean"
	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/encoding/traditionalchinese"
)

// legacyCMap is one of the predefined CMaps of Adobe's CJK collections that
// take codes in a national character set (EUC, Shift-JIS, GBK, Big5, UHC)
// or a Unicode form other than UCS-2. A font using one with no ToUnicode
// is read by decoding each code in that character set, which gives the
// text pdftotext gets from the CMap and the collection's CID table.
type legacyCMap struct {
	split func(raw string) int // length of the code at the start of raw
	enc   encoding.Encoding    // nil: the code is Unicode (see utf)
	utf   string               // "16", "8" or "32" when dec is nil
	jis   bool                 // 7-bit JIS X 0208 rows (the CMaps "H" and "V"): EUC-JP less the high bits
}

// predefinedCMap returns the decoder of the predefined CMap name, or nil
// for names it does not know (Identity and UCS-2 ones are read elsewhere).
func predefinedCMap(name string) *legacyCMap {
	if name == "H" || name == "V" {
		return &legacyCMap{split: func(string) int { return 2 }, enc: japanese.EUCJP, jis: true}
	}
	base := strings.TrimSuffix(strings.TrimSuffix(name, "-H"), "-V")
	if base == name {
		return nil
	}
	switch {
	case strings.HasPrefix(name, "Uni") && strings.Contains(name, "-UTF16-"):
		return &legacyCMap{split: splitUTF16, utf: "16"}
	case strings.HasPrefix(name, "Uni") && strings.Contains(name, "-UTF8-"):
		return &legacyCMap{split: splitUTF8, utf: "8"}
	case strings.HasPrefix(name, "Uni") && strings.Contains(name, "-UTF32-"):
		return &legacyCMap{split: func(string) int { return 4 }, utf: "32"}
	case strings.Contains(base, "RKSJ"): // 90ms-RKSJ, 83pv-RKSJ, Add-RKSJ, ...
		return &legacyCMap{split: splitSJIS, enc: japanese.ShiftJIS}
	case base == "EUC" || base == "78-EUC" || base == "Hojo-EUC":
		return &legacyCMap{split: splitEUCJP, enc: japanese.EUCJP}
	case strings.HasPrefix(base, "GBK2K"):
		return &legacyCMap{split: splitGB18030, enc: simplifiedchinese.GB18030}
	case strings.HasPrefix(base, "GB"): // GB-EUC, GBpc-EUC, GBK-EUC, GBKp-EUC, GBT-EUC
		return &legacyCMap{split: splitDBCS, enc: simplifiedchinese.GBK}
	case strings.Contains(base, "B5"): // B5pc, ETen-B5, ETenms-B5, HKscs-B5
		return &legacyCMap{split: splitDBCS, enc: traditionalchinese.Big5}
	case strings.HasPrefix(base, "KSC"): // KSC-EUC, KSCms-UHC, KSCpc-EUC
		return &legacyCMap{split: splitDBCS, enc: korean.EUCKR}
	}
	return nil
}

// text decodes one code; "" where the character set has no character.
func (m *legacyCMap) text(code string) string {
	switch {
	case m.enc == nil && m.utf == "16":
		u := make([]uint16, len(code)/2)
		for i := range u {
			u[i] = uint16(code[2*i])<<8 | uint16(code[2*i+1])
		}
		return validText(string(utf16.Decode(u)))
	case m.enc == nil && m.utf == "8":
		return validText(code)
	case m.enc == nil:
		if len(code) != 4 {
			return ""
		}
		return validText(string(rune(beUint(code))))
	}
	b := []byte(code)
	if m.jis {
		for i := range b {
			b[i] |= 0x80
		}
	}
	out, err := m.enc.NewDecoder().Bytes(b) // a decoder has state: one a code
	if err != nil {
		return ""
	}
	return validText(string(out))
}

// validText drops replacement characters and invalid UTF-8.
func validText(s string) string {
	if !utf8.ValidString(s) || strings.ContainsRune(s, utf8.RuneError) {
		return ""
	}
	return s
}

// cid guesses the CID of a one-byte code for its width: in all four CJK
// collections CIDs 1-95 are ASCII 0x20-0x7e.
func (m *legacyCMap) cid(code string) (uint32, bool) {
	if len(code) == 1 && m.enc != nil && code[0] >= 0x20 && code[0] <= 0x7e {
		return uint32(code[0]) - 31, true
	}
	return 0, false
}

func splitUTF16(raw string) int {
	if len(raw) >= 4 && raw[0] >= 0xd8 && raw[0] <= 0xdb {
		return 4
	}
	return 2
}

func splitUTF8(raw string) int {
	switch c := raw[0]; {
	case c >= 0xf0:
		return 4
	case c >= 0xe0:
		return 3
	case c >= 0xc0:
		return 2
	}
	return 1
}

func splitSJIS(raw string) int {
	if c := raw[0]; c >= 0x81 && c <= 0x9f || c >= 0xe0 && c <= 0xfc {
		return 2
	}
	return 1
}

func splitEUCJP(raw string) int {
	switch c := raw[0]; {
	case c == 0x8f:
		return 3
	case c >= 0x8e:
		return 2
	}
	return 1
}

// splitDBCS splits GBK, Big5 and UHC: a lead byte 0x81-0xfe starts a
// two-byte code.
func splitDBCS(raw string) int {
	if c := raw[0]; c >= 0x81 && c <= 0xfe {
		return 2
	}
	return 1
}

func splitGB18030(raw string) int {
	if n := splitDBCS(raw); n == 2 && len(raw) >= 4 && raw[1] >= 0x30 && raw[1] <= 0x39 {
		return 4
	}
	return splitDBCS(raw)
}
