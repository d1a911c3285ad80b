package engine

import (
	"math/bits"
	"unsafe"
)

// keyHeads maps the integer keys (one or two columns) of a join's build
// side to the head row of each key's chain: open addressing with linear
// probing over one slice of (key, head) slots, at most half full. A probe
// is a multiply, a shift and, mostly, one cache line; Go's map hashed each
// key through its generic path and probed a group (runtime.mapaccess2_*
// was 6% of the 22 TPC-H queries' CPU, probing orders, customer and, by
// two keys, partsupp).
type keyHeads[K headKey] struct {
	slots []headSlot[K]
	shift uint // 64 - log2(len(slots))
	n     int  // keys held
}

// headKey is a key keyHeads holds: one integer or a pair.
type headKey interface {
	comparable
	mix() uint64 // the key folded to 64 bits before Fibonacci hashing
}

type intKey int64

func (k intKey) mix() uint64 { return uint64(k) }

type pairKey [2]int64

// mix folds the pair so that (a, b) and (b, a) differ.
func (k pairKey) mix() uint64 { return uint64(k[0])*0xff51afd7ed558ccd ^ uint64(k[1]) }

// headSlot is one key and its chain's head row plus one (0: empty slot).
type headSlot[K headKey] struct {
	key  K
	head int32
}

// newKeyHeads is an empty table; it doubles as keys come, so its memory
// follows the distinct keys, not the build rows.
func newKeyHeads[K headKey]() *keyHeads[K] { return sizedKeyHeads[K](16) }

func sizedKeyHeads[K headKey](size int) *keyHeads[K] {
	return &keyHeads[K]{slots: make([]headSlot[K], size), shift: uint(64 - bits.TrailingZeros(uint(size)))}
}

// home is key's first slot: Fibonacci hashing, the product's top bits.
func (h *keyHeads[K]) home(key K) int {
	return int((key.mix() * 0x9E3779B97F4A7C15) >> h.shift)
}

// get is key's head row.
func (h *keyHeads[K]) get(key K) (int32, bool) {
	mask := len(h.slots) - 1
	for i := h.home(key); ; i = (i + 1) & mask {
		s := &h.slots[i]
		if s.head == 0 {
			return 0, false
		}
		if s.key == key {
			return s.head - 1, true
		}
	}
}

// put makes row key's head and returns the previous head, if any.
func (h *keyHeads[K]) put(key K, row int32) (int32, bool) {
	if 2*(h.n+1) > len(h.slots) {
		h.grow()
	}
	mask := len(h.slots) - 1
	for i := h.home(key); ; i = (i + 1) & mask {
		s := &h.slots[i]
		if s.head == 0 {
			s.key, s.head = key, row+1
			h.n++
			return 0, false
		}
		if s.key == key {
			prev := s.head - 1
			s.head = row + 1
			return prev, true
		}
	}
}

// grow doubles the slots, placing every key again.
func (h *keyHeads[K]) grow() {
	bigger := sizedKeyHeads[K](2 * len(h.slots))
	mask := len(bigger.slots) - 1
	for _, s := range h.slots {
		if s.head == 0 {
			continue
		}
		i := bigger.home(s.key)
		for bigger.slots[i].head != 0 {
			i = (i + 1) & mask
		}
		bigger.slots[i] = s
	}
	h.slots, h.shift = bigger.slots, bigger.shift
}

// bytes is the memory the table holds.
func (h *keyHeads[K]) bytes() int64 {
	var s headSlot[K]
	return int64(len(h.slots)) * int64(unsafe.Sizeof(s))
}
