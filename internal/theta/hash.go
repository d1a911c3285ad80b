package theta

import (
	"encoding/binary"

	"github.com/twmb/murmur3"
)

// DefaultSeed is the library's default update seed; Iceberg's writers use
// it, and a sketch records a 16-bit hash of it (SeedHash).
const DefaultSeed uint64 = 9001

// maxTheta is theta before any sampling: every hash below it is kept.
const maxTheta = uint64(1<<63 - 1)

// hashOf is the library's hash of a value's bytes: the first half of
// MurmurHash3_x64_128 with the seed, shifted right once (hashes are
// compared as 63-bit numbers).
func hashOf(b []byte, seed uint64) uint64 {
	h1, _ := murmur3.SeedSum128(seed, seed, b)
	return h1 >> 1
}

// SeedHash is the 16-bit hash of seed a serialized sketch carries, so that
// sketches built with different seeds are not mixed: MurmurHash3_x64_128 of
// the seed's 8 little-endian bytes with seed 0, its low 16 bits.
func SeedHash(seed uint64) uint16 {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], seed)
	h1, _ := murmur3.SeedSum128(0, 0, b[:])
	return uint16(h1)
}
