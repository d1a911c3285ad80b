package s3test

import (
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"
)

// Proxy forwards every request to a real server and records what the
// client asked for: the method, path, query and Range header of each
// request, and the most GETs of object data it had in flight at once. Tests
// use it to see how magmalake talks to object storage (ranged reads,
// multipart uploads) and to act at a precise moment (OnServed).
type Proxy struct {
	*Server // Endpoint is the proxy's; Client and List go to the server

	mu        sync.Mutex
	onRequest func(r *http.Request)
	onServed  func(r *http.Request)
	requests  []Request
	inFlight  int
	maxGets   int
}

// Request is one request the proxy forwarded.
type Request struct {
	Method, Path, Query, Range string
}

// Multipart reports whether r belongs to a multipart upload.
func (r Request) Multipart() bool {
	return strings.Contains(r.Query, "uploads") || strings.Contains(r.Query, "uploadId")
}

// Proxy starts a recording proxy in front of s, closed when the test ends.
func (s *Server) Proxy(t testing.TB) *Proxy {
	t.Helper()
	target, err := url.Parse(s.Endpoint)
	if err != nil {
		t.Fatal(err)
	}
	p := &Proxy{}
	rp := httputil.NewSingleHostReverseProxy(target)
	// The request keeps the Host the client signed (the proxy's address).
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// An object GET names a key after the bucket (path-style).
		get := r.Method == http.MethodGet && strings.Contains(strings.Trim(r.URL.Path, "/"), "/")
		p.mu.Lock()
		before, hook := p.onRequest, p.onServed
		p.requests = append(p.requests, Request{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Range: r.Header.Get("Range")})
		if get {
			p.inFlight++
			p.maxGets = max(p.maxGets, p.inFlight)
		}
		p.mu.Unlock()
		defer func() {
			if get {
				p.mu.Lock()
				p.inFlight--
				p.mu.Unlock()
			}
		}()
		if before != nil {
			before(r)
		}
		rp.ServeHTTP(w, r)
		if hook != nil {
			hook(r)
		}
	}))
	t.Cleanup(hs.Close)
	front := *s
	front.Endpoint = hs.URL
	p.Server = &front
	return p
}

// OnRequest makes hook see each request before it is forwarded, counted
// in flight: a hook that blocks holds the request (nil: none).
func (p *Proxy) OnRequest(hook func(r *http.Request)) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.onRequest = hook
}

// OnServed makes hook see each request once the server has answered it
// (nil: none).
func (p *Proxy) OnServed(hook func(r *http.Request)) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.onServed = hook
}

// Requests returns the requests forwarded so far and forgets them.
func (p *Proxy) Requests() []Request {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := p.requests
	p.requests = nil
	return out
}

// MaxGetsInFlight is the most object GETs that were in flight at once since
// the last ResetMax.
func (p *Proxy) MaxGetsInFlight() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.maxGets
}

// ResetMax starts a new MaxGetsInFlight measurement.
func (p *Proxy) ResetMax() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.maxGets = p.inFlight
}
