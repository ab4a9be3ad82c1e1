package tmnist

import (
	"bufio"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
)

// Images is a stack of 8-bit grey images as stored in an IDX file: image i is
// Pix[i*Rows*Cols : (i+1)*Rows*Cols], row-major, 0 = background, 255 = ink.
type Images struct {
	N, Rows, Cols int
	Pix           []uint8
}

// Image returns the pixels of image i (a view, not a copy).
func (im *Images) Image(i int) []uint8 {
	d := im.Rows * im.Cols
	return im.Pix[i*d : (i+1)*d]
}

// IDX type code for unsigned bytes, the only element type MNIST uses.
const idxUbyte = 0x08

// ReadIDXImages reads an IDX file of unsigned-byte images (magic 0x00000803: three
// dimensions, count × rows × columns), raw or gzip-compressed (detected from the content,
// not the name). The error names the file and what is wrong: a bad magic number, an
// element type other than unsigned bytes, a zero dimension, a file shorter or longer than
// its header says, or a broken gzip stream. A missing file's error says how to fetch MNIST.
func ReadIDXImages(path string) (*Images, error) {
	dims, payload, err := readIDX(path, 3)
	if err != nil {
		return nil, err
	}
	return &Images{N: dims[0], Rows: dims[1], Cols: dims[2], Pix: payload}, nil
}

// ReadIDXLabels reads an IDX file of unsigned-byte labels (magic 0x00000801: one
// dimension), raw or gzip-compressed, and checks that every label is a digit 0–9. Errors
// are as for ReadIDXImages; a label out of range is reported with its index and value.
func ReadIDXLabels(path string) ([]uint8, error) {
	_, payload, err := readIDX(path, 1)
	if err != nil {
		return nil, err
	}
	for i, l := range payload {
		if l > 9 {
			return nil, fmt.Errorf("tmnist: %s: label %d is %d, want a digit 0-9", path, i, l)
		}
	}
	return payload, nil
}

// readIDX reads an IDX file with the given number of dimensions and returns the
// dimensions and the element bytes.
func readIDX(path string, wantDims int) ([]int, []byte, error) {
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil, fmt.Errorf("tmnist: MNIST file %s not found; fetch MNIST with scripts/data/mnist.sh (run from the repository root): %w", path, err)
		}
		return nil, nil, fmt.Errorf("tmnist: %w", err)
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 1<<20)
	var r io.Reader = br
	if head, err := br.Peek(2); err == nil && head[0] == 0x1f && head[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, nil, fmt.Errorf("tmnist: %s: bad gzip header: %w", path, err)
		}
		defer zr.Close()
		r = zr
	}
	dims, payload, err := parseIDX(r, wantDims)
	if err != nil {
		return nil, nil, fmt.Errorf("tmnist: %s: %w", path, err)
	}
	return dims, payload, nil
}

// parseIDX reads one IDX object from r: a 4-byte magic (0, 0, type, number of dimensions),
// one big-endian uint32 per dimension, then the elements, and nothing after them.
func parseIDX(r io.Reader, wantDims int) ([]int, []byte, error) {
	var magic [4]byte
	if _, err := io.ReadFull(r, magic[:]); err != nil {
		return nil, nil, fmt.Errorf("reading the 4-byte magic number: %w", noEOF(err))
	}
	want := [4]byte{0, 0, idxUbyte, byte(wantDims)}
	if magic[0] != 0 || magic[1] != 0 {
		return nil, nil, fmt.Errorf("bad magic number 0x%08x, want 0x%08x (is this an IDX file?)",
			binary.BigEndian.Uint32(magic[:]), binary.BigEndian.Uint32(want[:]))
	}
	if magic[2] != idxUbyte {
		return nil, nil, fmt.Errorf("element type 0x%02x, want 0x%02x (unsigned bytes)", magic[2], idxUbyte)
	}
	if int(magic[3]) != wantDims {
		return nil, nil, fmt.Errorf("magic number 0x%08x says %d dimensions, want %d (magic 0x%08x)",
			binary.BigEndian.Uint32(magic[:]), magic[3], wantDims, binary.BigEndian.Uint32(want[:]))
	}
	dims := make([]int, wantDims)
	size := 1
	for k := range dims {
		var b [4]byte
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return nil, nil, fmt.Errorf("reading dimension %d of the header: %w", k, noEOF(err))
		}
		d := binary.BigEndian.Uint32(b[:])
		if d == 0 || d > 1<<28 {
			return nil, nil, fmt.Errorf("header dimension %d is %d, want 1 to %d", k, d, 1<<28)
		}
		dims[k] = int(d)
		size *= int(d)
		if size > 1<<32 {
			return nil, nil, fmt.Errorf("header dimensions %v describe more than 2^32 elements", dims[:k+1])
		}
	}
	// Read to the end of the data, not into a buffer of the size the header claims: a
	// header that claims far more than the file holds (up to 2^32 bytes in a 16-byte file)
	// then costs memory in proportion to the file, not to the claim.
	payload, err := io.ReadAll(io.LimitReader(r, int64(size)))
	switch {
	case err != nil:
		return nil, nil, fmt.Errorf("reading %d data bytes after %d: %w", size, len(payload), err)
	case len(payload) < size:
		return nil, nil, fmt.Errorf("truncated: the header (dimensions %v) says %d data bytes, the file holds %d", dims, size, len(payload))
	}
	var extra [1]byte
	switch m, err := r.Read(extra[:]); {
	case m > 0:
		rest, _ := io.Copy(io.Discard, r)
		return nil, nil, fmt.Errorf("%d bytes after the %d data bytes the header (dimensions %v) describes", rest+1, size, dims)
	case err != nil && err != io.EOF:
		return nil, nil, fmt.Errorf("after the data: %w", err)
	}
	return dims, payload, nil
}

// noEOF turns a bare EOF (an empty file) into a message that says so.
func noEOF(err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return errors.New("file is truncated (too short for an IDX header)")
	}
	return err
}
