package tmnist

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// idxBytes encodes an unsigned-byte IDX object with the given dimensions.
func idxBytes(dims []int, data []byte) []byte {
	var b bytes.Buffer
	b.Write([]byte{0, 0, idxUbyte, byte(len(dims))})
	for _, d := range dims {
		var h [4]byte
		binary.BigEndian.PutUint32(h[:], uint32(d))
		b.Write(h[:])
	}
	b.Write(data)
	return b.Bytes()
}

func gzipBytes(t *testing.T, b []byte) []byte {
	t.Helper()
	var out bytes.Buffer
	w := gzip.NewWriter(&out)
	if _, err := w.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

func writeFile(t *testing.T, dir, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// seq returns n bytes 0, 1, 2, … (mod 251).
func seq(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i % 251)
	}
	return b
}

func TestReadIDXImagesValid(t *testing.T) {
	dir := t.TempDir()
	raw := idxBytes([]int{3, 2, 4}, seq(24))
	for _, c := range []struct {
		name string
		file []byte
	}{
		{"raw", raw},
		{"gzip", gzipBytes(t, raw)},
	} {
		t.Run(c.name, func(t *testing.T) {
			im, err := ReadIDXImages(writeFile(t, dir, c.name, c.file))
			if err != nil {
				t.Fatal(err)
			}
			if im.N != 3 || im.Rows != 2 || im.Cols != 4 {
				t.Fatalf("dimensions %d×%d×%d, want 3×2×4", im.N, im.Rows, im.Cols)
			}
			if got := im.Image(2); !bytes.Equal(got, seq(24)[16:24]) {
				t.Fatalf("image 2 = %v, want %v", got, seq(24)[16:24])
			}
		})
	}
}

func TestReadIDXLabelsValid(t *testing.T) {
	dir := t.TempDir()
	want := []byte{0, 1, 9, 3}
	for _, c := range []struct {
		name string
		file []byte
	}{
		{"raw", idxBytes([]int{4}, want)},
		{"gzip", gzipBytes(t, idxBytes([]int{4}, want))},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := ReadIDXLabels(writeFile(t, dir, c.name, c.file))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("labels %v, want %v", got, want)
			}
		})
	}
}

// TestReadIDXMalformed checks that each kind of broken file gives an error that names the
// file and the problem.
func TestReadIDXMalformed(t *testing.T) {
	dir := t.TempDir()
	good := idxBytes([]int{2, 3, 3}, seq(18))
	badMagic := append([]byte(nil), good...)
	badMagic[0], badMagic[1] = 0x12, 0x34
	floatType := append([]byte(nil), good...)
	floatType[2] = 0x0D
	zeroDim := idxBytes([]int{2, 0, 3}, nil)
	corruptGzip := gzipBytes(t, good)
	corruptGzip[len(corruptGzip)-6] ^= 0xff // flips a byte of the CRC-32 trailer
	cases := []struct {
		name   string
		file   []byte
		labels bool
		want   string
	}{
		{"empty", nil, false, "too short for an IDX header"},
		{"short header", good[:6], false, "too short for an IDX header"},
		{"bad magic", badMagic, false, "bad magic number 0x12340803"},
		{"element type", floatType, false, "element type 0x0d"},
		{"labels file read as images", idxBytes([]int{4}, []byte{1, 2, 3, 4}), false, "says 1 dimensions, want 3"},
		{"images file read as labels", good, true, "says 3 dimensions, want 1"},
		{"zero dimension", zeroDim, false, "header dimension 1 is 0"},
		{"truncated data", good[:len(good)-5], false, "truncated: the header (dimensions [2 3 3]) says 18 data bytes, the file holds 13"},
		{"trailing bytes", append(append([]byte(nil), good...), 7, 7, 7), false, "3 bytes after the 18 data bytes"},
		{"bad gzip header", append([]byte{0x1f, 0x8b, 0x00}, good...), false, "bad gzip header"},
		{"truncated gzip", gzipBytes(t, good)[:20], false, "truncated"},
		{"corrupt gzip", corruptGzip, false, "checksum"},
		{"label out of range", idxBytes([]int{3}, []byte{1, 12, 0}), true, "label 1 is 12, want a digit 0-9"},
	}
	for k, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := writeFile(t, dir, "f"+string(rune('a'+k)), c.file)
			var err error
			if c.labels {
				_, err = ReadIDXLabels(p)
			} else {
				_, err = ReadIDXImages(p)
			}
			if err == nil {
				t.Fatalf("no error, want one containing %q", c.want)
			}
			if !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), p) {
				t.Fatalf("error %q, want it to name %s and contain %q", err, p, c.want)
			}
		})
	}
}

func TestReadIDXMissingSaysHowToFetch(t *testing.T) {
	p := filepath.Join(t.TempDir(), "train-images-idx3-ubyte")
	_, err := ReadIDXImages(p)
	if err == nil || !strings.Contains(err.Error(), "scripts/data/mnist.sh") || !strings.Contains(err.Error(), p) {
		t.Fatalf("error %v, want it to name %s and scripts/data/mnist.sh", err, p)
	}
}
