package bibtex

import (
	"encoding/base64"
	"encoding/binary"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf16"
)

// Files are the paths of the files an entry links, in the order written,
// as reference managers write them: Zotero's and JabRef's "file" field
// ("Full Text PDF:/path/x.pdf:application/pdf;..." with "\:" and "\\"
// escapes, ":x.pdf:PDF" relative to the .bib), Mendeley's (the leading
// "/" dropped: ":home/u/x.pdf:pdf"), BibDesk's "bdsk-file-N" (a base64
// property list holding the path relative to the .bib), and "pdf",
// "local-url" and file: URLs. Relative paths are taken from dir, the
// .bib file's directory. Nothing is checked on disk except to choose
// between Mendeley's reading and a relative one.
func (e Entry) Files(dir string) []string {
	var out []string
	add := func(p string) {
		p = strings.TrimSpace(p)
		if p == "" {
			return
		}
		if u, err := url.Parse(p); err == nil && u.Scheme == "file" {
			p = u.Path
		}
		if !filepath.IsAbs(p) {
			if rooted := string(filepath.Separator) + p; exists(rooted) && !exists(filepath.Join(dir, p)) {
				p = rooted // Mendeley drops the leading "/"
			} else {
				p = filepath.Join(dir, p)
			}
		}
		for _, o := range out {
			if o == p {
				return
			}
		}
		out = append(out, p)
	}
	for _, f := range splitEscaped(e.Fields["file"], ';', false) {
		parts := splitEscaped(f, ':', true)
		switch {
		case len(parts) >= 3:
			add(strings.Join(parts[1:len(parts)-1], ":")) // description:path:type
		case len(parts) == 2 && !strings.ContainsAny(parts[1], "./") && strings.ContainsAny(parts[0], "./"):
			add(parts[0]) // path:type
		case len(parts) == 2:
			add(parts[1]) // description:path
		case len(parts) == 1:
			add(parts[0])
		}
	}
	var bdsk []string
	for k := range e.Fields {
		if strings.HasPrefix(k, "bdsk-file-") {
			bdsk = append(bdsk, k)
		}
	}
	sort.Slice(bdsk, func(i, j int) bool {
		return len(bdsk[i]) < len(bdsk[j]) || len(bdsk[i]) == len(bdsk[j]) && bdsk[i] < bdsk[j]
	})
	for _, k := range bdsk {
		add(bdeskPath(e.Fields[k]))
	}
	for _, k := range []string{"pdf", "local-url"} {
		add(e.Fields[k])
	}
	return out
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// splitEscaped splits s at sep, where "\sep", "\:", "\;" and "\\" are
// escapes (Zotero writes C\:\\Users\\... for Windows paths), which are
// undone when unescape is set and kept as written otherwise.
func splitEscaped(s string, sep byte, unescape bool) []string {
	if strings.TrimSpace(s) == "" {
		return nil
	}
	var out []string
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '\\' && i+1 < len(s) && (s[i+1] == sep || s[i+1] == '\\' || s[i+1] == ';' || s[i+1] == ':'):
			if !unescape {
				b.WriteByte('\\')
			}
			b.WriteByte(s[i+1])
			i++
		case s[i] == sep:
			out = append(out, b.String())
			b.Reset()
		default:
			b.WriteByte(s[i])
		}
	}
	return append(out, b.String())
}

// bdeskPath reads the relative path in a BibDesk "bdsk-file-N" value: a
// base64 binary property list (a dictionary with relativePath and
// aliasData, or an NSKeyedArchiver archive of one). The path is the
// first string object that names a file; "" when there is none.
func bdeskPath(v string) string {
	b, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(v), ""))
	if err != nil || len(b) < 40 || string(b[:8]) != "bplist00" {
		return ""
	}
	t := b[len(b)-32:]
	offSize, n, table := int(t[6]), binary.BigEndian.Uint64(t[8:16]), binary.BigEndian.Uint64(t[24:32])
	if offSize < 1 || offSize > 8 || n > uint64(len(b)) || table > uint64(len(b)) || table+n*uint64(offSize) > uint64(len(b)) {
		return ""
	}
	var best string
	for k := uint64(0); k < n; k++ {
		var off uint64
		for _, c := range b[table+k*uint64(offSize) : table+(k+1)*uint64(offSize)] {
			off = off<<8 | uint64(c)
		}
		s, ok := plistString(b, off)
		if !ok || !strings.Contains(s, ".") || strings.HasPrefix(s, "NS") || strings.HasPrefix(s, "$") {
			continue
		}
		if strings.HasSuffix(strings.ToLower(s), ".pdf") {
			return s
		}
		if best == "" {
			best = s
		}
	}
	return best
}

// plistString reads the string object at off (ASCII 0x5n or UTF-16 0x6n,
// a length of 15 or more following as an integer object).
func plistString(b []byte, off uint64) (string, bool) {
	if off >= uint64(len(b)) {
		return "", false
	}
	m := b[off]
	kind, n := m>>4, uint64(m&0x0f)
	if kind != 5 && kind != 6 {
		return "", false
	}
	p := off + 1
	if n == 0x0f {
		if p >= uint64(len(b)) || b[p]>>4 != 1 {
			return "", false
		}
		size := uint64(1) << (b[p] & 0x0f)
		if p+1+size > uint64(len(b)) || size > 8 {
			return "", false
		}
		n = 0
		for _, c := range b[p+1 : p+1+size] {
			n = n<<8 | uint64(c)
		}
		p += 1 + size
	}
	if kind == 5 {
		if p+n > uint64(len(b)) {
			return "", false
		}
		return string(b[p : p+n]), true
	}
	if p+2*n > uint64(len(b)) {
		return "", false
	}
	u := make([]uint16, n)
	for i := range u {
		u[i] = binary.BigEndian.Uint16(b[p+2*uint64(i):])
	}
	return string(utf16.Decode(u)), true
}
