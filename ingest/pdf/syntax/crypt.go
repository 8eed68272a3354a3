package syntax

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/md5"
	"crypto/rc4"
	"crypto/sha256"
	"crypto/sha512"
	"hash"
)

// Decryption with the standard security handler and an empty password, so
// that files protected only by an owner password (permissions) read as
// pdftotext reads them: RC4 of 40 to 128 bits (V 1, 2), crypt filters
// (V 4: /V2 and /AESV2), AES-256 (V 5, R 5 and 6). The library cannot be
// trusted with these: it takes the whole 16-byte MD5 as object key where
// the spec takes n+5 bytes (every 40-bit file decrypts to garbage), knows
// no /V2 crypt filter and no AES-256.

type cryptMethod uint8

const (
	cryptNone cryptMethod = iota
	cryptRC4
	cryptAESV2
	cryptAESV3
)

type decrypter struct {
	key      []byte
	stm, str cryptMethod
	// encryptNum is the encryption dictionary's object: its strings are
	// not encrypted.
	encryptNum uint32
	metadata   bool // /EncryptMetadata
}

var padding = []byte{
	0x28, 0xBF, 0x4E, 0x5E, 0x4E, 0x75, 0x8A, 0x41, 0x64, 0x00, 0x4E, 0x56, 0xFF, 0xFA, 0x01, 0x08,
	0x2E, 0x2E, 0x00, 0xB6, 0xD0, 0x68, 0x3E, 0x80, 0x2F, 0x0C, 0xA9, 0xFE, 0x64, 0x53, 0x69, 0x7A,
}

// newDecrypter sets up decryption from the /Encrypt dictionary and the
// first /ID string. It returns ErrEncrypted when the file needs a
// password and ErrUnsupported for handlers other than the standard one.
func newDecrypter(enc pdfDict, id []byte) (*decrypter, error) {
	if f := enc.name("Filter"); f != "Standard" {
		return nil, errorf(ErrUnsupported, "encrypted with a security handler other than the standard one (%s)", printable(string(f)))
	}
	v, _ := intOf(enc["V"])
	r, _ := intOf(enc["R"])
	c := &decrypter{metadata: enc["EncryptMetadata"] != false}
	o, _ := enc["O"].(pdfString)
	u, _ := enc["U"].(pdfString)
	p, _ := intOf(enc["P"])
	n := 5
	if l, ok := intOf(enc["Length"]); ok && l >= 40 && l <= 128 && l%8 == 0 {
		n = int(l / 8)
	}
	switch v {
	case 1, 2:
		c.stm, c.str = cryptRC4, cryptRC4
		if v == 1 {
			n = 5
		}
	case 4, 5:
		cf, _ := enc["CF"].(pdfDict)
		method := func(k pdfName) (cryptMethod, int, bool) {
			name := enc.name(k)
			if name == "" || name == "Identity" {
				return cryptNone, 0, true
			}
			f, _ := cf[name].(pdfDict)
			l, _ := intOf(f["Length"])
			if l > 16 {
				l /= 8
			}
			switch f.name("CFM") {
			case "None", "":
				return cryptNone, 0, true
			case "V2":
				return cryptRC4, int(l), true
			case "AESV2":
				return cryptAESV2, 16, true
			case "AESV3":
				return cryptAESV3, 32, true
			}
			return 0, 0, false
		}
		var ok1, ok2 bool
		var l1, l2 int
		c.stm, l1, ok1 = method("StmF")
		c.str, l2, ok2 = method("StrF")
		if !ok1 || !ok2 {
			return nil, errorf(ErrUnsupported, "encrypted with an unknown crypt filter method")
		}
		if v == 4 {
			n = 16
			if l := max(l1, l2); l >= 5 && l <= 16 && (c.stm == cryptRC4 || c.str == cryptRC4) {
				n = l
			}
		}
	default:
		return nil, errorf(ErrUnsupported, "encryption version %d", v)
	}
	var key []byte
	switch {
	case r >= 2 && r <= 4 && v != 5:
		if len(o) < 32 || len(u) < 32 {
			return nil, errorf(ErrMalformed, "the encryption dictionary lacks its password hashes")
		}
		key = c.keyR4(nil, []byte(o), uint32(p), id, int(r), n)
		if !checkUserR4(key, []byte(u), id, int(r)) {
			// The owner password may be empty too: it yields the user's.
			user := ownerToUser(nil, []byte(o), int(r), n)
			key = c.keyR4(user, []byte(o), uint32(p), id, int(r), n)
			if !checkUserR4(key, []byte(u), id, int(r)) {
				return nil, ErrEncrypted
			}
		}
	case (r == 5 || r == 6) && v == 5:
		ue, _ := enc["UE"].(pdfString)
		oe, _ := enc["OE"].(pdfString)
		if len(o) < 48 || len(u) < 48 || len(ue) < 32 || len(oe) < 32 {
			return nil, errorf(ErrMalformed, "the encryption dictionary lacks its password hashes")
		}
		U, O := []byte(u)[:48], []byte(o)[:48]
		switch {
		case bytes.Equal(hashR6(nil, U[32:40], nil, int(r)), U[:32]):
			key = aesUnwrap(hashR6(nil, U[40:48], nil, int(r)), []byte(ue)[:32])
		case bytes.Equal(hashR6(nil, O[32:40], U, int(r)), O[:32]):
			key = aesUnwrap(hashR6(nil, O[40:48], U, int(r)), []byte(oe)[:32])
		default:
			return nil, ErrEncrypted
		}
	default:
		return nil, errorf(ErrUnsupported, "encryption revision %d", r)
	}
	c.key = key
	return c, nil
}

// keyR4 is Algorithm 2: the file key from a password.
func (c *decrypter) keyR4(pw, o []byte, p uint32, id []byte, r, n int) []byte {
	h := md5.New()
	h.Write(padPassword(pw))
	h.Write(o[:32])
	h.Write([]byte{byte(p), byte(p >> 8), byte(p >> 16), byte(p >> 24)})
	h.Write(id)
	if r >= 4 && !c.metadata {
		h.Write([]byte{0xff, 0xff, 0xff, 0xff})
	}
	key := h.Sum(nil)
	if r >= 3 {
		for range 50 {
			s := md5.Sum(key[:n])
			key = s[:]
		}
	}
	return key[:n]
}

func padPassword(pw []byte) []byte {
	out := make([]byte, 32)
	k := copy(out, pw)
	copy(out[k:], padding)
	return out
}

// checkUserR4 is Algorithms 4 and 5: does key decrypt /U to the known value?
func checkUserR4(key, u, id []byte, r int) bool {
	if r == 2 {
		x := make([]byte, 32)
		rc(key, padding, x)
		return bytes.Equal(x, u[:32])
	}
	h := md5.New()
	h.Write(padding)
	h.Write(id)
	x := h.Sum(nil)
	rc(key, x, x)
	k := make([]byte, len(key))
	for i := 1; i <= 19; i++ {
		for j := range key {
			k[j] = key[j] ^ byte(i)
		}
		rc(k, x, x)
	}
	return bytes.Equal(x[:16], u[:16])
}

// ownerToUser is Algorithm 7: the user password that the owner password pw
// unlocks.
func ownerToUser(pw, o []byte, r, n int) []byte {
	s := md5.Sum(padPassword(pw))
	key := s[:]
	if r >= 3 {
		for range 50 {
			s = md5.Sum(key)
			key = s[:]
		}
	}
	key = key[:n]
	user := append([]byte(nil), o[:32]...)
	if r == 2 {
		rc(key, user, user)
		return user
	}
	k := make([]byte, n)
	for i := 19; i >= 0; i-- {
		for j := range key {
			k[j] = key[j] ^ byte(i)
		}
		rc(k, user, user)
	}
	return user
}

func rc(key, src, dst []byte) {
	c, err := rc4.NewCipher(key)
	if err != nil {
		return
	}
	c.XORKeyStream(dst, src)
}

// hashR6 is Algorithm 2.B (R 6), or plain SHA-256 for R 5.
func hashR6(pw, salt, udata []byte, r int) []byte {
	if len(pw) > 127 {
		pw = pw[:127]
	}
	h := sha256.New()
	h.Write(pw)
	h.Write(salt)
	h.Write(udata)
	k := h.Sum(nil)
	if r == 5 {
		return k
	}
	for round := 0; ; round++ {
		k1 := bytes.Repeat(append(append(append([]byte(nil), pw...), k...), udata...), 64)
		block, _ := aes.NewCipher(k[:16])
		e := make([]byte, len(k1))
		cipher.NewCBCEncrypter(block, k[16:32]).CryptBlocks(e, k1)
		sum := 0
		for _, b := range e[:16] {
			sum += int(b)
		}
		var hf hash.Hash
		switch sum % 3 {
		case 0:
			hf = sha256.New()
		case 1:
			hf = sha512.New384()
		default:
			hf = sha512.New()
		}
		hf.Write(e)
		k = hf.Sum(nil)
		if round >= 63 && int(e[len(e)-1]) <= round-31 {
			break
		}
	}
	return k[:32]
}

// aesUnwrap decrypts the 32-byte file key with AES-256, zero IV, no padding.
func aesUnwrap(kek, wrapped []byte) []byte {
	block, err := aes.NewCipher(kek)
	if err != nil {
		return nil
	}
	out := make([]byte, 32)
	cipher.NewCBCDecrypter(block, make([]byte, 16)).CryptBlocks(out, wrapped[:32])
	return out
}

// objectKey is Algorithm 1: the key for one object's strings and streams.
func (c *decrypter) objectKey(m cryptMethod, num uint32, gen uint16) []byte {
	if m == cryptAESV3 {
		return c.key
	}
	h := md5.New()
	h.Write(c.key)
	h.Write([]byte{byte(num), byte(num >> 8), byte(num >> 16), byte(gen), byte(gen >> 8)})
	if m == cryptAESV2 {
		h.Write([]byte("sAlT"))
	}
	return h.Sum(nil)[:min(len(c.key)+5, 16)]
}

func (c *decrypter) decrypt(m cryptMethod, num uint32, gen uint16, data []byte) []byte {
	switch m {
	case cryptRC4:
		out := make([]byte, len(data))
		rc(c.objectKey(m, num, gen), data, out)
		return out
	case cryptAESV2, cryptAESV3:
		if len(data) < 32 || len(data)%16 != 0 {
			if len(data) < 16 {
				return nil
			}
			data = data[:len(data)/16*16] // a truncated last block is dropped
			if len(data) < 32 {
				return nil
			}
		}
		block, err := aes.NewCipher(c.objectKey(m, num, gen))
		if err != nil {
			return nil
		}
		out := make([]byte, len(data)-16)
		cipher.NewCBCDecrypter(block, data[:16]).CryptBlocks(out, data[16:])
		if p := int(out[len(out)-1]); p >= 1 && p <= 16 && bytes.Equal(out[len(out)-p:], bytes.Repeat([]byte{byte(p)}, p)) {
			out = out[:len(out)-p]
		}
		return out
	}
	return data
}

// strings decrypts the strings in v, a top-level object num gen.
func (c *decrypter) strings(v any, num uint32, gen uint16) any {
	if num == c.encryptNum || c.str == cryptNone {
		return v
	}
	if s, ok := v.(*pdfStream); ok && s.dict.name("Type") == "XRef" {
		return v // cross-reference streams are never encrypted
	}
	var walk func(v any, depth int) any
	walk = func(v any, depth int) any {
		if depth > maxObjDepth {
			return v
		}
		switch x := v.(type) {
		case pdfString:
			return pdfString(c.decrypt(c.str, num, gen, []byte(x)))
		case pdfArray:
			for i := range x {
				x[i] = walk(x[i], depth+1)
			}
		case pdfDict:
			for k, e := range x {
				x[k] = walk(e, depth+1)
			}
		case *pdfStream:
			walk(x.dict, depth+1)
		}
		return v
	}
	return walk(v, 0)
}

// stream decrypts the raw bytes of stream s, which is top-level object num gen.
func (c *decrypter) stream(s *pdfStream) []byte {
	if s.dict.name("Type") == "XRef" || (!c.metadata && s.dict.name("Type") == "Metadata") {
		return s.raw
	}
	// A stream may name the Identity crypt filter to stay in the clear.
	if f := filterList(s.dict["Filter"]); len(f) > 0 && f[0] == "Crypt" {
		return s.raw
	}
	return c.decrypt(c.stm, s.num, s.gen, s.raw)
}

// printable keeps a file-supplied name short and free of control
// characters for an error message.
func printable(s string) string {
	var b []byte
	for i := 0; i < len(s) && len(b) < 32; i++ {
		if c := s[i]; c >= 0x21 && c <= 0x7e {
			b = append(b, c)
		}
	}
	if len(b) == 0 {
		return "unnamed"
	}
	return string(b)
}
