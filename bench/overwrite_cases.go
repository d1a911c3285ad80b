package bench

import (
	"context"
	"fmt"
	"slices"

	"github.com/apache/iceberg-go/table"
)

// dynamicOverwrite times the dynamic overwrite of one partition and its
// floor, Repeat times each on fresh tables, alternating which goes first so
// drift in the machine's load falls on both.
func (r *overwriteRunner) dynamicOverwrite(ctx context.Context, src *source) (OverwriteResult, error) {
	sh := src.shape
	g := sh.overwritePartition()
	res := OverwriteResult{Case: caseDynamicOverwrite, Mode: CopyOnWrite, Rows: sh.rows, Partitions: sh.parts,
		RowsWritten: r.cfg.NewRows, RowsRemoved: sh.partitionRows(g), Baseline: baselineInsert}
	r.cfg.Progress(fmt.Sprintf("writing %d new rows of partition grp = %d", r.cfg.NewRows, g))
	staging, err := writeStaging(ctx, r.wh, r.name("new"), sh, g, r.cfg.NewRows)
	if err != nil {
		return res, err
	}
	var mine, floor []owSample
	for i := range r.cfg.Repeat {
		steps := []func() error{
			func() error {
				d, err := r.overwriteOnce(ctx, src, staging, res)
				mine = append(mine, d)
				return err
			},
			func() error {
				d, err := r.insertFloorOnce(ctx, staging, sh.rows, res.RowsWritten)
				floor = append(floor, d)
				return err
			},
		}
		if i%2 == 1 {
			slices.Reverse(steps)
		}
		for _, step := range steps {
			if err := step(); err != nil {
				return res, err
			}
		}
	}
	res.setTimes(mine, floor)
	return res, nil
}

// overwriteOnce clones the table, sets dynamic mode (untimed), times the
// INSERT OVERWRITE and checks its counts and the table read back.
func (r *overwriteRunner) overwriteOnce(ctx context.Context, src *source, staging table.Identifier, want OverwriteResult) (owSample, error) {
	ident, err := src.cloneWith(ctx, r.wh, r.name("dyn"), map[string]string{"format-version": "2"})
	if err != nil {
		return owSample{}, err
	}
	s := newOwSession(r.eng)
	defer s.Close()
	if _, err := s.run(ctx, "SET partition_overwrite_mode = 'dynamic'"); err != nil {
		return owSample{}, err
	}
	q := fmt.Sprintf("INSERT OVERWRITE %s SELECT * FROM %s", owQualified(ident), owQualified(staging))
	out, took, err := s.timed(ctx, "overwrite", src.shape.rows, q)
	if err != nil {
		return owSample{}, err
	}
	removed := fmt.Sprintf("%d rows removed", want.RowsRemoved)
	if out.tag != fmt.Sprintf("INSERT 0 %d", want.RowsWritten) || !slices.Contains(out.notices, removed) {
		return owSample{}, fmt.Errorf("%s: tag %q notices %q, want INSERT 0 %d and %q", q, out.tag, out.notices, want.RowsWritten, removed)
	}
	g := src.shape.overwritePartition()
	return took, s.expectCounts(ctx, map[string]int64{
		fmt.Sprintf("SELECT count(*) FROM %s", owQualified(ident)):                                               want.Rows - want.RowsRemoved + want.RowsWritten,
		fmt.Sprintf("SELECT count(*) FROM %s WHERE grp = %d", owQualified(ident), g):                             want.RowsWritten,
		fmt.Sprintf("SELECT count(*) FROM %s WHERE name = '%s' AND grp = %d", owQualified(ident), newRowName, g): want.RowsWritten,
	})
}

// insertFloorOnce times the plain INSERT of the same rows into an empty
// table of the same schema and partition spec.
func (r *overwriteRunner) insertFloorOnce(ctx context.Context, staging table.Identifier, rows, n int64) (owSample, error) {
	ident, err := owCreateEmpty(ctx, r.wh, r.name("floor"), Partitioned)
	if err != nil {
		return owSample{}, err
	}
	s := newOwSession(r.eng)
	defer s.Close()
	// The overwrite's session has run its SET: warm this one the same way,
	// so neither timed statement is its session's first.
	if _, err := s.run(ctx, "SET partition_overwrite_mode = 'static'"); err != nil {
		return owSample{}, err
	}
	q := fmt.Sprintf("INSERT INTO %s SELECT * FROM %s", owQualified(ident), owQualified(staging))
	out, took, err := s.timed(ctx, "insert-floor", rows, q)
	if err != nil {
		return owSample{}, err
	}
	if out.tag != fmt.Sprintf("INSERT 0 %d", n) {
		return owSample{}, fmt.Errorf("%s: tag %q, want INSERT 0 %d", q, out.tag, n)
	}
	return took, s.expectCounts(ctx, map[string]int64{fmt.Sprintf("SELECT count(*) FROM %s", owQualified(ident)): n})
}

// update times UPDATE of the k = 7 rows in copy-on-write and each
// merge-on-read mode, Repeat rounds of all modes on fresh clones; one result
// per merge-on-read mode, copy-on-write being their baseline.
func (r *overwriteRunner) update(ctx context.Context, src *source) ([]OverwriteResult, error) {
	want := owModelCount(src.shape, func(rw row) bool { return rw.k == 7 })
	modes := append([]Mode{CopyOnWrite}, r.cfg.Modes...)
	samples := map[Mode][]owSample{}
	for range r.cfg.Repeat {
		for _, m := range modes {
			r.cfg.Progress(fmt.Sprintf("UPDATE 1%% of %d rows in %s", src.shape.rows, m))
			d, err := r.updateOnce(ctx, src, m, want)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", m, err)
			}
			samples[m] = append(samples[m], d)
		}
	}
	var out []OverwriteResult
	for _, m := range r.cfg.Modes {
		res := OverwriteResult{Case: caseUpdate1pct, Mode: m, Rows: src.shape.rows, Partitions: src.shape.parts,
			RowsWritten: want, Baseline: baselineCoW}
		res.setTimes(samples[m], samples[CopyOnWrite])
		out = append(out, res)
	}
	return out, nil
}

// updateOnce clones the table in mode m, times the UPDATE and checks its
// count and the table read back.
func (r *overwriteRunner) updateOnce(ctx context.Context, src *source, m Mode, want int64) (owSample, error) {
	ident, err := src.cloneWith(ctx, r.wh, r.name("upd"), owUpdateProps(m))
	if err != nil {
		return owSample{}, err
	}
	s := newOwSession(r.eng)
	defer s.Close()
	q := fmt.Sprintf("UPDATE %s SET amount = amount + 1, name = '%s' WHERE k = 7", owQualified(ident), updatedName)
	out, took, err := s.timed(ctx, "update-"+string(m), src.shape.rows, q)
	if err != nil {
		return owSample{}, err
	}
	if out.tag != fmt.Sprintf("UPDATE %d", want) {
		return owSample{}, fmt.Errorf("%s: tag %q, want UPDATE %d", q, out.tag, want)
	}
	return took, s.expectCounts(ctx, map[string]int64{
		fmt.Sprintf("SELECT count(*) FROM %s", owQualified(ident)):                                           src.shape.rows,
		fmt.Sprintf("SELECT count(*) FROM %s WHERE name = '%s'", owQualified(ident), updatedName):            want,
		fmt.Sprintf("SELECT count(*) FROM %s WHERE k = 7 AND name <> '%s'", owQualified(ident), updatedName): 0,
	})
}

// owModelCount counts the generated rows that satisfy pred, reading nothing.
func owModelCount(sh shape, pred func(row) bool) int64 {
	var n int64
	for i := range sh.rows {
		if pred(sh.rowAt(i)) {
			n++
		}
	}
	return n
}

func owQualified(ident table.Identifier) string { return ident[0] + "." + ident[1] }

// setTimes fills the times from the statement's and the baseline's samples.
func (r *OverwriteResult) setTimes(mine, base []owSample) {
	wall := func(ss []owSample) []float64 {
		out := make([]float64, len(ss))
		for i, s := range ss {
			out[i] = ms(s.wall)
		}
		return out
	}
	cpu := func(ss []owSample) []float64 {
		out := make([]float64, len(ss))
		for i, s := range ss {
			out[i] = ms(s.cpu)
		}
		return out
	}
	r.Samples, r.BaseSamples = wall(mine), wall(base)
	r.Ms, r.BaselineMs = owMedian(r.Samples), owMedian(r.BaseSamples)
	r.MinMs, r.BaselineMinMs = slices.Min(r.Samples), slices.Min(r.BaseSamples)
	r.CPUMs, r.BaselineCPUMs = owMedian(cpu(mine)), owMedian(cpu(base))
}

// owMedian is the median of samples (the mean of the middle two for an even count).
func owMedian(samples []float64) float64 {
	if len(samples) == 0 {
		return 0
	}
	s := slices.Clone(samples)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
