package wire

import (
	"bufio"
	"crypto/md5"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/magmalake/magmalake/pgerr"
)

// LoadUsers reads a users file: one "user:secret" per line, the secret being a
// plain password or a SCRAM-SHA-256 verifier; blank lines and # comments are
// skipped. A line whose secret an empty password satisfies is refused.
func LoadUsers(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("users file: %w", err)
	}
	defer f.Close()
	users := map[string]string{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		user, secret, err := parseUserLine(line)
		if err != nil {
			return nil, fmt.Errorf("users file line %d: %w", n, err)
		}
		users[user] = secret
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("users file %s: %w", path, err)
	}
	return users, nil
}

var errEmptySecret = errors.New("empty secret")

// parseUserLine splits and checks one "user:secret" line.
func parseUserLine(line string) (user, secret string, err error) {
	user, secret, ok := strings.Cut(line, ":")
	if !ok || user == "" {
		return "", "", errors.New("want user:secret")
	}
	if err := checkSecret(secret); err != nil {
		return "", "", err
	}
	return user, secret, nil
}

// checkSecret refuses a secret that an empty password satisfies: an empty
// one, or the SCRAM verifier of the empty password. PostgreSQL never lets an
// empty password in either.
func checkSecret(secret string) error {
	if secret == "" {
		return errEmptySecret
	}
	if !isScramVerifier(secret) {
		return nil
	}
	v, err := parseVerifier(secret)
	if err != nil {
		return err
	}
	if v.matchesPassword("") {
		return fmt.Errorf("%w (the SCRAM verifier of an empty password)", errEmptySecret)
	}
	return nil
}

// loginUsers is cfg.Users without the entries checkSecret refuses: those
// users cannot log in (28P01), as if they did not exist.
func loginUsers(users map[string]string, log *slog.Logger) map[string]string {
	out := make(map[string]string, len(users))
	for user, secret := range users {
		if err := checkSecret(secret); err != nil {
			log.Warn("user cannot log in", "user", user, "err", err)
			continue
		}
		out[user] = secret
	}
	return out
}

func authFailed(user string) error {
	return &pgerr.Error{Code: pgerr.InvalidPassword, Severity: "FATAL",
		Message: fmt.Sprintf("password authentication failed for user %q", user)}
}

// authenticate runs the configured method; an error means the login failed.
// Unknown users go through the same exchange and fail at its end, so that a
// client cannot probe which users exist.
func (h *handshake) authenticate() error {
	user := h.info.User
	secret, known := h.srv.cfg.Users[user]
	switch h.srv.cfg.Auth {
	case AuthTrust:
		return nil
	case AuthPassword:
		pw, err := h.askPassword(&pgproto3.AuthenticationCleartextPassword{}, pgproto3.AuthTypeCleartextPassword)
		if err != nil {
			return err
		}
		if !known || pw == "" || !passwordMatches(secret, pw) {
			return authFailed(user)
		}
		return nil
	case AuthMD5:
		if known && !isScramVerifier(secret) {
			return h.authMD5(user, secret)
		}
	}
	return h.authSCRAM(user, secret, known)
}

func (h *handshake) authMD5(user, password string) error {
	var salt [4]byte
	if _, err := rand.Read(salt[:]); err != nil {
		return fmt.Errorf("md5 salt: %w", err)
	}
	got, err := h.askPassword(&pgproto3.AuthenticationMD5Password{Salt: salt}, pgproto3.AuthTypeMD5Password)
	if err != nil {
		return err
	}
	inner := md5.Sum([]byte(password + user))
	outer := md5.Sum(append([]byte(hex.EncodeToString(inner[:])), salt[:]...))
	want := "md5" + hex.EncodeToString(outer[:])
	if subtle.ConstantTimeCompare([]byte(got), []byte(want)) != 1 {
		return authFailed(user)
	}
	return nil
}

// askPassword sends an authentication request and reads the PasswordMessage.
func (h *handshake) askPassword(req pgproto3.BackendMessage, authType uint32) (string, error) {
	h.t.send(req)
	msg, err := h.receiveAuth(authType)
	if err != nil {
		return "", err
	}
	pm, ok := msg.(*pgproto3.PasswordMessage)
	if !ok {
		return "", pgerr.Errorf(pgerr.ProtocolViolation, "expected password response, got %T", msg)
	}
	return pm.Password, nil
}

// receiveAuth flushes the pending authentication request and reads the
// client's answer. A message that does not decode is a protocol violation
// (08P01), which ends the connection as a failed login does.
func (h *handshake) receiveAuth(authType uint32) (pgproto3.FrontendMessage, error) {
	if err := h.t.flush(); err != nil {
		return nil, err
	}
	if err := h.t.be.SetAuthType(authType); err != nil {
		return nil, fmt.Errorf("authentication type %d: %w", authType, err)
	}
	msg, err := h.t.be.Receive()
	if err == nil {
		return msg, nil
	}
	// Decoding errors include io.EOF (a string without its terminator): the
	// socket's own state tells them from a failed read.
	if h.t.rd.failed() || h.ctx.Err() != nil {
		return nil, fmt.Errorf("read authentication response: %w", err)
	}
	return nil, &pgerr.Error{Code: pgerr.ProtocolViolation, Severity: "FATAL",
		Message: "invalid authentication message", Detail: err.Error()}
}

// passwordMatches checks a cleartext password against a stored secret.
func passwordMatches(secret, password string) bool {
	if isScramVerifier(secret) {
		v, err := parseVerifier(secret)
		return err == nil && v.matchesPassword(password)
	}
	return subtle.ConstantTimeCompare([]byte(secret), []byte(password)) == 1
}
