package session

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/magmalake/magmalake/lake"
	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql"
	"github.com/magmalake/magmalake/stmt"
)

// testSession opens a fresh warehouse in a temp dir and a session on it.
func testSession(t *testing.T) *Session {
	t.Helper()
	s := testEngine(t, t.TempDir()).NewSession(stmt.SessionInfo{User: "tester", Database: "db"})
	t.Cleanup(s.Close)
	return s
}

// testEngine serves the warehouse in dir until the test ends; engines on
// the same dir share its tables, as separate server processes would.
func testEngine(t *testing.T, dir string) *Engine {
	t.Helper()
	return testEngineWith(t, lake.Config{DataDir: dir})
}

// testEngineWith serves a warehouse opened with cfg until the test ends.
func testEngineWith(t *testing.T, cfg lake.Config) *Engine {
	t.Helper()
	return testEngineOptions(t, cfg, EngineOptions{})
}

// testEngineOptions serves a warehouse opened with cfg, with the engine
// options opts, until the test ends.
func testEngineOptions(t *testing.T, cfg lake.Config, opts EngineOptions) *Engine {
	t.Helper()
	ctx := context.Background()
	wh, err := lake.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { wh.Close() })
	eng, err := NewEngine(ctx, wh, opts)
	if err != nil {
		t.Fatal(err)
	}
	return eng
}

// testSessionOn opens a session on eng, closed when the test ends.
func testSessionOn(t *testing.T, eng *Engine) *Session {
	t.Helper()
	s := eng.NewSession(stmt.SessionInfo{User: "tester", Database: "db"})
	t.Cleanup(s.Close)
	return s
}

// result is a statement's outcome rendered as text, NULL as "NULL".
type result struct {
	cols []string
	rows [][]string
	tag  string
}

func (s *Session) query(ctx context.Context, q string, params ...stmt.Param) (*result, error) {
	p, err := s.Prepare(ctx, q, nil)
	if err != nil {
		return nil, err
	}
	res, err := s.Execute(ctx, p, params)
	if err != nil {
		return nil, err
	}
	return resultOf(ctx, res)
}

// resultOf renders an executed statement's result, draining its rows.
func resultOf(ctx context.Context, res *stmt.Result) (*result, error) {
	out := &result{}
	for _, c := range res.Columns {
		out.cols = append(out.cols, c.Name)
	}
	if res.Rows == nil {
		out.tag = res.Tag
		return out, nil
	}
	defer res.Rows.Close()
	for {
		b, err := res.Rows.Next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		for r := 0; r < int(b.NumRows()); r++ {
			row := make([]string, b.NumCols())
			for c := range row {
				if b.Column(c).IsNull(r) {
					row[c] = "NULL"
					continue
				}
				row[c] = string(sql.AppendText(nil, res.Columns[c].Type, b.Column(c), r))
			}
			out.rows = append(out.rows, row)
		}
	}
	out.tag = res.Rows.Tag()
	return out, nil
}

// mustQuery runs q and fails the test on error.
func mustQuery(t *testing.T, s *Session, q string, params ...stmt.Param) *result {
	t.Helper()
	r, err := s.query(context.Background(), q, params...)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return r
}

// mustFail runs q and checks its SQLSTATE.
func mustFail(t *testing.T, s *Session, code pgerr.Code, q string, params ...stmt.Param) {
	t.Helper()
	_, err := s.query(context.Background(), q, params...)
	var se *pgerr.Error
	if !errors.As(err, &se) {
		t.Fatalf("%s: want SQLSTATE %s, got %v", q, code, err)
	}
	if se.Code != code {
		t.Fatalf("%s: want SQLSTATE %s, got %s (%s)", q, code, se.Code, se.Message)
	}
}

func (r *result) text() string {
	var b strings.Builder
	for _, row := range r.rows {
		b.WriteString(strings.Join(row, "|"))
		b.WriteByte('\n')
	}
	return b.String()
}
