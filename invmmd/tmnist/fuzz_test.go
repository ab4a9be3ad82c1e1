package tmnist

import (
	"bytes"
	"encoding/binary"
	"runtime"
	"strings"
	"testing"
)

// TestIDXHeaderClaimsMoreThanTheFile checks that a 20-byte file whose header claims 2^32
// bytes of images is refused as truncated without allocating what the header claims
// (parseIDX used to allocate the whole claim before reading; the fuzz target below would
// make such a file every few seconds).
func TestIDXHeaderClaimsMoreThanTheFile(t *testing.T) {
	in := idxBytes([]int{1 << 16, 1 << 8, 1 << 8}, []byte{1, 2, 3, 4})
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, _, err := parseIDX(bytes.NewReader(in), 3)
	runtime.ReadMemStats(&after)
	if err == nil || !strings.Contains(err.Error(), "truncated") || !strings.Contains(err.Error(), "holds 4") {
		t.Fatalf("error %v, want truncated, the file holds 4 data bytes", err)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 8<<20 {
		t.Errorf("allocated %d bytes to read 4 data bytes, want at most %d", grew, 8<<20)
	}
}

// TestIDXPayloadGrows reads an image file of several megabytes, through the buffer's
// growth, and checks every byte.
func TestIDXPayloadGrows(t *testing.T) {
	data := seq(3*(4<<20) + 17)
	dims, payload, err := parseIDX(bytes.NewReader(idxBytes([]int{len(data)}, data)), 1)
	if err != nil || dims[0] != len(data) || !bytes.Equal(payload, data) {
		t.Fatalf("dims %v, %d bytes, err %v; want %d bytes back", dims, len(payload), err, len(data))
	}
}

// FuzzParseIDX feeds arbitrary bytes to the IDX parser as images (3 dimensions) and as
// labels (1 dimension). It must never panic, and what it accepts must be exactly a header
// of that many dimensions followed by as many bytes as their product.
func FuzzParseIDX(f *testing.F) {
	for _, s := range [][]byte{
		idxBytes([]int{3, 2, 4}, seq(24)),
		idxBytes([]int{5}, []byte{0, 1, 9, 3, 7}),
		idxBytes([]int{3, 2, 4}, seq(23)),             // truncated
		idxBytes([]int{3, 2, 4}, seq(25)),             // trailing byte
		idxBytes([]int{0, 2, 4}, nil),                 // zero dimension
		idxBytes([]int{1 << 16, 1 << 8, 1 << 8}, nil), // claims 2^32 bytes
		{0, 0, 0x09, 3},                               // element type
		{0, 0, idxUbyte},                              // short magic
		{},
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, nd := range []int{1, 3} {
			dims, payload, err := parseIDX(bytes.NewReader(data), nd)
			if err != nil {
				continue
			}
			if len(dims) != nd {
				t.Fatalf("%d dimensions, want %d", len(dims), nd)
			}
			size := 1
			for k, d := range dims {
				if d < 1 || uint32(d) != binary.BigEndian.Uint32(data[4+4*k:]) {
					t.Fatalf("dimension %d is %d, the header says %d", k, d, binary.BigEndian.Uint32(data[4+4*k:]))
				}
				size *= d
			}
			if len(payload) != size || len(data) != 4+4*nd+size || !bytes.Equal(payload, data[4+4*nd:]) {
				t.Fatalf("accepted %d bytes with dimensions %v and %d data bytes", len(data), dims, len(payload))
			}
		}
	})
}
