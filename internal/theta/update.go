package theta

import (
	"fmt"
	"slices"
)

// DefaultLgK is the log2 of the library's default nominal entries (4096),
// which Iceberg's Spark and Trino writers use.
const DefaultLgK = 12

// The library's table sizing: the table grows by resizeLg (a factor of 8)
// from a starting size until it holds 2^(lgK+1) slots, resizing when half
// full; at full size it is rebuilt, down to the k smallest hashes, when
// 15/16 full. The points at which it rebuilds decide theta, so they are
// the library's exactly.
const (
	minLgK   = 5
	maxLgK   = 26
	resizeLg = 3
)

// Sketch is an update sketch: it takes values and keeps the hashes below
// theta, at most about 2^(lgK+1) of them.
type Sketch struct {
	lgK   uint8
	lgCur uint8 // log2 of the table's size
	seed  uint64
	theta uint64
	empty bool
	n     int      // hashes held
	slots []uint64 // open addressing, 0 is a free slot
}

// New is an empty sketch of 2^lgK nominal entries with the default seed.
func New(lgK int) (*Sketch, error) {
	if lgK < minLgK || lgK > maxLgK {
		return nil, fmt.Errorf("theta sketch lgK must be between %d and %d, not %d", minLgK, maxLgK, lgK)
	}
	s := &Sketch{lgK: uint8(lgK), seed: DefaultSeed, theta: maxTheta, empty: true}
	s.lgCur = startingLg(s.lgK + 1)
	s.slots = make([]uint64, 1<<s.lgCur)
	return s, nil
}

// startingLg is the library's first table size for a target of 2^target
// slots: the smallest size from which growing by resizeLg lands on it.
func startingLg(target uint8) uint8 {
	if target <= minLgK {
		return minLgK
	}
	return (target-minLgK)%resizeLg + minLgK
}

// Update adds a value given as its bytes. An empty value is passed over,
// as the library's update of an empty array, string or buffer is.
func (s *Sketch) Update(b []byte) {
	if len(b) == 0 {
		return
	}
	s.empty = false
	h := hashOf(b, s.seed)
	if h == 0 || h >= s.theta {
		return
	}
	if !s.insert(h) {
		return
	}
	if s.n > s.capacity() {
		if s.lgCur <= s.lgK {
			s.resize()
		} else {
			s.rebuild()
		}
	}
}

// insert adds h unless held; it reports whether it was new.
func (s *Sketch) insert(h uint64) bool {
	mask := uint64(len(s.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		switch s.slots[i] {
		case 0:
			s.slots[i] = h
			s.n++
			return true
		case h:
			return false
		}
	}
}

// capacity is how many hashes the table holds before it grows or is
// rebuilt.
func (s *Sketch) capacity() int {
	size := 1 << s.lgCur
	if s.lgCur <= s.lgK {
		return size / 2
	}
	return size * 15 / 16
}

func (s *Sketch) resize() {
	old := s.held()
	s.lgCur = min(s.lgCur+resizeLg, s.lgK+1)
	s.refill(old)
}

// rebuild keeps the k smallest hashes: the (k+1)-th becomes theta.
func (s *Sketch) rebuild() {
	hs := s.held()
	slices.Sort(hs)
	k := 1 << s.lgK
	s.theta = hs[k]
	s.refill(hs[:k])
}

func (s *Sketch) refill(hs []uint64) {
	s.slots = make([]uint64, 1<<s.lgCur)
	s.n = 0
	for _, h := range hs {
		s.insert(h)
	}
}

// held are the hashes in the table, in no order.
func (s *Sketch) held() []uint64 {
	out := make([]uint64, 0, s.n)
	for _, h := range s.slots {
		if h != 0 {
			out = append(out, h)
		}
	}
	return out
}

// Estimate is the estimated number of distinct values.
func (s *Sketch) Estimate() float64 { return s.Compact().Estimate() }

// Compact is the sketch's compact, ordered form, as the library's
// compact() is: every hash held, not trimmed to k.
func (s *Sketch) Compact() *Compact {
	hs := s.held()
	slices.Sort(hs)
	return &Compact{Theta: s.theta, Hashes: hs, Empty: s.empty && s.theta == maxTheta, SeedHash: SeedHash(s.seed)}
}
