package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgproto3"
)

// traceLine is one line of a golden trace (see shared/design/traces/README.md).
type traceLine struct {
	Dir   string          `json:"dir"`
	Conn  int             `json:"conn"`
	Msg   json.RawMessage `json:"msg"`
	Event string          `json:"event"`
	typ   string
}

// tracesDir is shared/design/traces beside the repository root, or "" when
// it is not there.
func tracesDir(t *testing.T) string {
	t.Helper()
	// Copied from shared/design/traces: the test reads nothing outside the
	// checkout, so it runs (and can fail) in CI.
	return filepath.Join("testdata", "traces")
}

func readTrace(path string) ([]traceLine, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var lines []traceLine
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<22)
	for n := 1; sc.Scan(); n++ {
		var l traceLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		if l.Msg != nil {
			var head struct{ Type string }
			if err := json.Unmarshal(l.Msg, &head); err != nil {
				return nil, fmt.Errorf("%s:%d: %w", path, n, err)
			}
			l.typ = head.Type
		}
		lines = append(lines, l)
	}
	return lines, sc.Err()
}

// shape is what must agree between PostgreSQL's answer and ours: the
// message type and its protocol-relevant fields, never data values that
// legitimately differ (row contents, keys, versions, nonces, table OIDs).
func shape(raw []byte) string {
	var m struct {
		Type           string
		CommandTag     string
		TxStatus       string
		Severity       string
		Code           string
		Position       int32
		Name           string
		Response       string
		AuthMechanisms []string
		ParameterOIDs  []uint32
		Values         []json.RawMessage
		Fields         []struct {
			Name        string
			DataTypeOID uint32
			Format      int16
		}
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		return "undecodable " + string(raw)
	}
	switch m.Type {
	case "CommandComplete":
		return m.Type + " " + m.CommandTag
	case "ReadyForQuery":
		return m.Type + " " + m.TxStatus
	case "ErrorResponse", "NoticeResponse":
		if m.Position != 0 {
			// psql draws its LINE 1 caret from it.
			return fmt.Sprintf("%s %s %s at %d", m.Type, m.Severity, m.Code, m.Position)
		}
		return m.Type + " " + m.Severity + " " + m.Code
	case "ParameterStatus":
		return m.Type + " " + m.Name
	case "SSLResponse":
		return m.Type + " " + m.Response
	case "AuthenticationSASL":
		return m.Type + " " + strings.Join(m.AuthMechanisms, ",")
	case "ParameterDescription":
		return fmt.Sprintf("%s %v", m.Type, m.ParameterOIDs)
	case "DataRow":
		return fmt.Sprintf("%s (%d values)", m.Type, len(m.Values))
	case "RowDescription":
		fs := make([]string, len(m.Fields))
		for i, f := range m.Fields {
			fs[i] = fmt.Sprintf("%s:%d:%d", f.Name, f.DataTypeOID, f.Format)
		}
		return m.Type + " " + strings.Join(fs, " ")
	}
	return m.Type
}

// backendShape is shape of a message our server sent.
func backendShape(msg pgproto3.BackendMessage) string {
	var raw []byte
	var err error
	if n, ok := msg.(*pgproto3.NoticeResponse); ok {
		// NoticeResponse has no JSON form of its own: it is an ErrorResponse.
		raw, err = json.Marshal((*pgproto3.ErrorResponse)(n))
		if err == nil {
			raw = []byte(strings.Replace(string(raw), `"Type":"ErrorResponse"`, `"Type":"NoticeResponse"`, 1))
		}
	} else {
		raw, err = json.Marshal(msg)
	}
	if err != nil {
		return fmt.Sprintf("unencodable %T", msg)
	}
	return shape(raw)
}

// diffShapes renders two shape sequences side by side, marking differences.
func diffShapes(want, got []string) string {
	var b strings.Builder
	for i := 0; i < max(len(want), len(got)); i++ {
		var w, g string
		if i < len(want) {
			w = want[i]
		}
		if i < len(got) {
			g = got[i]
		}
		mark := "  "
		if w != g {
			mark = "≠ "
		}
		fmt.Fprintf(&b, "%s%-60s | %s\n", mark, w, g)
	}
	return b.String()
}

func sameShapes(want, got []string) bool { return slices.Equal(want, got) }
