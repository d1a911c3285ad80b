package repl

import (
	"errors"
	"fmt"
	"net"

	"github.com/jackc/pgx/v5/pgproto3"
)

// pgClient is a minimal simple-query client over pgproto3, enough to read
// PostgreSQL's own text results and errors as the reference data of tests.
type pgClient struct {
	conn     net.Conn
	fe       *pgproto3.Frontend
	txStatus byte // from the last ReadyForQuery
}

// pgResult is one statement's outcome.
type pgResult struct {
	fields []pgproto3.FieldDescription
	rows   [][][]byte // nil value = NULL
	tag    string
	err    *pgproto3.ErrorResponse
}

func dialPG(socket string) (*pgClient, error) {
	conn, err := net.Dial("unix", socket)
	if err != nil {
		return nil, err
	}
	c := &pgClient{conn: conn, fe: pgproto3.NewFrontend(conn, conn)}
	c.fe.Send(&pgproto3.StartupMessage{
		ProtocolVersion: pgproto3.ProtocolVersionNumber,
		Parameters:      map[string]string{"user": "postgres", "database": "postgres", "client_encoding": "UTF8"},
	})
	if err := c.fe.Flush(); err != nil {
		conn.Close()
		return nil, err
	}
	if _, err := c.untilReady(); err != nil {
		conn.Close()
		return nil, fmt.Errorf("startup: %w", err)
	}
	return c, nil
}

// query runs a simple query and returns one result per statement.
func (c *pgClient) query(q string) ([]pgResult, error) {
	c.fe.Send(&pgproto3.Query{String: q})
	if err := c.fe.Flush(); err != nil {
		return nil, err
	}
	return c.untilReady()
}

func (c *pgClient) untilReady() ([]pgResult, error) {
	var out []pgResult
	cur := pgResult{}
	for {
		msg, err := c.fe.Receive()
		if err != nil {
			return nil, err
		}
		switch m := msg.(type) {
		case *pgproto3.RowDescription:
			cur.fields = append([]pgproto3.FieldDescription(nil), m.Fields...)
		case *pgproto3.DataRow:
			row := make([][]byte, len(m.Values))
			for i, v := range m.Values {
				if v != nil {
					row[i] = append([]byte{}, v...)
				}
			}
			cur.rows = append(cur.rows, row)
		case *pgproto3.CommandComplete:
			cur.tag = string(m.CommandTag)
			out, cur = append(out, cur), pgResult{}
		case *pgproto3.ErrorResponse:
			e := *m
			cur.err = &e
			out, cur = append(out, cur), pgResult{}
		case *pgproto3.AuthenticationSASL, *pgproto3.AuthenticationMD5Password, *pgproto3.AuthenticationCleartextPassword:
			return nil, errors.New("test cluster must use trust authentication")
		case *pgproto3.ReadyForQuery:
			c.txStatus = m.TxStatus
			return out, nil
		}
	}
}

func (c *pgClient) close() {
	c.fe.Send(&pgproto3.Terminate{})
	c.fe.Flush()
	c.conn.Close()
}
