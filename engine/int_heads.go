package engine

import "math/bits"

// intHeads maps the integer keys of a join's build side to the head row
// of each key's chain: open addressing with linear probing over one slice
// of (key, head) slots, at most half full. A probe is a multiply, a shift
// and, mostly, one cache line; Go's map hashed each key through its
// generic path and probed a group (runtime.mapaccess2_fast64 was 6% of the
// 22 TPC-H queries' CPU, probing orders, partsupp and customer by key).
type intHeads struct {
	slots []intSlot
	shift uint // 64 - log2(len(slots))
	n     int  // keys held
}

// intSlot is one key and its chain's head row plus one (0: empty slot).
type intSlot struct {
	key  int64
	head int32
}

// intSlotBytes is the memory of one slot.
const intSlotBytes = 16

// newIntHeads is an empty table; it doubles as keys come, so its memory
// follows the distinct keys, not the build rows.
func newIntHeads() *intHeads { return sizedIntHeads(16) }

func sizedIntHeads(size int) *intHeads {
	return &intHeads{slots: make([]intSlot, size), shift: uint(64 - bits.TrailingZeros(uint(size)))}
}

// home is key's first slot: Fibonacci hashing, the product's top bits.
func (h *intHeads) home(key int64) int {
	return int((uint64(key) * 0x9E3779B97F4A7C15) >> h.shift)
}

// get is key's head row.
func (h *intHeads) get(key int64) (int32, bool) {
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
func (h *intHeads) put(key int64, row int32) (int32, bool) {
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
func (h *intHeads) grow() {
	bigger := sizedIntHeads(2 * len(h.slots))
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
func (h *intHeads) bytes() int64 { return intSlotBytes * int64(len(h.slots)) }
