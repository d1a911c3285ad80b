package wire

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/magmalake/magmalake/pgerr"
	"github.com/magmalake/magmalake/stmt"
)

// Startup packet codes (the first int32 after the length).
const (
	codeSSLRequest    = 80877103
	codeGSSENCRequest = 80877104
	codeCancelRequest = 80877102
	maxStartupPacket  = 10_000 // PostgreSQL's MAX_STARTUP_PACKET_LENGTH
)

var errCancelHandled = errors.New("cancel request handled")

// handshake is a connection's start up to a successful login: SSL and GSS
// encryption negotiation, the startup packet and its protocol version, and
// the configured authentication exchange (auth.go, scram.go).
type handshake struct {
	srv *Server
	t   *transport
	// ctx is the connection's: it bounds the TLS handshake and tells a client
	// that went away from one that sent a bad message.
	ctx  context.Context
	info stmt.SessionInfo // the startup packet's, once it is valid
}

// login checks the encryption and the startup parameters, then
// authenticates the user; an error is the FATAL to send.
func (h *handshake) login(params map[string]string) error {
	if err := h.checkEncryption(); err != nil {
		return err
	}
	info, err := sessionInfo(params)
	if err != nil {
		return err
	}
	h.info = info
	return h.authenticate()
}

// checkEncryption refuses a plaintext client when TLS is required, before
// any password crosses the network.
func (h *handshake) checkEncryption() error {
	if h.t.isTLS() || !h.srv.cfg.TLSRequired {
		return nil
	}
	return &pgerr.Error{Code: pgerr.InvalidAuthorizationSpecification, Severity: "FATAL",
		Message: "no encryption: this server requires TLS", Hint: "Connect with sslmode=require (or verify-ca, verify-full)."}
}

// readStartup reads packets until a StartupMessage, answering SSLRequest and
// GSSENCRequest on the way, and handling a CancelRequest completely.
func (h *handshake) readStartup() (map[string]string, error) {
	for {
		body, err := readPacket(h.t.nc)
		if err != nil {
			return nil, err
		}
		code := binary.BigEndian.Uint32(body)
		switch {
		case code == codeSSLRequest && len(body) == 4:
			if err := h.answerSSL(); err != nil {
				return nil, err
			}
		case code == codeGSSENCRequest && len(body) == 4:
			if _, err := h.t.nc.Write([]byte{'N'}); err != nil {
				return nil, fmt.Errorf("answer GSSENCRequest: %w", err)
			}
		case code == codeCancelRequest && len(body) >= 12:
			h.srv.cancel(binary.BigEndian.Uint32(body[4:]), body[8:])
			return nil, errCancelHandled
		case code>>16 == 3:
			return h.startupParams(code, body[4:])
		default:
			err := pgerr.Errorf(pgerr.FeatureNotSupported, "unsupported frontend protocol %d.%d: server supports 3.0 to 3.0", code>>16, code&0xffff)
			h.t.sendFatalErr(err)
			return nil, err
		}
	}
}

// readPacket reads one length-prefixed startup-phase packet.
func readPacket(r io.Reader) ([]byte, error) {
	var hdr [4]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return nil, fmt.Errorf("read startup packet: %w", err)
	}
	n := int(int32(binary.BigEndian.Uint32(hdr[:])))
	if n < 8 || n > maxStartupPacket {
		return nil, fmt.Errorf("invalid startup packet length %d", n)
	}
	body := make([]byte, n-4)
	if _, err := io.ReadFull(r, body); err != nil {
		return nil, fmt.Errorf("read startup packet: %w", err)
	}
	return body, nil
}

// answerSSL answers an SSLRequest and, when it is 'S', runs the TLS
// handshake: the rest of the connection goes over TLS.
func (h *handshake) answerSSL() error {
	if h.srv.cfg.TLS == nil || h.t.isTLS() {
		_, err := h.t.nc.Write([]byte{'N'})
		return err
	}
	if _, err := h.t.nc.Write([]byte{'S'}); err != nil {
		return fmt.Errorf("answer SSLRequest: %w", err)
	}
	tc := tls.Server(h.t.nc, h.srv.cfg.TLS)
	if err := tc.HandshakeContext(h.ctx); err != nil {
		return fmt.Errorf("TLS handshake: %w", err)
	}
	h.t.nc = tc
	return nil
}

// startupParams decodes name/value pairs and negotiates the protocol version:
// a newer 3.x minor or unknown _pq_ options get NegotiateProtocolVersion.
func (h *handshake) startupParams(version uint32, b []byte) (map[string]string, error) {
	params := map[string]string{}
	var unknown []string
	for len(b) > 0 && b[0] != 0 {
		k, rest, ok1 := bytes.Cut(b, []byte{0})
		v, rest2, ok2 := bytes.Cut(rest, []byte{0})
		if !ok1 || !ok2 {
			err := pgerr.Errorf(pgerr.ProtocolViolation, "invalid startup packet layout: expected terminator as last byte")
			h.t.sendFatalErr(err)
			return nil, err
		}
		if strings.HasPrefix(string(k), "_pq_.") {
			unknown = append(unknown, string(k))
		} else {
			params[string(k)] = string(v)
		}
		b = rest2
	}
	if version&0xffff != 0 || len(unknown) > 0 {
		h.t.send(&pgproto3.NegotiateProtocolVersion{NewestMinorProtocol: 0, UnrecognizedOptions: unknown})
	}
	return params, nil
}

func sessionInfo(params map[string]string) (stmt.SessionInfo, error) {
	user := params["user"]
	if user == "" {
		return stmt.SessionInfo{}, pgerr.Errorf(pgerr.InvalidAuthorizationSpecification, "no PostgreSQL user name specified in startup packet")
	}
	info := stmt.SessionInfo{User: user, Database: params["database"], ApplicationName: params["application_name"], Options: map[string]string{}}
	if info.Database == "" {
		info.Database = user
	}
	for k, v := range params {
		if k != "user" && k != "database" && k != "application_name" {
			info.Options[k] = v
		}
	}
	return info, nil
}
