package theta

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// Compact is a compact, ordered Theta sketch: the hashes below theta in
// ascending order.
type Compact struct {
	Theta    uint64
	Hashes   []uint64
	Empty    bool
	SeedHash uint16
}

// Estimate is the estimated number of distinct values: the hashes kept
// divided by the fraction of the hash space below theta.
func (c *Compact) Estimate() float64 {
	if c.Theta == maxTheta {
		return float64(len(c.Hashes))
	}
	return float64(len(c.Hashes)) / (float64(c.Theta) / float64(maxTheta))
}

// The serialized form's fixed values (DataSketches' "preamble").
const (
	serialVersion = 3
	familyCompact = 3

	flagReadOnly   = 1 << 1
	flagEmpty      = 1 << 2
	flagCompact    = 1 << 3
	flagOrdered    = 1 << 4
	flagSingleItem = 1 << 5
)

// MarshalBinary is the library's serialization of a compact, ordered sketch
// (serial version 3, little-endian): one 8-byte preamble long for an empty
// sketch or a single hash without sampling, two (with the count) for an
// exact sketch, three (with theta) once it estimates; then the hashes. An
// empty sketch's seed hash is written as 0, as the Java library writes it.
func (c *Compact) MarshalBinary() ([]byte, error) {
	flags := byte(flagReadOnly | flagCompact | flagOrdered)
	preLongs := 1
	switch {
	case c.Empty:
		flags |= flagEmpty
	case c.Theta < maxTheta:
		preLongs = 3
	case len(c.Hashes) == 1:
		flags |= flagSingleItem
	default:
		preLongs = 2
	}
	out := make([]byte, 8*preLongs, 8*(preLongs+len(c.Hashes)))
	out[0] = byte(preLongs)
	out[1] = serialVersion
	out[2] = familyCompact
	out[5] = flags
	if !c.Empty {
		binary.LittleEndian.PutUint16(out[6:], c.SeedHash)
	}
	if preLongs >= 2 {
		binary.LittleEndian.PutUint32(out[8:], uint32(len(c.Hashes)))
	}
	if preLongs == 3 {
		binary.LittleEndian.PutUint64(out[16:], c.Theta)
	}
	if c.Empty {
		return out, nil
	}
	for _, h := range c.Hashes {
		out = binary.LittleEndian.AppendUint64(out, h)
	}
	return out, nil
}

// ErrFormat is a serialized sketch this package cannot read.
var ErrFormat = errors.New("not a compact theta sketch this reader knows")

// Parse reads a serialized compact sketch (serial version 3) built with
// seed.
func Parse(b []byte, seed uint64) (*Compact, error) {
	if len(b) < 8 {
		return nil, fmt.Errorf("%w: %d bytes", ErrFormat, len(b))
	}
	preLongs, ver, family, flags := int(b[0]&0x3f), b[1], b[2], b[5]
	if ver != serialVersion {
		return nil, fmt.Errorf("%w: serial version %d", ErrFormat, ver)
	}
	if family != familyCompact || flags&flagCompact == 0 {
		return nil, fmt.Errorf("%w: family %d, flags %#x", ErrFormat, family, flags)
	}
	c := &Compact{Theta: maxTheta, SeedHash: binary.LittleEndian.Uint16(b[6:])}
	if flags&flagEmpty != 0 {
		c.Empty = true
		return c, nil
	}
	if c.SeedHash != SeedHash(seed) {
		return nil, fmt.Errorf("%w: seed hash %#x, want %#x", ErrFormat, c.SeedHash, SeedHash(seed))
	}
	n := 1
	switch {
	case preLongs == 1 && flags&flagSingleItem != 0:
	case preLongs == 2 || preLongs == 3:
		if len(b) < 8*preLongs {
			return nil, fmt.Errorf("%w: truncated preamble", ErrFormat)
		}
		n = int(binary.LittleEndian.Uint32(b[8:]))
		if preLongs == 3 {
			c.Theta = binary.LittleEndian.Uint64(b[16:])
		}
	default:
		return nil, fmt.Errorf("%w: %d preamble longs, flags %#x", ErrFormat, preLongs, flags)
	}
	body := b[8*preLongs:]
	if len(body) != 8*n {
		return nil, fmt.Errorf("%w: %d hashes announced, %d bytes follow", ErrFormat, n, len(body))
	}
	c.Hashes = make([]uint64, n)
	for i := range c.Hashes {
		c.Hashes[i] = binary.LittleEndian.Uint64(body[8*i:])
	}
	return c, nil
}
