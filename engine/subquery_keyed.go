package engine

import (
	"context"
	"io"
	"strconv"
	"strings"
	"sync"

	"github.com/magmalake/magmalake/plan"
	"github.com/magmalake/magmalake/sql"
)

// keyedSubPlan runs a subquery of the keyed form (plan.Keyed) once per
// statement, keeping its rows by key; each enclosing row then looks its
// rows up.
type keyedSubPlan struct {
	*subPlan
	*plan.Keyed
	build *selectQuery // Keyed.Build, compiled
	empty *selectQuery // Keyed.Empty, compiled; nil: none

	own keyedRows // the rows when run outside a statement (keyedRowsOf)
}

// keyedRows are one statement's rows of a keyed subquery, loaded on first
// use, and what it gives for a key no row has.
type keyedRows struct {
	once sync.Once
	rows map[string][][]any
	err  error

	emptyOnce sync.Once
	emptyRows [][]any
	emptyErr  error
}

func (k *keyedSubPlan) Run(ctx context.Context, params []any, outer []any) ([][]any, error) {
	r := keyedRowsOf(ctx, k)
	r.once.Do(func() { r.rows, r.err = k.load(ctx, params) })
	if r.err != nil {
		return nil, r.err
	}
	key, ok := k.outerKey(outer)
	if rows, found := r.rows[key]; ok && found {
		return rows, nil
	}
	// No row has the key (a NULL key equals nothing).
	if k.empty == nil {
		return nil, nil
	}
	r.emptyOnce.Do(func() {
		r.emptyRows, r.emptyErr = (&subPlan{q: k.empty, env: k.env}).rows(ctx, params, nil, newMemBudget(ctx, k.env.Options.WorkMem))
	})
	return r.emptyRows, r.emptyErr
}

// outerKey is the key an enclosing row looks up; ok is false when a value
// is NULL.
func (k *keyedSubPlan) outerKey(outer []any) (string, bool) {
	var b strings.Builder
	for i, slot := range k.Slots {
		v := outer[slot]
		if v == nil {
			return "", false
		}
		writeKeyPart(&b, sql.DomainKey(v, k.OuterTs[i], k.Domains[i]))
	}
	return b.String(), true
}

// writeKeyPart appends one value of a composite key, length first so no
// two keys run together.
func writeKeyPart(b *strings.Builder, part string) {
	b.WriteString(strconv.Itoa(len(part)))
	b.WriteByte(':')
	b.WriteString(part)
}

// load runs the subquery once and groups its rows by key; rows with a
// NULL key can match nothing and are dropped.
func (k *keyedSubPlan) load(ctx context.Context, params []any) (map[string][][]any, error) {
	rows, err := k.build.run(ctx, k.env, params)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	types := make([]sql.Type, len(k.build.Outputs))
	for i, e := range k.build.Outputs {
		types[i] = e.Type()
	}
	out := map[string][][]any{}
	keyAt := len(types) - len(k.Slots)
	mem := newMemBudget(ctx, k.env.Options.WorkMem)
	for {
		b, err := rows.Next(ctx)
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		for _, row := range appendDatumRows(nil, b, types) {
			key, ok := k.rowKey(row[keyAt:])
			if !ok {
				continue
			}
			held, ok := out[key]
			if k.PerKey >= 0 && int64(len(held)) >= k.PerKey {
				continue
			}
			size := sql.RowsBytes([][]any{row[:keyAt]})
			if !ok {
				size += int64(len(key)) + mapEntryBytes
			}
			if err := mem.charge(size, "a subquery"); err != nil {
				return nil, err
			}
			out[key] = append(held, row[:keyAt])
		}
	}
}

// rowKey is the key of a build row's key values; ok is false when one is
// NULL.
func (k *keyedSubPlan) rowKey(vals []any) (string, bool) {
	var b strings.Builder
	for i, v := range vals {
		if v == nil {
			return "", false
		}
		writeKeyPart(&b, sql.DomainKey(v, k.KeyTs[i], k.Domains[i]))
	}
	return b.String(), true
}
