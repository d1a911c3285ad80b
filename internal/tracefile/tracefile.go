// Package tracefile reads the golden client traces in
// internal/e2e/testdata/traces (recorded from real clients against
// PostgreSQL 15): the end-to-end replay and the wire fuzzer's seeds share it.
package tracefile

import (
	"encoding/json"
	"fmt"

	"github.com/jackc/pgx/v5/pgproto3"
)

// FrontendMessage decodes a client message of a trace: pgproto3's JSON form,
// except SASL data, which the tracing proxy logged as text where pgproto3's
// own form is hex.
func FrontendMessage(raw json.RawMessage) (pgproto3.FrontendMessage, error) {
	var head struct{ Type, AuthMechanism, Data string }
	if err := json.Unmarshal(raw, &head); err != nil {
		return nil, err
	}
	var m pgproto3.FrontendMessage
	switch head.Type {
	case "SSLRequest":
		return &pgproto3.SSLRequest{}, nil
	case "SASLInitialResponse":
		return &pgproto3.SASLInitialResponse{AuthMechanism: head.AuthMechanism, Data: []byte(head.Data)}, nil
	case "SASLResponse":
		return &pgproto3.SASLResponse{Data: []byte(head.Data)}, nil
	case "StartupMessage":
		m = &pgproto3.StartupMessage{}
	case "CancelRequest":
		m = &pgproto3.CancelRequest{}
	case "Query":
		m = &pgproto3.Query{}
	case "Parse":
		m = &pgproto3.Parse{}
	case "Bind":
		m = &pgproto3.Bind{}
	case "Describe":
		m = &pgproto3.Describe{}
	case "Execute":
		m = &pgproto3.Execute{}
	case "Close":
		m = &pgproto3.Close{}
	case "Sync":
		m = &pgproto3.Sync{}
	case "Flush":
		m = &pgproto3.Flush{}
	case "Terminate":
		m = &pgproto3.Terminate{}
	default:
		return nil, fmt.Errorf("client message %s is not replayable", head.Type)
	}
	if err := json.Unmarshal(raw, m); err != nil {
		return nil, fmt.Errorf("decode %s: %w", head.Type, err)
	}
	return m, nil
}
