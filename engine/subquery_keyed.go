package engine

import (
	"context"
	"io"
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

	once sync.Once
	rows map[string][][]any
	err  error
}

func (k *keyedSubPlan) Run(ctx context.Context, params []any, outer []any) ([][]any, error) {
	k.once.Do(func() { k.rows, k.err = k.load(ctx, params) })
	if k.err != nil {
		return nil, k.err
	}
	v := outer[k.Slot]
	if v == nil {
		return nil, nil // NULL = anything is never true
	}
	return k.rows[sql.DomainKey(v, k.OuterT, k.Domain)], nil
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
	keyAt := len(types) - 1
	mem := newMemBudget(k.env.Options.WorkMem)
	for {
		b, err := rows.Next(ctx)
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		for _, row := range appendDatumRows(nil, b, types) {
			if row[keyAt] == nil {
				continue
			}
			key := sql.DomainKey(row[keyAt], k.KeyT, k.Domain)
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
