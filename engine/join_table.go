package engine

import (
	"context"
	"encoding/binary"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/extensions"

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
	// keyWide: one key of 128 bits, alike on both sides: numerics of one
	// scale (their decimal128 coefficients) or uuids, held as keyInt2
	// holds two keys. Encoding them (a rational number's text per row)
	// made a join on numeric keys a hundred times slower than on integers.
	keyWide
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
	case intLikeKey(pkeys[0], bkeys[0], domains[0]) || floatKey(p, b, d):
		return keyInt
	case isTextKind(p) && isTextKind(b) && isTextKind(d):
		return keyText
	case wideKey(pkeys[0].Type(), bkeys[0].Type(), domains[0]):
		return keyWide
	}
	return keyEncoded
}

// floatKey: floats on both sides, compared as floats; int64Keys reads them
// as their bits with every NaN one value and -0 as 0, which is float
// equality as PostgreSQL has it.
func floatKey(p, b, d sql.Kind) bool {
	isFloat := func(k sql.Kind) bool { return k == sql.KindFloat32 || k == sql.KindFloat64 }
	return isFloat(p) && isFloat(b) && isFloat(d)
}

// wideKey: both sides numerics of one scale held as decimal128 (equal
// values, equal coefficients), or both uuids.
func wideKey(p, b, d sql.Type) bool {
	switch {
	case p.Kind == sql.KindUUID && b.Kind == sql.KindUUID && d.Kind == sql.KindUUID:
		return true
	case p.Kind == sql.KindNumeric && b.Kind == sql.KindNumeric && d.Kind == sql.KindNumeric:
		return p.Precision > 0 && b.Precision > 0 && p.Scale == b.Scale
	}
	return false
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
// keyInt, ints and ints2 for keyInt2 and keyWide, strs otherwise); null
// marks the rows whose key is NULL, which match nothing (nil: none).
type joinKeys struct {
	ints  []int64
	ints2 []int64 // keyInt2: the second key; keyWide: the low 64 bits
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
	arr, err := sql.Eval(ctx, exprs[0], b, r.params)
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
	switch kind {
	case keyInt:
		k.ints = intKeys(arr, t)
		return k, nil
	case keyWide:
		k.ints, k.ints2 = wideKeys(arr, t)
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

// wideKeys reads a decimal128 or uuid column as the high and low 64 bits
// of each value (NULLs read as whatever the array holds there); another
// representation of numerics of that scale goes through their datums.
func wideKeys(arr arrow.Array, t sql.Type) (hi, lo []int64) {
	n := arr.Len()
	hi, lo = make([]int64, n), make([]int64, n)
	switch a := arr.(type) {
	case *array.Decimal128:
		if int(a.DataType().(*arrow.Decimal128Type).Scale) == t.Scale {
			for i, v := range a.Values() {
				hi[i], lo[i] = v.HighBits(), int64(v.LowBits())
			}
			return hi, lo
		}
	case *extensions.UUIDArray:
		for i := range n {
			v := a.Value(i)
			hi[i], lo[i] = int64(binary.BigEndian.Uint64(v[:8])), int64(binary.BigEndian.Uint64(v[8:]))
		}
		return hi, lo
	}
	for i := range n {
		d, ok := sql.DatumAt(arr, t, i).(sql.Decimal)
		if !ok {
			continue
		}
		if v, ok := d.Num128(38, t.Scale); ok {
			hi[i], lo[i] = v.HighBits(), int64(v.LowBits())
		}
	}
	return hi, lo
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
		t, dom := e.Type(), r.j.Domains[k]
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
	ints  *keyHeads[intKey]
	// present has a bit per key in [lo, lo+64·len) when the keys are too
	// sparse for dense but their range is small enough: a probe that
	// misses (most of them, when a small source meets a big target)
	// costs a bit test instead of a map lookup.
	present []uint64
	pairs   *keyHeads[pairKey] // keyInt2, keyWide
	strs    map[string]int32   // keyText, keyEncoded
	next    []int32
	bytes   int64 // what the index holds beyond the build rows, for work_mem
	// keys is the range of integer keys (keyInt), for the probe side's
	// dynamic filter.
	keys keyRange
}

// Estimated bytes of one map entry beyond its key's own bytes (Go's
// swiss-table slot, control byte and load-factor slack).
const mapEntryBytes = 32

// presentMaxBits bounds the presence bitmap of sparse integer keys: 8 MiB,
// and presentBitsPerRow by the build rows: at most 8 bytes a row, a fifth
// of a map entry, so a partition of a spilled join, whose keys span the
// whole range, does not need more memory than its rows.
const (
	presentMaxBits    = 1 << 26
	presentBitsPerRow = 64
)

// denseSlack bounds the dense head slice: at most this many slots per build
// row (plus a constant), so sparse keys never cost much more than a map.
const denseSlack = 4

// newJoinTable indexes the build rows whose keys k holds.
func newJoinTable(kind joinKeyKind, k joinKeys) *joinTable {
	var r keyRange
	if kind == keyInt {
		r.add(k)
	}
	t := emptyJoinTable(kind, max(len(k.ints), len(k.strs)), r)
	t.insert(k, 0)
	return t
}

// keyRange is the smallest and largest non-NULL integer key of the build
// rows (seen: there is one).
type keyRange struct {
	lo, hi int64
	seen   bool
}

func (r *keyRange) add(k joinKeys) {
	for i, v := range k.ints {
		if k.null != nil && k.null[i] {
			continue
		}
		if !r.seen || v < r.lo {
			r.lo = v
		}
		if !r.seen || v > r.hi {
			r.hi = v
		}
		r.seen = true
	}
}

// emptyJoinTable is the index of n build rows before insert fills it;
// integer keys are laid out by their range r.
func emptyJoinTable(kind joinKeyKind, n int, r keyRange) *joinTable {
	t := &joinTable{kind: kind, next: make([]int32, n), bytes: 4 * int64(n), keys: r}
	switch {
	case kind == keyInt2 || kind == keyWide:
		t.pairs = newKeyHeads[pairKey]()
		t.bytes += t.pairs.bytes()
	case kind != keyInt:
		t.strs = make(map[string]int32)
	case r.seen && uint64(r.hi-r.lo) < uint64(denseSlack*n+1024):
		t.lo, t.dense = r.lo, make([]int32, r.hi-r.lo+1)
		for i := range t.dense {
			t.dense[i] = -1
		}
		t.bytes += 4 * int64(len(t.dense))
	default:
		t.ints = newKeyHeads[intKey]()
		t.bytes += t.ints.bytes()
		if span := uint64(r.hi - r.lo); r.seen && span < presentMaxBits && span < presentBitsPerRow*uint64(n) {
			t.lo, t.present = r.lo, make([]uint64, (r.hi-r.lo)/64+1)
			t.bytes += 8 * int64(len(t.present))
		}
	}
	return t
}

// insert indexes the build rows from..from+len-1, whose keys k holds,
// backwards: each row becomes its key's head, so when the rows after them
// are in already, chains end up in build order. A build side is inserted a
// chunk at a time, last chunk first.
func (t *joinTable) insert(k joinKeys, from int) {
	for i := max(len(k.ints), len(k.strs)) - 1; i >= 0; i-- {
		row := from + i
		t.next[row] = -1
		if k.null != nil && k.null[i] {
			continue
		}
		switch {
		case t.pairs != nil:
			before := t.pairs.bytes()
			if h, ok := t.pairs.put(pairKey{k.ints[i], k.ints2[i]}, int32(row)); ok {
				t.next[row] = h
			}
			t.bytes += t.pairs.bytes() - before
		case t.strs != nil:
			key := k.strs[i]
			if h, ok := t.strs[key]; ok {
				t.next[row] = h
			} else {
				key = strings.Clone(key) // may point into an evaluated array
				t.bytes += mapEntryBytes + int64(len(key))
			}
			t.strs[key] = int32(row)
		case t.dense != nil:
			slot := k.ints[i] - t.lo
			t.next[row], t.dense[slot] = t.dense[slot], int32(row)
		default:
			before := t.ints.bytes()
			if h, ok := t.ints.put(intKey(k.ints[i]), int32(row)); ok {
				t.next[row] = h
			}
			t.bytes += t.ints.bytes() - before
			if t.present != nil {
				bit := uint64(k.ints[i] - t.lo)
				t.present[bit/64] |= 1 << (bit % 64)
			}
		}
	}
}

// head is the first build row whose key equals row i of k, -1 for none.
func (t *joinTable) head(k joinKeys, i int) int32 {
	switch {
	case t.pairs != nil:
		if h, ok := t.pairs.get(pairKey{k.ints[i], k.ints2[i]}); ok {
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
		if h, ok := t.ints.get(intKey(k.ints[i])); ok {
			return h
		}
	case t.strs != nil:
		if h, ok := t.strs[k.strs[i]]; ok {
			return h
		}
	}
	return -1
}
