// Package leview reads and writes slices of fixed-size numbers as
// little-endian bytes, without copying where the machine allows it: the
// search index files are mapped and used in place.
package leview

import (
	"encoding/binary"
	"unsafe"
)

// Number is what the views hold.
type Number interface {
	~int8 | ~uint16 | ~uint32 | ~uint64 | ~float32
}

// littleEndian reports the machine's byte order.
var littleEndian = func() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}()

// Of returns the first n numbers encoded in b: a view of b on a
// little-endian machine when b is aligned for T (b must then outlive the
// result and not change), a decoded copy otherwise. b must hold them.
func Of[T Number](b []byte, n int) []T {
	if n == 0 {
		return nil
	}
	size := int(unsafe.Sizeof(T(0)))
	b = b[:n*size]
	if littleEndian && uintptr(unsafe.Pointer(&b[0]))%uintptr(size) == 0 {
		return unsafe.Slice((*T)(unsafe.Pointer(&b[0])), n)
	}
	out := make([]T, n)
	if _, err := binary.Decode(b, binary.LittleEndian, out); err != nil {
		panic(err) // unreachable: b holds exactly n numbers
	}
	return out
}

// Bytes returns s little-endian encoded: a view of s on a little-endian
// machine, a copy otherwise.
func Bytes[T Number](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	if littleEndian {
		return unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), len(s)*int(unsafe.Sizeof(s[0])))
	}
	b, err := binary.Append(nil, binary.LittleEndian, s)
	if err != nil {
		panic(err) // unreachable: fixed-size numbers always encode
	}
	return b
}
