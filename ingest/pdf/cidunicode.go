package pdf

import (
	"bytes"
	"compress/flate"
	_ "embed"
	"encoding/binary"
	"io"
	"sync"
)

// cidunicode.bin is written by gen_cidunicode.go (see there for the command
// and the format) from Adobe's CMap resources, which carry this notice:
//
// Copyright 1990-2023 Adobe. All rights reserved.
//
// Redistribution and use in source and binary forms, with or without
// modification, are permitted provided that the following conditions are
// met: Redistributions of source code must retain the above copyright
// notice, this list of conditions and the following disclaimer.
// Redistributions in binary form must reproduce the above copyright notice,
// this list of conditions and the following disclaimer in the documentation
// and/or other materials provided with the distribution. Neither the name of
// Adobe nor the names of its contributors may be used to endorse or promote
// products derived from this software without specific prior written
// permission. THIS SOFTWARE IS PROVIDED BY THE COPYRIGHT HOLDERS AND
// CONTRIBUTORS "AS IS" AND ANY EXPRESS OR IMPLIED WARRANTIES, INCLUDING,
// BUT NOT LIMITED TO, THE IMPLIED WARRANTIES OF MERCHANTABILITY AND FITNESS
// FOR A PARTICULAR PURPOSE ARE DISCLAIMED. IN NO EVENT SHALL THE COPYRIGHT
// HOLDER OR CONTRIBUTORS BE LIABLE FOR ANY DIRECT, INDIRECT, INCIDENTAL,
// SPECIAL, EXEMPLARY, OR CONSEQUENTIAL DAMAGES (INCLUDING, BUT NOT LIMITED
// TO, PROCUREMENT OF SUBSTITUTE GOODS OR SERVICES; LOSS OF USE, DATA, OR
// PROFITS; OR BUSINESS INTERRUPTION) HOWEVER CAUSED AND ON ANY THEORY OF
// LIABILITY, WHETHER IN CONTRACT, STRICT LIABILITY, OR TORT (INCLUDING
// NEGLIGENCE OR OTHERWISE) ARISING IN ANY WAY OUT OF THE USE OF THIS
// SOFTWARE, EVEN IF ADVISED OF THE POSSIBILITY OF SUCH DAMAGE.
//
//go:embed cidunicode.bin
var cidUnicodeData []byte

var cidUnicode struct {
	once       sync.Once
	byOrdering map[string][]string
}

// collectionText returns the text of each CID (indexed by CID, "" where the
// collection gives none) of Adobe's character collection Adobe-ordering
// (Japan1, GB1, CNS1, Korea1, KR), or nil for any other. The tables are
// decoded once per process; callers must not modify the slice.
func collectionText(registry, ordering string) []string {
	if registry != "Adobe" {
		return nil
	}
	cidUnicode.once.Do(func() {
		cidUnicode.byOrdering = decodeCIDUnicode(cidUnicodeData)
	})
	return cidUnicode.byOrdering[ordering]
}

// decodeCIDUnicode reads the embedded tables; a damaged table (it is built
// into the binary, so this is a build error) reads as the collections
// decoded before the damage.
func decodeCIDUnicode(z []byte) map[string][]string {
	out := map[string][]string{}
	data, err := io.ReadAll(flate.NewReader(bytes.NewReader(z)))
	if err != nil {
		return out
	}
	r := bytes.NewReader(data)
	for r.Len() > 0 {
		n, err := binary.ReadUvarint(r)
		if err != nil || n > 64 {
			return out
		}
		name := make([]byte, n)
		if _, err := io.ReadFull(r, name); err != nil {
			return out
		}
		count, err := binary.ReadUvarint(r)
		if err != nil || count > 1<<16 {
			return out
		}
		var texts []string
		cid, prev := -1, rune(0)
		var rs []rune
		for i := uint64(0); i < count; i++ {
			d, err1 := binary.ReadUvarint(r)
			k, err2 := binary.ReadUvarint(r)
			if err1 != nil || err2 != nil || d == 0 || k > 8 || cid+int(d) >= 1<<16 {
				return out
			}
			cid += int(d)
			rs = rs[:0]
			for j := uint64(0); j < k; j++ {
				delta, err := binary.ReadVarint(r)
				if err != nil {
					return out
				}
				prev += rune(delta)
				rs = append(rs, prev)
			}
			for len(texts) <= cid {
				texts = append(texts, "")
			}
			texts[cid] = string(rs)
		}
		out[string(name)] = texts
	}
	return out
}
