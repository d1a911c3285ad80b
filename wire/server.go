// Package wire serves the PostgreSQL v3 frontend/backend protocol on top of
// an executor Session. It knows nothing of Iceberg.
package wire

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"syscall"
	"time"

	"github.com/magmalake/magmalake/stmt"
)

// Session is what the wire layer needs from a connection's session (the
// engine's, session.Session, satisfies it).
type Session interface {
	ParameterStatus() map[string]string
	Split(query string) ([]string, error)
	Prepare(ctx context.Context, query string, paramTypes []uint32) (*stmt.Prepared, error)
	Execute(ctx context.Context, p *stmt.Prepared, params []stmt.Param) (*stmt.Result, error)
	TxStatus() byte
	// BeginImplicit opens the implicit transaction a multi-statement Query
	// or an extended-protocol pipeline runs in (nothing inside a block);
	// EndImplicit commits it, or rolls it back after an error.
	BeginImplicit()
	EndImplicit(ctx context.Context) error
	Close()
}

// AuthMethod selects how clients prove who they are.
type AuthMethod int

const (
	AuthTrust    AuthMethod = iota // no password
	AuthPassword                   // cleartext password
	AuthMD5                        // md5; users with a SCRAM verifier get SCRAM, as in PostgreSQL
	AuthSCRAM                      // SCRAM-SHA-256
)

// Config configures a Server. NewSession is required; the rest have defaults.
type Config struct {
	Addr       string // for ListenAndServe, e.g. "127.0.0.1:5432"
	NewSession func(stmt.SessionInfo) (Session, error)
	Auth       AuthMethod
	// Users maps a user name to a plain password or a SCRAM verifier
	// (SCRAM-SHA-256$<iter>:<salt>$<storedkey>:<serverkey>); see LoadUsers.
	// A user whose secret an empty password satisfies cannot log in.
	Users map[string]string
	// TLS, when set, answers SSLRequest with 'S'; see LoadTLS and SelfSignedTLS.
	TLS *tls.Config
	// TLSRequired refuses clients that do not negotiate TLS with FATAL 28000
	// before any password is asked (PostgreSQL's hostssl); it needs TLS.
	TLSRequired bool
	// MaxConnections refuses further authenticated clients with 53300; 0
	// means 100. A connection counts once it has logged in.
	MaxConnections int
	// MaxStartups bounds the connections still in startup or authentication,
	// which MaxConnections does not count, so that sockets that never log in
	// cannot lock out clients that do; further ones get 53300 at once. 0
	// means twice MaxConnections, at least 100.
	MaxStartups int
	// AuthenticationTimeout closes a connection that has not finished startup
	// and authentication within it (PostgreSQL's authentication_timeout); 0
	// means 60 s.
	AuthenticationTimeout time.Duration
	// IdleTimeout closes a session that sends nothing for this long (57P05); 0 disables.
	IdleTimeout time.Duration
	// MaxMessageSize bounds one client message body; 0 means 64 MiB.
	MaxMessageSize int
	// LogConnections and LogDisconnections log each connection's start,
	// login and end (PostgreSQL's log_connections, log_disconnections).
	LogConnections    bool
	LogDisconnections bool
	Logger            *slog.Logger // nil discards
}

const (
	defaultMaxConnections        = 100
	minDefaultMaxStartups        = 100
	defaultMaxMessageSize        = 64 << 20
	defaultAuthenticationTimeout = 60 * time.Second
)

// Server accepts PostgreSQL connections and runs each in its own goroutine.
type Server struct {
	cfg Config
	log *slog.Logger

	// hardCtx is cancelled when Shutdown's deadline passes: running statements
	// derive their context from it.
	hardCtx    context.Context
	hardCancel context.CancelFunc
	// draining is closed when Shutdown starts: idle connections end at once.
	draining chan struct{}

	mu        sync.Mutex
	listeners map[net.Listener]struct{}
	conns     map[uint32]*conn   // by process id, for CancelRequest
	active    int                // logged-in connections, for MaxConnections
	starting  map[*conn]struct{} // connections in startup, for MaxStartups and Shutdown
	nextPID   uint32
	closing   bool
	wg        sync.WaitGroup
}

// Sessions is Config.NewSession from a function starting a session (an
// engine's StartSession): each connection's, refused when its startup
// parameters are.
func Sessions[S Session](start func(stmt.SessionInfo) (S, error)) func(stmt.SessionInfo) (Session, error) {
	return func(info stmt.SessionInfo) (Session, error) {
		s, err := start(info)
		if err != nil {
			return nil, err
		}
		return s, nil
	}
}

// NewServer checks cfg and returns a server that is not yet listening.
func NewServer(cfg Config) (*Server, error) {
	if cfg.NewSession == nil {
		return nil, errors.New("wire: Config.NewSession is required")
	}
	if cfg.TLSRequired && cfg.TLS == nil {
		return nil, errors.New("wire: Config.TLSRequired needs Config.TLS")
	}
	if cfg.MaxConnections <= 0 {
		cfg.MaxConnections = defaultMaxConnections
	}
	if cfg.MaxStartups <= 0 {
		cfg.MaxStartups = max(2*cfg.MaxConnections, minDefaultMaxStartups)
	}
	if cfg.AuthenticationTimeout <= 0 {
		cfg.AuthenticationTimeout = defaultAuthenticationTimeout
	}
	if cfg.MaxMessageSize <= 0 {
		cfg.MaxMessageSize = defaultMaxMessageSize
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	cfg.Users = loginUsers(cfg.Users, log)
	hardCtx, hardCancel := context.WithCancel(context.Background())
	return &Server{
		cfg:        cfg,
		log:        log,
		hardCtx:    hardCtx,
		hardCancel: hardCancel,
		draining:   make(chan struct{}),
		listeners:  map[net.Listener]struct{}{},
		conns:      map[uint32]*conn{},
		starting:   map[*conn]struct{}{},
		nextPID:    uint32(time.Now().UnixNano()%30000) + 1000,
	}, nil
}

// ListenAndServe listens on Config.Addr and serves until ctx ends or Shutdown.
func (s *Server) ListenAndServe(ctx context.Context) error {
	l, err := net.Listen("tcp", s.cfg.Addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", s.cfg.Addr, err)
	}
	return s.Serve(ctx, l)
}

// Serve accepts connections on l until ctx ends or Shutdown is called; it
// closes l. Cancelling ctx stops accepting only: use Shutdown to drain.
func (s *Server) Serve(ctx context.Context, l net.Listener) error {
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		l.Close()
		return net.ErrClosed
	}
	s.listeners[l] = struct{}{}
	s.mu.Unlock()
	stop := context.AfterFunc(ctx, func() { l.Close() })
	defer stop()
	defer s.forgetListener(l)
	var delay time.Duration // back-off after a temporary accept error
	for {
		nc, err := l.Accept()
		if err != nil {
			if s.isClosing() || ctx.Err() != nil {
				return nil
			}
			if !temporaryAcceptError(err) {
				return fmt.Errorf("accept: %w", err)
			}
			delay = min(max(2*delay, minAcceptDelay), maxAcceptDelay)
			s.log.Warn("accept failed; retrying", "err", err, "delay", delay)
			if !s.pause(ctx, delay) {
				return nil
			}
			continue
		}
		delay = 0
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			newConn(s, nc).serve()
		}()
	}
}

// Back-off bounds after a temporary accept error, as net/http's.
const (
	minAcceptDelay = 5 * time.Millisecond
	maxAcceptDelay = time.Second
)

// temporaryAcceptError reports accept errors that pass: out of file
// descriptors (EMFILE, ENFILE) or buffers, a client gone before it was
// accepted, a timeout. The server keeps serving its sessions and accepts
// again later; giving up would end it for every client.
func temporaryAcceptError(err error) bool {
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return true
	}
	for _, errno := range []syscall.Errno{syscall.EMFILE, syscall.ENFILE, syscall.ENOBUFS, syscall.ENOMEM, syscall.ECONNABORTED} {
		if errors.Is(err, errno) {
			return true
		}
	}
	return false
}

// pause waits d before the next accept; false when the server or ctx ended.
func (s *Server) pause(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return !s.isClosing()
	case <-ctx.Done():
		return false
	case <-s.draining:
		return false
	}
}

func (s *Server) forgetListener(l net.Listener) {
	s.mu.Lock()
	delete(s.listeners, l)
	s.mu.Unlock()
	l.Close()
}

func (s *Server) isClosing() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closing
}

// Shutdown stops accepting, ends idle connections, lets running statements
// finish until ctx is done, then cancels them and waits for every connection
// to close.
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	if !s.closing {
		s.closing = true
		close(s.draining)
		for l := range s.listeners {
			l.Close()
		}
		// Idle connections block in a read: wake them to see the drain.
		for _, c := range s.conns {
			c.t.rd.wake()
		}
		// Connections still logging in have nothing to finish.
		for c := range s.starting {
			c.abort()
		}
	}
	s.mu.Unlock()
	done := make(chan struct{})
	go func() {
		s.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
	}
	s.hardCancel()
	s.mu.Lock()
	for _, c := range s.conns {
		c.abort()
	}
	s.mu.Unlock()
	<-done
	return ctx.Err()
}

// beginStartup admits a new connection into startup; false when
// MaxStartups connections are already there.
func (s *Server) beginStartup(c *conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.starting) >= s.cfg.MaxStartups {
		return false
	}
	s.starting[c] = struct{}{}
	return true
}

func (s *Server) endStartup(c *conn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.starting, c)
}

// register admits a logged-in connection; false when the server is full.
func (s *Server) register(c *conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.active >= s.cfg.MaxConnections {
		return false
	}
	s.active++
	for {
		s.nextPID++
		if _, taken := s.conns[s.nextPID]; !taken && s.nextPID != 0 {
			break
		}
	}
	c.pid = s.nextPID
	s.conns[c.pid] = c
	// Logged in: from here Shutdown drains it rather than aborting it as a
	// startup, even before timedStartup's deferred endStartup runs (the
	// client may already hold ReadyForQuery by then).
	delete(s.starting, c)
	return true
}

func (s *Server) unregister(c *conn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.conns[c.pid] == c {
		delete(s.conns, c.pid)
		s.active--
	}
}

// cancel handles a CancelRequest: it cancels the target's running statement
// when the secret matches, and does nothing otherwise (as PostgreSQL).
func (s *Server) cancel(pid uint32, secret []byte) {
	s.mu.Lock()
	c := s.conns[pid]
	s.mu.Unlock()
	if c != nil && c.secretMatches(secret) {
		c.ex.cancel()
	}
}
