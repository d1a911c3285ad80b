package remote

import (
	"context"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/stmt"
)

// query is one Query in flight: what its answer has said so far.
type query struct {
	s          *Session
	set        *resultSet // the last result with rows
	tag        string
	err        error // the first ErrorResponse, or a broken row
	changes    []stmt.ParameterChange
	notices    []stmt.Notice
	stopCancel func()
}

// answer reads messages until ReadyForQuery, or until the server asks for
// or starts sending COPY data.
func (q *query) answer() (*stmt.Result, error) {
	for {
		msg, err := q.s.receive()
		if err != nil {
			q.stopCancel()
			return nil, q.failure(err)
		}
		switch m := msg.(type) {
		case *pgproto3.CopyInResponse:
			return q.copyIn(m), nil
		case *pgproto3.CopyOutResponse:
			return q.copyOut(m), nil
		case *pgproto3.CopyBothResponse:
			q.stopCancel()
			q.s.conn.Close(context.Background()) // replication is no shell's business
			return nil, pgerr.Errorf(pgerr.FeatureNotSupported, "COPY BOTH (replication) is not supported by the shell")
		case *pgproto3.ReadyForQuery:
			q.stopCancel()
			return q.outcome()
		default:
			q.take(msg)
		}
	}
}

// take records one message of the answer.
func (q *query) take(msg pgproto3.BackendMessage) {
	switch m := msg.(type) {
	case *pgproto3.RowDescription:
		q.set = newResultSet(m.Fields)
	case *pgproto3.DataRow:
		if q.set == nil {
			q.fail(pgerr.Errorf(pgerr.ProtocolViolation, "the server sent a row without a row description"))
		} else if err := q.set.add(m.Values); err != nil {
			q.fail(err)
		}
	case *pgproto3.CommandComplete:
		q.tag = string(m.CommandTag)
	case *pgproto3.ErrorResponse:
		q.fail(errorFrom(m))
	case *pgproto3.NoticeResponse:
		q.s.report(m, &q.notices)
	case *pgproto3.ParameterStatus:
		q.changes = append(q.changes, stmt.ParameterChange{Name: m.Name, Value: m.Value})
	}
}

func (q *query) fail(err error) {
	if q.err == nil {
		q.err = err
	}
}

// failure is the error of a query whose connection broke: the server's
// own error when it sent one first (a FATAL before closing), else the loss.
func (q *query) failure(lost error) error {
	if q.err != nil {
		return q.err
	}
	return lost
}

// outcome is the finished query's Result.
func (q *query) outcome() (*stmt.Result, error) {
	if q.err != nil {
		return nil, q.err
	}
	res := &stmt.Result{ParameterChanges: q.changes, Notices: q.notices}
	if q.set == nil {
		res.Tag = q.tag
		return res, nil
	}
	cols, batch := q.set.batch()
	res.Columns, res.Rows = cols, &rows{batch: batch, tag: q.tag}
	return res, nil
}

// rows serves a complete result as stmt.Rows.
type rows struct {
	batch arrow.RecordBatch
	tag   string
	read  bool
}

func (r *rows) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if err := ctx.Err(); err != nil {
		return nil, pgerr.Canceled(err)
	}
	if r.read || r.batch == nil {
		return nil, io.EOF
	}
	r.read = true
	return r.batch, nil
}

func (r *rows) Tag() string { return r.tag }

func (r *rows) Close() error {
	if r.batch != nil {
		r.batch.Release()
		r.batch = nil
	}
	return nil
}
