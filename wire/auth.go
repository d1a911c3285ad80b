package wire

import (
	"bufio"
	"crypto/md5"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"os"
	"strings"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/magmalake/magmalake/sql"
)

// LoadUsers reads a users file: one "user:secret" per line, the secret being a
// plain password or a SCRAM-SHA-256 verifier; blank lines and # comments are
// skipped.
func LoadUsers(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("load users: %w", err)
	}
	defer f.Close()
	users := map[string]string{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		user, secret, ok := strings.Cut(line, ":")
		if !ok || user == "" {
			return nil, fmt.Errorf("load users: %s line %d: want user:secret", path, n)
		}
		if isScramVerifier(secret) {
			if _, err := parseVerifier(secret); err != nil {
				return nil, fmt.Errorf("load users: %s line %d: %w", path, n, err)
			}
		}
		users[user] = secret
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("load users: %s: %w", path, err)
	}
	return users, nil
}

func authFailed(user string) error {
	return &sql.Error{Code: sql.CodeInvalidPassword, Severity: "FATAL",
		Message: fmt.Sprintf("password authentication failed for user %q", user)}
}

// authenticate runs the configured method; an error means the login failed.
// Unknown users go through the same exchange and fail at its end, so that a
// client cannot probe which users exist.
func (c *conn) authenticate() error {
	user := c.info.User
	secret, known := c.srv.cfg.Users[user]
	switch c.srv.cfg.Auth {
	case AuthTrust:
		return nil
	case AuthPassword:
		pw, err := c.askPassword(&pgproto3.AuthenticationCleartextPassword{}, pgproto3.AuthTypeCleartextPassword)
		if err != nil {
			return err
		}
		if !known || !passwordMatches(secret, pw) {
			return authFailed(user)
		}
		return nil
	case AuthMD5:
		if known && !isScramVerifier(secret) {
			return c.authMD5(user, secret)
		}
	}
	return c.authSCRAM(user, secret, known)
}

func (c *conn) authMD5(user, password string) error {
	var salt [4]byte
	if _, err := rand.Read(salt[:]); err != nil {
		return fmt.Errorf("md5 salt: %w", err)
	}
	got, err := c.askPassword(&pgproto3.AuthenticationMD5Password{Salt: salt}, pgproto3.AuthTypeMD5Password)
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
func (c *conn) askPassword(req pgproto3.BackendMessage, authType uint32) (string, error) {
	c.send(req)
	if err := c.flush(); err != nil {
		return "", err
	}
	if err := c.be.SetAuthType(authType); err != nil {
		return "", err
	}
	msg, err := c.be.Receive()
	if err != nil {
		return "", fmt.Errorf("read password: %w", err)
	}
	pm, ok := msg.(*pgproto3.PasswordMessage)
	if !ok {
		return "", sql.Errorf(sql.CodeProtocolViolation, "expected password response, got %T", msg)
	}
	return pm.Password, nil
}

// passwordMatches checks a cleartext password against a stored secret.
func passwordMatches(secret, password string) bool {
	if isScramVerifier(secret) {
		v, err := parseVerifier(secret)
		return err == nil && v.matchesPassword(password)
	}
	return subtle.ConstantTimeCompare([]byte(secret), []byte(password)) == 1
}
