package e2e

import (
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/sha256"
	"encoding/base64"
	"strconv"
	"strings"
)

// scramClient answers a SCRAM-SHA-256 exchange whose first message was
// recorded in a trace: the recorded client nonce is reused, the proof is
// computed for this server's salt and our password.
type scramClient struct {
	clientFirstBare string
	serverFirst     string
	password        string
}

// start takes the recorded client-first message ("n,,n=...,r=...").
func (s *scramClient) start(clientFirst, password string) {
	s.password = password
	// Skip the GS2 header: channel-binding flag and authzid.
	parts := strings.SplitN(clientFirst, ",", 3)
	if len(parts) == 3 {
		s.clientFirstBare = parts[2]
	}
}

// final is the client-final message for the server-first message received.
func (s *scramClient) final() string {
	attrs := map[string]string{}
	for _, kv := range strings.Split(s.serverFirst, ",") {
		if k, v, ok := strings.Cut(kv, "="); ok {
			attrs[k] = v
		}
	}
	salt, _ := base64.StdEncoding.DecodeString(attrs["s"])
	iter, _ := strconv.Atoi(attrs["i"])
	withoutProof := "c=biws,r=" + attrs["r"]
	salted, err := pbkdf2.Key(sha256.New, s.password, salt, iter, sha256.Size)
	if err != nil {
		return withoutProof + ",p="
	}
	clientKey := hmacSHA256(salted, "Client Key")
	stored := sha256.Sum256(clientKey)
	sig := hmacSHA256(stored[:], s.clientFirstBare+","+s.serverFirst+","+withoutProof)
	proof := make([]byte, len(clientKey))
	for i := range proof {
		proof[i] = clientKey[i] ^ sig[i]
	}
	return withoutProof + ",p=" + base64.StdEncoding.EncodeToString(proof)
}

func hmacSHA256(key []byte, msg string) []byte {
	h := hmac.New(sha256.New, key)
	h.Write([]byte(msg))
	return h.Sum(nil)
}
