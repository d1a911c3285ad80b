package maintenance

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/apache/iceberg-go/table"

	"github.com/magmalake/magmalake/deletes"
	"github.com/magmalake/magmalake/lake"
	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/plan"
	"github.com/magmalake/magmalake/sql"
)

// TestProcedureArguments: the sizes, ratios and durations the procedures
// and the table properties take, and the values they refuse (22023).
func TestProcedureArguments(t *testing.T) {
	sizes := []struct {
		in   string
		want int64
	}{{"1048576", 1 << 20}, {"128MB", 128 << 20}, {" 1 GB ", 1 << 30}, {"512kB", 512 << 10}, {"2tb", 2 << 40}, {"10b", 10}, {"1.5mb", 3 << 19}}
	for _, c := range sizes {
		if got, err := ParseByteSize(c.in); err != nil || got != c.want {
			t.Errorf("ParseByteSize(%q) = %d, %v; want %d", c.in, got, err, c.want)
		}
	}
	ratios := []struct {
		in   string
		want float64
	}{{"0", 0}, {"0.25", 0.25}, {" 1 ", 1}}
	for _, c := range ratios {
		if got, err := ParseRatio(c.in); err != nil || got != c.want {
			t.Errorf("ParseRatio(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
	ages := []struct {
		in   string
		want time.Duration
	}{{"7d", 7 * 24 * time.Hour}, {"1.5d", 36 * time.Hour}, {"12h", 12 * time.Hour}, {" 30M ", 30 * time.Minute}, {"0s", 0}}
	for _, c := range ages {
		if got, err := parseRetention(c.in); err != nil || got != c.want {
			t.Errorf("parseRetention(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
	refused := map[string]func(string) error{
		"size":      func(v string) error { _, err := ParseByteSize(v); return err },
		"ratio":     func(v string) error { _, err := ParseRatio(v); return err },
		"retention": func(v string) error { _, err := parseRetention(v); return err },
		"setting":   func(v string) error { _, err := CheckMinRetention(v); return err },
	}
	for kind, bad := range map[string][]string{"size": {"", "-1MB", "lots", "1PB"}, "ratio": {"-0.1", "1.01", "half"},
		"retention": {"-1d", "7 days", "forever"}, "setting": {"-1h", "soon"}} {
		for _, v := range bad {
			wantCode(t, refused[kind](v), pgerr.InvalidParameterValue, kind+" "+v)
		}
	}
	if got, err := CheckMinRetention(" 2h "); err != nil || got != "2h" {
		t.Errorf("CheckMinRetention(\" 2h \") = %q, %v; want \"2h\"", got, err)
	}
}

// TestAllowedAtRun: what the session allows is asked when the statement
// runs (a prepared one may run inside a block it was not planned in), and
// before anything else: the refusal comes with the session's error.
func TestAllowedAtRun(t *testing.T) {
	refuse := pgerr.Errorf(pgerr.ActiveSQLTransaction, "refused")
	p := &refusingPort{err: refuse}
	st := &sql.AlterExecute{Table: sql.TableName{Table: "t"}, Procedure: "fast_forward"}
	run, cols, err := PrepareExecute(t.Context(), p, st, nil)
	if err != nil || len(cols) != 3 {
		t.Fatalf("prepare fast_forward: %d columns, %v", len(cols), err)
	}
	if _, err := run(t.Context(), p, nil); !errors.Is(err, refuse) {
		t.Fatalf("run inside a block: %v, want the session's refusal", err)
	}
	if _, err := AlterRef(t.Context(), p, &sql.AlterRef{Table: st.Table, Name: "b"}); !errors.Is(err, refuse) {
		t.Fatalf("CREATE BRANCH inside a block: %v, want the session's refusal", err)
	}
	if p.asked != 2 || p.resolved != 0 {
		t.Fatalf("asked %d times and resolved %d tables, want 2 and none", p.asked, p.resolved)
	}
	_, _, err = PrepareExecute(t.Context(), p, &sql.AlterExecute{Table: st.Table, Procedure: "migrate"}, nil)
	wantCode(t, err, pgerr.FeatureNotSupported, "EXECUTE migrate")
}

func wantCode(t *testing.T, err error, code pgerr.Code, what string) {
	t.Helper()
	var pe *pgerr.Error
	if !errors.As(err, &pe) || pe.Code != code {
		t.Errorf("%s: %v, want SQLSTATE %s", what, err, code)
	}
}

// refusingPort is a session inside a transaction block: it refuses
// maintenance, and counts what it is asked.
type refusingPort struct {
	err             error
	asked, resolved int
}

func (p *refusingPort) Allowed(string) error { p.asked++; return p.err }

func (p *refusingPort) TableItself(context.Context, sql.TableName) (*plan.Table, error) {
	p.resolved++
	return nil, errors.New("no catalog")
}

func (p *refusingPort) ReadTable(context.Context, sql.TableName) (*plan.Table, error) {
	p.resolved++
	return nil, errors.New("no catalog")
}

func (p *refusingPort) WritableTable(context.Context, sql.TableName, string) (*plan.Table, error) {
	p.resolved++
	return nil, errors.New("no catalog")
}

func (p *refusingPort) Scope(*table.Table, string) *sql.Scope { return &sql.Scope{} }
func (p *refusingPort) Setting(string) (string, error)        { return "", nil }
func (p *refusingPort) Warehouse() *lake.Warehouse            { return nil }
func (p *refusingPort) DeleteOptions() deletes.Options        { return deletes.Options{} }
func (p *refusingPort) CommitTarget() deletes.CommitTarget    { return lake.CommitLoop{} }
func (p *refusingPort) CommitLoop(string) lake.CommitLoop     { return lake.CommitLoop{} }
func (p *refusingPort) Discard(*table.Table, []string)        {}
