package leview

import (
	"encoding/binary"
	"math"
	"slices"
	"testing"
)

func TestRoundTrip(t *testing.T) {
	f := []float32{1.5, -2, float32(math.Inf(1)), 0}
	b := Bytes(f)
	if got := math.Float32frombits(binary.LittleEndian.Uint32(b[4:])); got != -2 {
		t.Errorf("second float decodes as %v", got)
	}
	if got := Of[float32](b, 4); !slices.Equal(got, f) {
		t.Errorf("Of(Bytes(%v)) = %v", f, got)
	}
	u := []uint32{1, 1 << 31, 7}
	// Misaligned bytes are decoded, not viewed.
	buf := append([]byte{0}, Bytes(u)...)
	if got := Of[uint32](buf[1:], 3); !slices.Equal(got, u) {
		t.Errorf("misaligned Of = %v, want %v", got, u)
	}
	if got := Of[uint16]([]byte{1, 2, 3, 4}, 2); !slices.Equal(got, []uint16{0x0201, 0x0403}) {
		t.Errorf("Of[uint16] = %#v", got)
	}
	if got := Of[int8]([]byte{0xff, 1}, 2); !slices.Equal(got, []int8{-1, 1}) {
		t.Errorf("Of[int8] = %v", got)
	}
	if Of[uint32](nil, 0) != nil || Bytes([]uint16(nil)) != nil {
		t.Error("empty input gave a non-nil slice")
	}
}
