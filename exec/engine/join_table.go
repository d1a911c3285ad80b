package engine

import (
	"context"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/magmalake/magmalake/sql"
)

// joinKeyKind is how a hash join holds its keys.
type joinKeyKind uint8

const (
	// keyEncoded: any keys, one string per row joining each key's
	// sql.DomainKey (its value converted to the comparison's type).
	keyEncoded joinKeyKind = iota
	// keyInt: one key, integers (or one temporal type on both sides),
	// compared as int64 with no conversion.
	keyInt
	// keyText: one key, text on both sides, compared bytewise.
	keyText
	// keyInt2: two keys, integers (or one temporal type each) on both
	// sides, compared as a pair of int64 (MERGE ... ON t.id = s.id AND
	// t.grp = s.grp).
	keyInt2
)

// joinKeyKindOf picks the cheapest key representation that compares as the
// equality's domain does: a single integer or text key hashes its typed
// values straight from the Arrow arrays.
func joinKeyKindOf(pkeys, bkeys []sql.Expr, domains []sql.Type) joinKeyKind {
	if len(pkeys) == 2 && len(bkeys) == 2 && intLikeKey(pkeys[0], bkeys[0], domains[0]) && intLikeKey(pkeys[1], bkeys[1], domains[1]) {
		return keyInt2
	}
	if len(pkeys) != 1 || len(bkeys) != 1 {
		return keyEncoded
	}
	p, b, d := pkeys[0].Type().Kind, bkeys[0].Type().Kind, domains[0].Kind
	switch {
	case intLikeKey(pkeys[0], bkeys[0], domains[0]):
		return keyInt
	case isTextKind(p) && isTextKind(b) && isTextKind(d):
		return keyText
	}
	return keyEncoded
}

// intLikeKey: both sides compare as int64 with no conversion (integers, or
// the same temporal type as the domain).
func intLikeKey(pk, bk sql.Expr, dom sql.Type) bool {
	p, b, d := pk.Type().Kind, bk.Type().Kind, dom.Kind
	switch {
	case isIntKind(p) && isIntKind(b) && isIntKind(d):
		return true
	case p == d && b == d && (d == sql.KindDate || d == sql.KindTime || d == sql.KindTimestamp || d == sql.KindTimestampTZ):
		return true
	}
	return false
}

func isIntKind(k sql.Kind) bool {
	return k == sql.KindInt16 || k == sql.KindInt32 || k == sql.KindInt64
}

func isTextKind(k sql.Kind) bool { return k == sql.KindText || k == sql.KindVarchar }

// joinKeys are one batch's join keys in one representation (ints for
// keyInt, strs otherwise); null marks the rows whose key is NULL, which
// match nothing (nil: none).
type joinKeys struct {
	ints  []int64
	ints2 []int64 // keyInt2: the second key
	strs  []string
	null  []bool
}

// batchKeys evaluates the key expressions over b in kind's representation.
// Text keys may point into b's buffers: the table clones the ones it keeps.
func (r *joinRun) batchKeys(ctx context.Context, b arrow.RecordBatch, exprs []sql.Expr, kind joinKeyKind) (joinKeys, error) {
	if kind == keyEncoded {
		strs, null, err := r.keyStrings(ctx, b, exprs)
		return joinKeys{strs: strs, null: null}, err
	}
	if kind == keyInt2 {
		first, err := r.batchKeys(ctx, b, exprs[:1], keyInt)
		if err != nil {
			return joinKeys{}, err
		}
		second, err := r.batchKeys(ctx, b, exprs[1:], keyInt)
		if err != nil {
			return joinKeys{}, err
		}
		first.ints2 = second.ints
		if second.null != nil {
			if first.null == nil {
				first.null = second.null
			} else {
				for i, n := range second.null {
					first.null[i] = first.null[i] || n
				}
			}
		}
		return first, nil
	}
	arr, err := evalColumn(ctx, exprs[0], b, r.params)
	if err != nil {
		return joinKeys{}, err
	}
	defer arr.Release()
	n := arr.Len()
	var k joinKeys
	if arr.NullN() > 0 {
		k.null = make([]bool, n)
		for i := range n {
			k.null[i] = arr.IsNull(i)
		}
	}
	t := exprs[0].Type()
	if kind == keyInt {
		k.ints = intKeys(arr, t)
		return k, nil
	}
	k.strs = make([]string, n)
	if s, ok := arr.(*array.String); ok {
		for i := range n {
			k.strs[i] = s.Value(i)
		}
		return k, nil
	}
	for i := range n {
		if v, ok := sql.DatumAt(arr, t, i).(string); ok {
			k.strs[i] = v
		}
	}
	return k, nil
}

// intKeys reads an integer or temporal column as int64s (NULLs read as
// whatever the array holds there: the null mask decides), as GROUP BY's
// int64Keys does; another representation of the same values goes through
// their datums (days, microseconds).
func intKeys(arr arrow.Array, t sql.Type) []int64 {
	if out, ok := int64Keys(arr); ok {
		return out
	}
	out := make([]int64, arr.Len())
	for i := range out {
		if v, ok := sql.DatumAt(arr, t, i).(int64); ok {
			out[i] = v
		}
	}
	return out
}

// keyStrings computes each row's encoded key; null marks a row with a NULL
// key, which matches nothing.
func (r *joinRun) keyStrings(ctx context.Context, b arrow.RecordBatch, keys []sql.Expr) ([]string, []bool, error) {
	n := int(b.NumRows())
	out := make([]string, n)
	null := make([]bool, n)
	var buf []byte
	for k, e := range keys {
		arr, err := sql.Eval(ctx, e, b, r.params)
		if err != nil {
			return nil, nil, err
		}
		t, dom := e.Type(), r.j.domains[k]
		for i := 0; i < n; i++ {
			if null[i] {
				continue
			}
			v := sql.DatumAt(arr, t, i)
			if v == nil {
				null[i] = true
				continue
			}
			if len(keys) == 1 {
				out[i] = sql.DomainKey(v, t, dom)
				continue
			}
			buf = append(append(buf[:0], out[i]...), sql.DomainKey(v, t, dom)...)
			out[i] = string(append(buf, 0))
		}
		arr.Release()
	}
	return out, null, nil
}

// joinTable is a hash join's build side index: for each key the first build
// row holding it, and next[row] the following row of the same key (-1 at
// the end), so a key's rows come out in build order.
type joinTable struct {
	kind joinKeyKind
	// keyInt: heads by key, as a slice over [lo, lo+len) when the keys are
	// dense enough, else a map.
	dense []int32
	lo    int64
	ints  map[int64]int32
	// present has a bit per key in [lo, lo+64·len) when the keys are too
	// sparse for dense but their range is small enough: a probe that
	// misses (most of them, when a small source meets a big target)
	// costs a bit test instead of a map lookup.
	present []uint64
	pairs   map[[2]int64]int32 // keyInt2
	strs    map[string]int32   // keyText, keyEncoded
	next    []int32
	bytes   int64 // what the index holds beyond the build rows, for work_mem
}

// Estimated bytes of one map entry beyond its key's own bytes (Go's
// swiss-table slot, control byte and load-factor slack).
const mapEntryBytes = 32

// presentMaxBits bounds the presence bitmap of sparse integer keys: 8 MiB.
const presentMaxBits = 1 << 26

// denseSlack bounds the dense head slice: at most this many slots per build
// row (plus a constant), so sparse keys never cost much more than a map.
const denseSlack = 4

func newJoinTable(kind joinKeyKind, k joinKeys) *joinTable {
	t := &joinTable{kind: kind}
	n := max(len(k.ints), len(k.strs))
	if kind == keyInt2 {
		return newPairTable(k, n)
	}
	t.next = make([]int32, n)
	t.bytes = 4 * int64(n)
	valid := func(i int) bool { return k.null == nil || !k.null[i] }
	if kind == keyInt {
		lo, hi, seen := int64(0), int64(0), false
		for i, v := range k.ints {
			if !valid(i) {
				continue
			}
			if !seen || v < lo {
				lo = v
			}
			if !seen || v > hi {
				hi = v
			}
			seen = true
		}
		if seen && uint64(hi-lo) < uint64(denseSlack*n+1024) {
			t.lo, t.dense = lo, make([]int32, hi-lo+1)
			for i := range t.dense {
				t.dense[i] = -1
			}
			t.bytes += 4 * int64(len(t.dense))
		} else {
			t.ints = make(map[int64]int32)
			if seen && uint64(hi-lo) < presentMaxBits {
				t.lo, t.present = lo, make([]uint64, (hi-lo)/64+1)
				t.bytes += 8 * int64(len(t.present))
			}
		}
	} else {
		t.strs = make(map[string]int32)
	}
	// Backwards, each row becomes its key's head: chains end up in order.
	for i := n - 1; i >= 0; i-- {
		t.next[i] = -1
		if !valid(i) {
			continue
		}
		switch {
		case t.dense != nil:
			slot := k.ints[i] - t.lo
			t.next[i], t.dense[slot] = t.dense[slot], int32(i)
		case t.ints != nil:
			if h, ok := t.ints[k.ints[i]]; ok {
				t.next[i] = h
			} else {
				t.bytes += mapEntryBytes
			}
			t.ints[k.ints[i]] = int32(i)
			if t.present != nil {
				bit := uint64(k.ints[i] - t.lo)
				t.present[bit/64] |= 1 << (bit % 64)
			}
		default:
			key := k.strs[i]
			if h, ok := t.strs[key]; ok {
				t.next[i] = h
			} else {
				key = strings.Clone(key) // may point into an evaluated array
				t.bytes += mapEntryBytes + int64(len(key))
			}
			t.strs[key] = int32(i)
		}
	}
	return t
}

// newPairTable indexes two integer keys per build row.
func newPairTable(k joinKeys, n int) *joinTable {
	t := &joinTable{kind: keyInt2, pairs: make(map[[2]int64]int32), next: make([]int32, n)}
	t.bytes = 4 * int64(n)
	for i := n - 1; i >= 0; i-- {
		t.next[i] = -1
		if k.null != nil && k.null[i] {
			continue
		}
		key := [2]int64{k.ints[i], k.ints2[i]}
		if h, ok := t.pairs[key]; ok {
			t.next[i] = h
		} else {
			t.bytes += mapEntryBytes + 16
		}
		t.pairs[key] = int32(i)
	}
	return t
}

// head is the first build row whose key equals row i of k, -1 for none.
func (t *joinTable) head(k joinKeys, i int) int32 {
	switch {
	case t.pairs != nil:
		if h, ok := t.pairs[[2]int64{k.ints[i], k.ints2[i]}]; ok {
			return h
		}
		return -1
	case t.dense != nil:
		slot := k.ints[i] - t.lo
		if slot < 0 || slot >= int64(len(t.dense)) {
			return -1
		}
		return t.dense[slot]
	case t.ints != nil:
		if t.present != nil {
			bit := uint64(k.ints[i] - t.lo)
			if bit >= uint64(len(t.present))*64 || t.present[bit/64]&(1<<(bit%64)) == 0 {
				return -1
			}
		}
		if h, ok := t.ints[k.ints[i]]; ok {
			return h
		}
	case t.strs != nil:
		if h, ok := t.strs[k.strs[i]]; ok {
			return h
		}
	}
	return -1
}
