package wire

import (
	"bufio"
	"context"
	"encoding/hex"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/extensions"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/sql"
	"github.com/magmalake/magmalake/stmt"
)

// fakeSession is a tiny SQL engine good enough to drive real clients: a table
// t(id bigint, name text, grp int) of fakeRows rows (g, 'name'||g, g%3), as in
// the traces, and a handful of statements:
//
//	SELECT <int> | SELECT * FROM t [WHERE id = $1] | SELECT id, name, grp FROM t ...
//	SELECT $1::<type> (echoes its parameter) | SELECT alltypes | SELECT generate_series(1, n)
//	DELETE FROM t WHERE id = $1|<int> | SELECT pg_sleep(<s>) | SELECT panic
//	BEGIN | COMMIT | ROLLBACK | SET name = value | SHOW name | DROP TABLE IF EXISTS x
//	COPY t FROM STDIN | COPY t TO STDOUT [CSV] | anything else: 42601; FROM missing: 42P01
type fakeSession struct {
	info stmt.SessionInfo
	mu   sync.Mutex
	tx   byte
	// copied holds the lines received by COPY FROM STDIN.
	copied []string
}

const fakeRows = 10

func newFakeSession(info stmt.SessionInfo) (Session, error) {
	return &fakeSession{info: info, tx: stmt.TxIdle}, nil
}

func (s *fakeSession) ParameterStatus() map[string]string {
	return map[string]string{"server_version": "15.18 (magmalake fake)", "application_name": s.info.ApplicationName}
}

// The fake has no implicit transactions: each statement stands alone.
func (s *fakeSession) BeginImplicit()                    {}
func (s *fakeSession) EndImplicit(context.Context) error { return nil }

func (s *fakeSession) Split(q string) ([]string, error) {
	var out []string
	for _, part := range strings.Split(q, ";") {
		if p := strings.TrimSpace(part); p != "" {
			out = append(out, p)
		}
	}
	return out, nil
}

func (s *fakeSession) TxStatus() byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tx
}

func (s *fakeSession) Close() {}

// fakePlan is what Prepare understood.
type fakePlan struct {
	kind string
	arg  string
	typ  sql.Type
}

var (
	reSelectInt  = regexp.MustCompile(`(?i)^select (-?\d+)$`)
	reSelectT    = regexp.MustCompile(`(?i)^select (\*|id, name, grp) from t( where id = \s*'?(\$1|-?\d+)'?\s*)?$`)
	reEcho       = regexp.MustCompile(`(?i)^select\s+(\$1|'(?:[^']|'')*'|[-\w.]+)\s*::(\w+)$`)
	reSeries     = regexp.MustCompile(`(?i)^select generate_series\(1, ?(\d+)\)$`)
	reDelete     = regexp.MustCompile(`(?i)^delete from t where id = \s*'?(\$1|-?\d+)'?\s*$`)
	reSleep      = regexp.MustCompile(`(?i)^select pg_sleep\(([\d.]+)\)$`)
	reSet        = regexp.MustCompile(`(?i)^set (\w+) (?:=|to) '?([^']*)'?$`)
	reShow       = regexp.MustCompile(`(?i)^show (\w+)$`)
	reCopyIn     = regexp.MustCompile(`(?i)^copy t from stdin$`)
	reCopyOut    = regexp.MustCompile(`(?i)^copy t to stdout( csv)?$`)
	reDropIfExst = regexp.MustCompile(`(?i)^drop table if exists \w+$`)
)

var tColumns = []stmt.Column{
	{Name: "id", Type: sql.Int64, TableOID: 16385, AttNum: 1},
	{Name: "name", Type: sql.Text, TableOID: 16385, AttNum: 2},
	{Name: "grp", Type: sql.Int32, TableOID: 16385, AttNum: 3},
}

var fakeTypes = map[string]sql.Type{
	"bool": sql.Bool, "int2": sql.Int16, "int4": sql.Int32, "int8": sql.Int64, "float4": sql.Float32,
	"float8": sql.Float64, "numeric": sql.Numeric(20, 4), "text": sql.Text, "varchar": {Kind: sql.KindVarchar},
	"bytea": sql.Bytea, "date": sql.Date, "time": sql.Time, "timestamp": sql.Timestamp,
	"timestamptz": sql.TimestampTZ, "uuid": sql.UUID, "json": sql.JSON, "oid": sql.OID,
}

func (s *fakeSession) Prepare(ctx context.Context, q string, paramTypes []uint32) (*stmt.Prepared, error) {
	q = strings.Join(strings.Fields(strings.TrimRight(strings.TrimSpace(q), ";")), " ")
	p := &stmt.Prepared{Query: q}
	plan, cols, params, err := planFake(q)
	if err != nil {
		s.mu.Lock()
		if s.tx == stmt.TxActive {
			s.tx = stmt.TxFailed
		}
		s.mu.Unlock()
		return nil, err
	}
	for i := range params {
		if i < len(paramTypes) && paramTypes[i] != 0 {
			params[i] = paramTypes[i]
		}
	}
	_ = plan
	p.Columns, p.ParamTypes = cols, params
	return p, nil
}

func planFake(q string) (fakePlan, []stmt.Column, []uint32, error) {
	var params []uint32
	if strings.Contains(q, "$1") {
		params = []uint32{sql.OIDInt8}
	}
	switch {
	case reSelectInt.MatchString(q):
		return fakePlan{kind: "int"}, []stmt.Column{{Name: "?column?", Type: sql.Int32}}, nil, nil
	case reSelectT.MatchString(q):
		return fakePlan{kind: "t"}, tColumns, params, nil
	case reEcho.MatchString(q):
		m := reEcho.FindStringSubmatch(q)
		typ, ok := fakeTypes[strings.ToLower(m[2])]
		if !ok {
			return fakePlan{}, nil, nil, pgerr.Errorf(pgerr.UndefinedObject, "type does not exist")
		}
		if m[1] != "$1" {
			return fakePlan{kind: "echo", typ: typ}, []stmt.Column{{Name: "echo", Type: typ}}, nil, nil
		}
		return fakePlan{kind: "echo", typ: typ}, []stmt.Column{{Name: "echo", Type: typ}}, []uint32{typ.OID()}, nil
	case strings.EqualFold(q, "select alltypes"):
		return fakePlan{kind: "alltypes"}, allTypesColumns(), nil, nil
	case reSeries.MatchString(q):
		return fakePlan{kind: "series"}, []stmt.Column{{Name: "generate_series", Type: sql.Int64}}, nil, nil
	case reSleep.MatchString(q):
		return fakePlan{kind: "sleep"}, []stmt.Column{{Name: "pg_sleep", Type: sql.Text}}, nil, nil
	case reShow.MatchString(q):
		return fakePlan{kind: "show"}, []stmt.Column{{Name: strings.ToLower(reShow.FindStringSubmatch(q)[1]), Type: sql.Text}}, nil, nil
	case reCopyOut.MatchString(q):
		return fakePlan{kind: "copyout"}, tColumns, nil, nil
	case strings.EqualFold(q, "select panic"):
		return fakePlan{kind: "panic"}, []stmt.Column{{Name: "panic", Type: sql.Int32}}, nil, nil
	case reDelete.MatchString(q), reSet.MatchString(q), reCopyIn.MatchString(q), reDropIfExst.MatchString(q):
		return fakePlan{kind: "command"}, nil, params, nil
	case strings.EqualFold(q, "begin"), strings.EqualFold(q, "commit"), strings.EqualFold(q, "rollback"):
		return fakePlan{kind: "tx"}, nil, nil, nil
	case strings.Contains(strings.ToLower(q), "from missing"):
		return fakePlan{}, nil, nil, &pgerr.Error{Code: pgerr.UndefinedTable, Message: `relation "missing" does not exist`,
			Position: strings.Index(strings.ToLower(q), "missing") + 1}
	}
	return fakePlan{}, nil, nil, &pgerr.Error{Code: pgerr.SyntaxError, Message: fmt.Sprintf("syntax error at or near %q (fake cannot parse %q)", strings.Fields(q + " x")[0], q), Position: 1}
}

func (s *fakeSession) Execute(ctx context.Context, p *stmt.Prepared, params []stmt.Param) (*stmt.Result, error) {
	q := p.Query
	s.mu.Lock()
	failed := s.tx == stmt.TxFailed
	s.mu.Unlock()
	if failed && !strings.EqualFold(q, "rollback") && !strings.EqualFold(q, "commit") {
		return nil, pgerr.Errorf(pgerr.InFailedSQLTransaction, "current transaction is aborted, commands ignored until end of transaction block")
	}
	res, err := s.execute(ctx, p, params)
	if err != nil {
		s.mu.Lock()
		if s.tx == stmt.TxActive {
			s.tx = stmt.TxFailed
		}
		s.mu.Unlock()
	}
	return res, err
}

func (s *fakeSession) execute(ctx context.Context, p *stmt.Prepared, params []stmt.Param) (*stmt.Result, error) {
	q := p.Query
	switch {
	case reSelectInt.MatchString(q):
		v, _ := strconv.Atoi(reSelectInt.FindStringSubmatch(q)[1])
		return rowsResult(p.Columns, [][]any{{int32(v)}}), nil
	case reSelectT.MatchString(q):
		m := reSelectT.FindStringSubmatch(q)
		var rows [][]any
		for g := int64(1); g <= fakeRows; g++ {
			if m[2] != "" {
				want, err := intArg(m[3], params)
				if err != nil {
					return nil, err
				}
				if g != want {
					continue
				}
			}
			rows = append(rows, []any{g, "name" + strconv.FormatInt(g, 10), int32(g % 3)})
		}
		return rowsResult(p.Columns, rows), nil
	case reEcho.MatchString(q):
		if lit := reEcho.FindStringSubmatch(q)[1]; lit != "$1" {
			lit = strings.TrimSpace(lit)
			if strings.HasPrefix(lit, "'") {
				lit = strings.ReplaceAll(lit[1:len(lit)-1], "''", "'")
			}
			return rowsResult(p.Columns, [][]any{{lit}}), nil
		}
		return rowsResult(p.Columns, [][]any{{params[0]}}), nil
	case strings.EqualFold(q, "select alltypes"):
		return rowsResult(p.Columns, [][]any{allTypesRow(), make([]any, len(p.Columns))}), nil
	case reSeries.MatchString(q):
		n, _ := strconv.Atoi(reSeries.FindStringSubmatch(q)[1])
		return &stmt.Result{Columns: p.Columns, Rows: &seriesRows{n: int64(n)}}, nil
	case reSleep.MatchString(q):
		secs, _ := strconv.ParseFloat(reSleep.FindStringSubmatch(q)[1], 64)
		select {
		case <-ctx.Done():
			return nil, pgerr.Errorf(pgerr.QueryCanceled, "canceling statement due to user request")
		case <-time.After(time.Duration(secs * float64(time.Second))):
		}
		return rowsResult(p.Columns, [][]any{{""}}), nil
	case reShow.MatchString(q):
		name := strings.ToLower(reShow.FindStringSubmatch(q)[1])
		return &stmt.Result{Columns: p.Columns, Rows: newSliceRows(p.Columns, [][]any{{"fake-" + name}}, "SHOW")}, nil
	case strings.EqualFold(q, "select panic"):
		panic("fake session panic")
	case reDelete.MatchString(q):
		id, err := intArg(reDelete.FindStringSubmatch(q)[1], params)
		if err != nil {
			return nil, err
		}
		n := 0
		if id >= 1 && id <= fakeRows {
			n = 1
		}
		return &stmt.Result{Tag: fmt.Sprintf("DELETE %d", n)}, nil
	case reSet.MatchString(q):
		m := reSet.FindStringSubmatch(q)
		res := &stmt.Result{Tag: "SET"}
		if strings.EqualFold(m[1], "application_name") {
			res.ParameterChanges = []stmt.ParameterChange{{Name: "application_name", Value: m[2]}}
		}
		return res, nil
	case reDropIfExst.MatchString(q):
		return &stmt.Result{Tag: "DROP TABLE", Notices: []stmt.Notice{{Severity: "NOTICE", Code: pgerr.SuccessfulCompletion, Message: "table does not exist, skipping"}}}, nil
	case reCopyIn.MatchString(q):
		return &stmt.Result{CopyIn: &stmt.CopyIn{Columns: 3, Load: s.load}}, nil
	case reCopyOut.MatchString(q):
		var rows [][]any
		for g := int64(1); g <= 3; g++ {
			rows = append(rows, []any{g, "a\tb,\"c\"\n" + strconv.FormatInt(g, 10), nil})
		}
		return &stmt.Result{Columns: p.Columns, Rows: newSliceRows(p.Columns, rows, "COPY 3"), CopyOut: true,
			CopyCSV: strings.HasSuffix(strings.ToLower(q), "csv")}, nil
	}
	return s.txCommand(q)
}

func (s *fakeSession) txCommand(q string) (*stmt.Result, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch strings.ToUpper(q) {
	case "BEGIN":
		s.tx = stmt.TxActive
		return &stmt.Result{Tag: "BEGIN"}, nil
	case "COMMIT":
		tag := "COMMIT"
		if s.tx == stmt.TxFailed {
			tag = "ROLLBACK"
		}
		s.tx = stmt.TxIdle
		return &stmt.Result{Tag: tag}, nil
	case "ROLLBACK":
		s.tx = stmt.TxIdle
		return &stmt.Result{Tag: "ROLLBACK"}, nil
	}
	return nil, pgerr.Errorf(pgerr.FeatureNotSupported, "fake session cannot run %q", q)
}

func (s *fakeSession) load(ctx context.Context, r io.Reader) (int64, error) {
	sc := bufio.NewScanner(r)
	var n int64
	for sc.Scan() {
		if err := ctx.Err(); err != nil {
			return n, err
		}
		line := sc.Text()
		if line == `\.` {
			break
		}
		if strings.Count(line, "\t") != 2 {
			return n, pgerr.Errorf(pgerr.InvalidTextRepresentation, "missing data for column in line %d", n+1)
		}
		s.mu.Lock()
		s.copied = append(s.copied, line)
		s.mu.Unlock()
		n++
	}
	if err := sc.Err(); err != nil {
		return n, err
	}
	return n, ctx.Err()
}

func intArg(lit string, params []stmt.Param) (int64, error) {
	if lit != "$1" {
		return strconv.ParseInt(lit, 10, 64)
	}
	switch v := params[0].(type) {
	case int64:
		return v, nil
	case string:
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return 0, pgerr.Errorf(pgerr.InvalidTextRepresentation, "invalid input syntax for type bigint: %q", v)
		}
		return n, nil
	}
	return 0, pgerr.Errorf(pgerr.DatatypeMismatch, "bad parameter %T", params[0])
}

func rowsResult(cols []stmt.Column, rows [][]any) *stmt.Result {
	return &stmt.Result{Columns: cols, Rows: newSliceRows(cols, rows, fmt.Sprintf("SELECT %d", len(rows)))}
}

// sliceRows serves fixed rows as one Arrow batch.
type sliceRows struct {
	batch arrow.RecordBatch
	tag   string
	sent  bool
}

func newSliceRows(cols []stmt.Column, rows [][]any, tag string) *sliceRows {
	mem := memory.NewGoAllocator()
	fields := make([]arrow.Field, len(cols))
	for i, c := range cols {
		fields[i] = arrow.Field{Name: c.Name, Type: c.Type.ArrowType(), Nullable: true}
	}
	b := array.NewRecordBuilder(mem, arrow.NewSchema(fields, nil))
	for _, row := range rows {
		for j, v := range row {
			appendFakeValue(b.Field(j), cols[j].Type, v)
		}
	}
	return &sliceRows{batch: b.NewRecordBatch(), tag: tag}
}

func (r *sliceRows) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if r.sent {
		return nil, io.EOF
	}
	r.sent = true
	return r.batch, nil
}
func (r *sliceRows) Tag() string  { return r.tag }
func (r *sliceRows) Close() error { return nil }

// seriesRows produces 1..n in batches of 1000.
type seriesRows struct {
	n, next int64
	batch   arrow.RecordBatch
}

func (r *seriesRows) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if r.next >= r.n {
		return nil, io.EOF
	}
	b := array.NewInt64Builder(memory.NewGoAllocator())
	for k := 0; k < 1000 && r.next < r.n; k++ {
		r.next++
		b.Append(r.next)
	}
	schema := arrow.NewSchema([]arrow.Field{{Name: "generate_series", Type: arrow.PrimitiveTypes.Int64}}, nil)
	r.batch = array.NewRecordBatch(schema, []arrow.Array{b.NewArray()}, -1)
	return r.batch, nil
}
func (r *seriesRows) Tag() string  { return fmt.Sprintf("SELECT %d", r.n) }
func (r *seriesRows) Close() error { return nil }

// allTypesRow is one value of every SQL type, in allTypesColumns order.
func allTypesColumns() []stmt.Column {
	names := []string{"bool", "int2", "int4", "int8", "float4", "float8", "numeric", "text", "varchar", "bytea", "date", "time", "timestamp", "timestamptz", "uuid", "json", "oid"}
	cols := make([]stmt.Column, len(names))
	for i, n := range names {
		cols[i] = stmt.Column{Name: "c_" + n, Type: fakeTypes[n]}
	}
	return cols
}

var fakeUUID = [16]byte{0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0, 0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef}

func allTypesRow() []any {
	ts := time.Date(2024, 1, 2, 3, 4, 5, 123456000, time.UTC)
	return []any{true, int64(-12), int64(123456), int64(-9000000000), float64(float32(1.5)), 0.1, "12345.6789", "héllo", "vc",
		[]byte{0xde, 0xad, 0x00}, time.Date(1999, 12, 31, 0, 0, 0, 0, time.UTC), time.Date(0, 1, 1, 13, 14, 15, 500000000, time.UTC),
		ts, ts, fakeUUID, `{"a": [1, 2]}`, int64(16385)}
}

// appendFakeValue appends an stmt.Param-style value (as the wire decodes it)
// to an Arrow builder of type t.
func appendFakeValue(b array.Builder, t sql.Type, v any) {
	if v == nil {
		b.AppendNull()
		return
	}
	if s, ok := v.(string); ok && t.Kind != sql.KindText && t.Kind != sql.KindVarchar && t.Kind != sql.KindJSON && t.Kind != sql.KindNumeric {
		v = parseFakeText(t, s)
	}
	switch bb := b.(type) {
	case *array.BooleanBuilder:
		bb.Append(v.(bool))
	case *array.Int16Builder:
		bb.Append(int16(v.(int64)))
	case *array.Int32Builder:
		switch x := v.(type) {
		case int32:
			bb.Append(x)
		default:
			bb.Append(int32(x.(int64)))
		}
	case *array.Int64Builder:
		bb.Append(v.(int64))
	case *array.Uint32Builder:
		bb.Append(uint32(v.(int64)))
	case *array.Float32Builder:
		bb.Append(float32(v.(float64)))
	case *array.Float64Builder:
		bb.Append(v.(float64))
	case *array.Decimal128Builder:
		n, err := decimal128.FromString(v.(string), int32(t.Precision), int32(t.Scale))
		if err != nil {
			panic(err)
		}
		bb.Append(n)
	case *array.StringBuilder:
		bb.Append(v.(string))
	case *array.BinaryBuilder:
		bb.Append(v.([]byte))
	case *array.Date32Builder:
		bb.Append(arrow.Date32(v.(time.Time).Unix() / 86400))
	case *array.Time64Builder:
		tm := v.(time.Time)
		bb.Append(arrow.Time64(int64(tm.Hour())*3600e6 + int64(tm.Minute())*60e6 + int64(tm.Second())*1e6 + int64(tm.Nanosecond()/1000)))
	case *array.TimestampBuilder:
		bb.Append(arrow.Timestamp(v.(time.Time).UnixMicro()))
	case *extensions.UUIDBuilder:
		bb.AppendBytes(v.([16]byte))
	default:
		panic(fmt.Sprintf("fake: no builder for %T", b))
	}
}

func parseFakeText(t sql.Type, s string) any {
	switch t.Kind {
	case sql.KindBool:
		return s == "t" || s == "true"
	case sql.KindInt16, sql.KindInt32, sql.KindInt64, sql.KindOID:
		n, _ := strconv.ParseInt(s, 10, 64)
		return n
	case sql.KindFloat32, sql.KindFloat64:
		f, _ := strconv.ParseFloat(s, 64)
		return f
	case sql.KindBytea:
		b, _ := hex.DecodeString(strings.TrimPrefix(s, `\x`))
		return b
	case sql.KindUUID:
		b, _ := hex.DecodeString(strings.ReplaceAll(s, "-", ""))
		return [16]byte(b)
	case sql.KindDate, sql.KindTimestamp, sql.KindTimestampTZ, sql.KindTime:
		for _, layout := range []string{"2006-01-02 15:04:05.999999999Z07:00", "2006-01-02 15:04:05.999999999Z07", "2006-01-02 15:04:05.999999999", "2006-01-02", "15:04:05.999999999"} {
			if tm, err := time.Parse(layout, s); err == nil {
				return tm.UTC()
			}
		}
		panic("fake: bad time literal " + s)
	}
	return s
}
