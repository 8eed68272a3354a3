package syntax

import (
	"bufio"
	"bytes"
	"compress/flate"
	"compress/zlib"
	"errors"
	"io"
	"slices"
	"sync"
)

// Stream filters: FlateDecode (with or without a zlib header, PNG and TIFF
// predictors), LZWDecode (most of arXiv's 1990s papers), ASCII85Decode,
// ASCIIHexDecode and RunLengthDecode. Every decoder stops at
// the budget's per-stream and per-document limits, and keeps what it
// decoded before a corruption (as pdftotext does) with the error.

var (
	errImageFilter   = errors.New("image codec")
	errUnknownFilter = errors.New("unknown filter")
)

// filterNames maps the abbreviations (legal in inline images, and written
// by some producers in streams too) to the names.
var filterNames = map[pdfName]pdfName{
	"AHx": "ASCIIHexDecode", "A85": "ASCII85Decode", "LZW": "LZWDecode",
	"Fl": "FlateDecode", "RL": "RunLengthDecode", "CCF": "CCITTFaxDecode", "DCT": "DCTDecode",
}

// decodeFilter applies one filter with its parameters to data. limit caps
// the output.
func decodeFilter(name pdfName, parms pdfDict, data []byte, limit int) ([]byte, error) {
	if full, ok := filterNames[name]; ok {
		name = full
	}
	var out []byte
	var err error
	switch name {
	case "FlateDecode":
		out, err = inflate(data, limit)
	case "LZWDecode":
		early := int64(1)
		if v, ok := intOf(parms["EarlyChange"]); ok {
			early = v
		}
		out, err = unLZW(data, early != 0, limit)
	case "ASCIIHexDecode":
		out = unHex(data)
	case "ASCII85Decode":
		out, err = unA85(data)
	case "RunLengthDecode":
		out, err = unRunLength(data, limit)
	case "Crypt":
		return data, nil // the Identity crypt filter; others are handled by decryption
	case "DCTDecode", "JPXDecode", "CCITTFaxDecode", "JBIG2Decode":
		return nil, errImageFilter
	default:
		return nil, errUnknownFilter
	}
	if len(out) > limit {
		out, err = out[:limit], ErrStreamTooLarge
	}
	if name == "FlateDecode" || name == "LZWDecode" {
		var perr error
		out, perr = unpredict(out, parms)
		if err == nil {
			err = perr
		}
	}
	return out, err
}

// ErrStreamTooLarge says a stream's data went on past the limit it was
// read to: what is returned is its first part.
var ErrStreamTooLarge = errors.New("stream too large")

// readCapped reads r to the end or to limit bytes, keeping what was read
// before an error. hint is the expected size.
func readCapped(r io.Reader, limit, hint int) ([]byte, error) {
	// The buffer doubles up to limit+1 and no further: a stream that goes
	// on past the limit costs the limit once (and half of it while the
	// last copy is made), not the next power of two.
	buf := make([]byte, 0, max(512, min(hint, limit+1, 16<<20)))
	for {
		if len(buf) == cap(buf) {
			if len(buf) > limit {
				return buf[:limit], ErrStreamTooLarge
			}
			grown := make([]byte, len(buf), min(2*cap(buf), limit+1))
			copy(grown, buf)
			buf = grown
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			if len(buf) > limit {
				return buf[:limit], ErrStreamTooLarge
			}
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}

// inflateChain inflates data n times over (FlateDecode filters one after
// the other) as one pipe, keeping at most limit bytes of the last.
func inflateChain(data []byte, n, limit int) ([]byte, error) {
	if n == 1 {
		return inflate(data, limit)
	}
	var r io.Reader = bytes.NewReader(data)
	for k := 0; k < n; k++ {
		r = inflater(r)
	}
	out, err := readCapped(r, limit, 4*len(data))
	if errors.Is(err, zlib.ErrChecksum) {
		err = nil
	}
	return out, err
}

// inflater reads r through zlib when it starts with a sound zlib header,
// else as raw deflate data (producers write both).
func inflater(r io.Reader) io.Reader {
	br := bufio.NewReader(r)
	if h, err := br.Peek(2); err == nil && h[0]&0x0f == 8 && h[0]>>4 <= 7 && (int(h[0])<<8|int(h[1]))%31 == 0 {
		if zr, err := zlib.NewReader(br); err == nil {
			return zr
		}
	}
	return flate.NewReader(br)
}

// zlibReaders are reused: a reader holds a 32 KB window, and a document
// has thousands of streams.
var zlibReaders sync.Pool

// inflate decodes zlib data, or raw deflate data without the zlib header,
// which some producers write.
func inflate(data []byte, limit int) ([]byte, error) {
	var zr io.ReadCloser
	var err error
	if r, ok := zlibReaders.Get().(io.ReadCloser); ok {
		zr, err = r, r.(zlib.Resetter).Reset(bytes.NewReader(data), nil)
	} else {
		zr, err = zlib.NewReader(bytes.NewReader(data))
	}
	if err != nil {
		if zr != nil {
			zlibReaders.Put(zr)
		}
		return readCapped(flate.NewReader(bytes.NewReader(data)), limit, 4*len(data))
	}
	defer zlibReaders.Put(zr)
	out, err := readCapped(zr, limit, 4*len(data))
	if errors.Is(err, zlib.ErrChecksum) {
		err = nil // a wrong Adler-32 after complete data: the data is fine
	}
	return out, err
}

// unLZW decodes LZW as in PDF and TIFF: MSB-first codes of 9 to 12 bits,
// 256 clears the table, 257 ends; with early change (the default) the code
// width grows one code before the table needs it.
func unLZW(data []byte, early bool, limit int) ([]byte, error) {
	const clear, eod = 256, 257
	type entry struct {
		prefix int32 // previous code, -1 for roots
		last   byte
		first  byte
		length int32
	}
	table := make([]entry, 4096)
	for i := range 256 {
		table[i] = entry{prefix: -1, last: byte(i), first: byte(i), length: 1}
	}
	next, width := 258, 9
	var out []byte
	var acc uint32
	nbits := 0
	prev := -1
	pos := 0
	adj := 0
	if early {
		adj = 1
	}
	emit := func(code int) {
		n := int(table[code].length)
		start := len(out)
		out = slices.Grow(out, n)[:start+n]
		for c, i := code, start+n-1; i >= start; i-- {
			out[i] = table[c].last
			c = int(table[c].prefix)
		}
	}
	for {
		for nbits < width {
			if pos >= len(data) {
				return out, nil // no EOD: the data ends anyway
			}
			acc = acc<<8 | uint32(data[pos])
			pos++
			nbits += 8
		}
		code := int(acc>>(nbits-width)) & (1<<width - 1)
		nbits -= width
		switch {
		case code == clear:
			next, width, prev = 258, 9, -1
			continue
		case code == eod:
			return out, nil
		case prev < 0:
			if code > 255 {
				return out, errors.New("LZW: bad first code")
			}
			emit(code)
		case code < next:
			emit(code)
			if next < 4096 {
				table[next] = entry{prefix: int32(prev), last: table[code].first, first: table[prev].first, length: table[prev].length + 1}
				next++
			}
		case code == next && next < 4096:
			table[next] = entry{prefix: int32(prev), last: table[prev].first, first: table[prev].first, length: table[prev].length + 1}
			next++
			emit(code)
		default:
			return out, errors.New("LZW: bad code")
		}
		prev = code
		if len(out) > limit {
			return out[:limit], ErrStreamTooLarge
		}
		if next+adj >= 1<<width && width < 12 {
			width++
		}
	}
}

// unHex decodes ASCIIHex as the content lexer reads a hex string: white
// space and stray characters are skipped, '>' ends, an odd digit is
// padded with 0.
func unHex(data []byte) []byte {
	l := lexer{b: data, i: -1} // hex() steps over the '<' it expects at i
	return []byte(l.hex())
}

// unA85 decodes ASCII base-85: 'z' is four zeros, white space is ignored,
// "~>" ends, a final partial group of n characters gives n-1 bytes.
func unA85(data []byte) ([]byte, error) {
	data = bytes.TrimPrefix(bytes.TrimLeft(data, " \t\r\n\f\x00"), []byte("<~"))
	out := make([]byte, 0, len(data)*4/5+4)
	var group [5]byte
	n := 0
	flush := func(k int) {
		for i := k; i < 5; i++ {
			group[i] = 'u'
		}
		var v uint32
		for _, c := range group {
			v = v*85 + uint32(c-'!')
		}
		b := [4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}
		out = append(out, b[:k-1]...)
	}
	for _, c := range data {
		switch {
		case c == '~':
			if n > 1 {
				flush(n)
			}
			return out, nil
		case isSpace(c):
		case c == 'z' && n == 0:
			out = append(out, 0, 0, 0, 0)
		case c >= '!' && c <= 'u':
			group[n] = c
			n++
			if n == 5 {
				flush(5)
				n = 0
			}
		default:
			return out, errors.New("ASCII85: bad character")
		}
	}
	if n > 1 {
		flush(n)
	}
	return out, nil
}

func unRunLength(data []byte, limit int) ([]byte, error) {
	var out []byte
	for i := 0; i < len(data); {
		l := int(data[i])
		i++
		switch {
		case l < 128:
			end := min(i+l+1, len(data))
			out = append(out, data[i:end]...)
			i = end
		case l == 128:
			return out, nil
		default:
			if i >= len(data) {
				return out, nil
			}
			out = append(out, bytes.Repeat(data[i:i+1], 257-l)...)
			i++
		}
		if len(out) > limit {
			return out[:limit], ErrStreamTooLarge
		}
	}
	return out, nil
}

// unpredict undoes a TIFF (2) or PNG (10-15) predictor; 1 or none is the
// identity.
func unpredict(data []byte, parms pdfDict) ([]byte, error) {
	pred, _ := intOf(parms["Predictor"])
	if pred <= 1 {
		return data, nil
	}
	param := func(k pdfName, def, lo, hi int64) int {
		v, ok := intOf(parms[k])
		if !ok || v < lo || v > hi {
			return int(def)
		}
		return int(v)
	}
	colors := param("Colors", 1, 1, 32)
	bpc := param("BitsPerComponent", 8, 1, 16)
	columns := param("Columns", 1, 1, 1<<20)
	bpp := max(1, colors*bpc/8)
	rowLen := (columns*colors*bpc + 7) / 8
	if pred == 2 {
		if bpc != 8 {
			return data, nil // rare outside images: left as is
		}
		for r := 0; r+rowLen <= len(data); r += rowLen {
			row := data[r : r+rowLen]
			for i := bpp; i < len(row); i++ {
				row[i] += row[i-bpp]
			}
		}
		return data, nil
	}
	if pred < 10 {
		return data, errors.New("unknown predictor")
	}
	out := make([]byte, 0, len(data))
	prior := make([]byte, rowLen)
	for r := 0; r < len(data); r += rowLen + 1 {
		typ := data[r]
		end := min(r+1+rowLen, len(data))
		row := make([]byte, rowLen)
		copy(row, data[r+1:end])
		for i := range row {
			var left, up, ul byte
			if i >= bpp {
				left, ul = row[i-bpp], prior[i-bpp]
			}
			up = prior[i]
			switch typ {
			case 1:
				row[i] += left
			case 2:
				row[i] += up
			case 3:
				row[i] += byte((int(left) + int(up)) / 2)
			case 4:
				row[i] += paeth(left, up, ul)
			}
		}
		out = append(out, row[:end-r-1]...)
		prior = row
	}
	return out, nil
}

func paeth(a, b, c byte) byte {
	p := int(a) + int(b) - int(c)
	pa, pb, pc := abs(p-int(a)), abs(p-int(b)), abs(p-int(c))
	switch {
	case pa <= pb && pa <= pc:
		return a
	case pb <= pc:
		return b
	}
	return c
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
