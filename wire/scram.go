package wire

import (
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/magmalake/magmalake/pgerr"
)

const (
	scramMechanism  = "SCRAM-SHA-256"
	scramIterations = 4096 // PostgreSQL's scram_iterations default
)

// scramVerifier is PostgreSQL's stored form of a SCRAM-SHA-256 secret.
type scramVerifier struct {
	iterations int
	salt       []byte
	storedKey  []byte
	serverKey  []byte
}

// ScramVerifier returns a SCRAM-SHA-256 verifier for password with a fresh
// random salt, in PostgreSQL's format:
// SCRAM-SHA-256$<iter>:<salt>$<storedkey>:<serverkey>.
func ScramVerifier(password string) string {
	salt := make([]byte, 16)
	if _, err := rand.Read(salt); err != nil {
		panic(fmt.Sprintf("crypto/rand: %v", err)) // rand.Read never fails on supported platforms
	}
	return newVerifier(password, salt, scramIterations).String()
}

func newVerifier(password string, salt []byte, iterations int) scramVerifier {
	salted, err := pbkdf2.Key(sha256.New, password, salt, iterations, sha256.Size)
	if err != nil {
		panic(fmt.Sprintf("pbkdf2: %v", err)) // only for invalid key lengths
	}
	clientKey := hmacSHA256(salted, "Client Key")
	stored := sha256.Sum256(clientKey)
	return scramVerifier{iterations: iterations, salt: salt, storedKey: stored[:], serverKey: hmacSHA256(salted, "Server Key")}
}

func (v scramVerifier) String() string {
	b64 := base64.StdEncoding.EncodeToString
	return fmt.Sprintf("%s$%d:%s$%s:%s", scramMechanism, v.iterations, b64(v.salt), b64(v.storedKey), b64(v.serverKey))
}

func (v scramVerifier) matchesPassword(password string) bool {
	w := newVerifier(password, v.salt, v.iterations)
	return subtle.ConstantTimeCompare(w.storedKey, v.storedKey) == 1
}

func isScramVerifier(secret string) bool { return strings.HasPrefix(secret, scramMechanism+"$") }

func parseVerifier(s string) (scramVerifier, error) {
	bad := func(why string) (scramVerifier, error) {
		return scramVerifier{}, fmt.Errorf("invalid SCRAM verifier: %s", why)
	}
	parts := strings.Split(strings.TrimPrefix(s, scramMechanism+"$"), "$")
	if len(parts) != 2 {
		return bad("want SCRAM-SHA-256$<iter>:<salt>$<storedkey>:<serverkey>")
	}
	iterSalt := strings.Split(parts[0], ":")
	keys := strings.Split(parts[1], ":")
	if len(iterSalt) != 2 || len(keys) != 2 {
		return bad("want SCRAM-SHA-256$<iter>:<salt>$<storedkey>:<serverkey>")
	}
	iter, err := strconv.Atoi(iterSalt[0])
	if err != nil || iter <= 0 {
		return bad("iteration count")
	}
	var v scramVerifier
	v.iterations = iter
	dec := base64.StdEncoding.DecodeString
	if v.salt, err = dec(iterSalt[1]); err != nil {
		return bad("salt")
	}
	if v.storedKey, err = dec(keys[0]); err != nil || len(v.storedKey) != sha256.Size {
		return bad("stored key")
	}
	if v.serverKey, err = dec(keys[1]); err != nil || len(v.serverKey) != sha256.Size {
		return bad("server key")
	}
	return v, nil
}

func hmacSHA256(key []byte, msg string) []byte {
	h := hmac.New(sha256.New, key)
	h.Write([]byte(msg))
	return h.Sum(nil)
}

// authSCRAM runs the server side of RFC 7677 without channel binding.
func (h *handshake) authSCRAM(user, secret string, known bool) error {
	v, err := h.verifierFor(secret, known)
	if err != nil {
		return err
	}
	h.t.send(&pgproto3.AuthenticationSASL{AuthMechanisms: []string{scramMechanism}})
	first, err := h.receiveAuth(pgproto3.AuthTypeSASL)
	if err != nil {
		return err
	}
	init, ok := first.(*pgproto3.SASLInitialResponse)
	if !ok || init.AuthMechanism != scramMechanism {
		return pgerr.Errorf(pgerr.ProtocolViolation, "client selected an invalid SASL authentication mechanism")
	}
	gs2, clientFirstBare, clientNonce, err := parseClientFirst(string(init.Data))
	if err != nil {
		return err
	}
	nonce := clientNonce + randomNonce()
	serverFirst := fmt.Sprintf("r=%s,s=%s,i=%d", nonce, base64.StdEncoding.EncodeToString(v.salt), v.iterations)
	h.t.send(&pgproto3.AuthenticationSASLContinue{Data: []byte(serverFirst)})
	final, err := h.receiveAuth(pgproto3.AuthTypeSASLContinue)
	if err != nil {
		return err
	}
	resp, ok := final.(*pgproto3.SASLResponse)
	if !ok {
		return pgerr.Errorf(pgerr.ProtocolViolation, "expected SASL response, got %T", final)
	}
	withoutProof, proof, err := parseClientFinal(string(resp.Data), gs2, nonce)
	if err != nil {
		return err
	}
	authMessage := clientFirstBare + "," + serverFirst + "," + withoutProof
	clientSig := hmacSHA256(v.storedKey, authMessage)
	clientKey := make([]byte, len(proof))
	for i := range proof {
		clientKey[i] = proof[i] ^ clientSig[i]
	}
	stored := sha256.Sum256(clientKey)
	if !known || subtle.ConstantTimeCompare(stored[:], v.storedKey) != 1 {
		return authFailed(user)
	}
	serverSig := hmacSHA256(v.serverKey, authMessage)
	h.t.send(&pgproto3.AuthenticationSASLFinal{Data: []byte("v=" + base64.StdEncoding.EncodeToString(serverSig))})
	return nil
}

// verifierFor derives a verifier for a plain password, or a random one for an
// unknown user so the exchange looks the same.
func (h *handshake) verifierFor(secret string, known bool) (scramVerifier, error) {
	switch {
	case !known:
		return newVerifier(randomNonce(), []byte(randomNonce()[:16]), scramIterations), nil
	case isScramVerifier(secret):
		return parseVerifier(secret)
	}
	salt := sha256.Sum256([]byte("magmalake:" + h.info.User))
	return newVerifier(secret, salt[:16], scramIterations), nil
}

func randomNonce() string {
	b := make([]byte, 18)
	if _, err := rand.Read(b); err != nil {
		panic(fmt.Sprintf("crypto/rand: %v", err))
	}
	return base64.StdEncoding.EncodeToString(b)
}

var errMalformedSCRAM = pgerr.Errorf(pgerr.ProtocolViolation, "malformed SCRAM message")

// parseClientFirst splits "n,,n=user,r=nonce" into the GS2 header, the bare
// message and the client nonce. The SCRAM user name is ignored: the startup
// user counts (pgjdbc sends "*").
func parseClientFirst(msg string) (gs2, bare, nonce string, err error) {
	if len(msg) < 3 || (msg[0] != 'n' && msg[0] != 'y') {
		if strings.HasPrefix(msg, "p") {
			return "", "", "", pgerr.Errorf(pgerr.ProtocolViolation, "channel binding is not supported")
		}
		return "", "", "", errMalformedSCRAM
	}
	i := strings.Index(msg[2:], ",")
	if msg[1] != ',' || i < 0 {
		return "", "", "", errMalformedSCRAM
	}
	gs2, bare = msg[:i+3], msg[i+3:]
	for _, attr := range strings.Split(bare, ",") {
		if strings.HasPrefix(attr, "r=") {
			nonce = attr[2:]
		}
	}
	if nonce == "" {
		return "", "", "", errMalformedSCRAM
	}
	return gs2, bare, nonce, nil
}

// parseClientFinal checks "c=<b64 gs2>,r=<nonce>,p=<proof>" and returns the
// part before the proof and the decoded proof.
func parseClientFinal(msg, gs2, nonce string) (string, []byte, error) {
	i := strings.LastIndex(msg, ",p=")
	if i < 0 {
		return "", nil, errMalformedSCRAM
	}
	withoutProof := msg[:i]
	proof, err := base64.StdEncoding.DecodeString(msg[i+3:])
	if err != nil || len(proof) != sha256.Size {
		return "", nil, errMalformedSCRAM
	}
	var gotC, gotR string
	for _, attr := range strings.Split(withoutProof, ",") {
		switch {
		case strings.HasPrefix(attr, "c="):
			gotC = attr[2:]
		case strings.HasPrefix(attr, "r="):
			gotR = attr[2:]
		}
	}
	if gotC != base64.StdEncoding.EncodeToString([]byte(gs2)) {
		return "", nil, errors.Join(errMalformedSCRAM, errors.New("channel binding mismatch"))
	}
	if gotR != nonce {
		return "", nil, pgerr.Errorf(pgerr.ProtocolViolation, "SCRAM nonce mismatch")
	}
	return withoutProof, proof, nil
}
