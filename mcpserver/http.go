package mcpserver

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shellguard/shellguard"
	"github.com/shellguard/shellguard/internal/safe"
	"github.com/shellguard/shellguard/policy"
)

// HTTPOptions configure Handler.
type HTTPOptions struct {
	// Token, when set, is required as "Authorization: Bearer TOKEN" on
	// every request. Serving anything but loopback without one is refused
	// by ListenAndServe.
	Token string
	// MaxBodyBytes bounds a request body; 0: DefaultMaxBodyBytes.
	MaxBodyBytes int64
	// SessionTimeout closes an idle MCP session (and kills its tasks and
	// warm sandbox helpers); 0: 30 minutes.
	SessionTimeout time.Duration
	// MaxSessions bounds the MCP sessions open at once; a client that
	// would open one more gets 503 (0: DefaultMaxSessions). With the
	// tasks each session may keep (tasks.max), it bounds the server's
	// background tasks.
	MaxSessions int
}

// DefaultMaxSessions bounds the open MCP sessions of an HTTP server.
const DefaultMaxSessions = 32

// DefaultMaxBodyBytes bounds request bodies: room for the largest command
// with JSON escaping, not much more.
const DefaultMaxBodyBytes = 4 << 20

// Handler returns the HTTP face of the server: streamable MCP at /mcp and
// the plain JSON endpoint POST /tools/bash/execute. DNS-rebinding
// protection is on for both: on a loopback listener, a request whose Host
// is not a loopback name is refused.
func (s *Server) Handler(opts HTTPOptions) http.Handler {
	if opts.MaxBodyBytes <= 0 {
		opts.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if opts.SessionTimeout <= 0 {
		opts.SessionTimeout = 30 * time.Minute
	}
	if opts.MaxSessions <= 0 {
		opts.MaxSessions = DefaultMaxSessions
	}
	streamable := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp }, &mcp.StreamableHTTPOptions{
		Logger:              s.logger,
		SessionTimeout:      opts.SessionTimeout,
		MaxRequestBodyBytes: opts.MaxBodyBytes,
	})
	// Origin is validated on both endpoints (the MCP specification asks it
	// of streamable HTTP servers): a browser page of another origin is
	// refused; clients that send no Origin (not browsers) pass.
	cop := http.NewCrossOriginProtection()
	cop.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeJSONError(w, http.StatusForbidden, fmt.Sprintf("forbidden: cross-origin request (Origin %q)", r.Header.Get("Origin")))
	}))
	mux := http.NewServeMux()
	mux.Handle("/mcp", cop.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.Header.Get("Mcp-Session-Id") == "" && s.openSessions() >= opts.MaxSessions {
			w.Header().Set("Retry-After", "5")
			writeJSONError(w, http.StatusServiceUnavailable, fmt.Sprintf("busy: %d MCP sessions are open, the most this server keeps; close one (or wait for an idle one to expire) and try again", opts.MaxSessions))
			return
		}
		streamable.ServeHTTP(w, r)
	})))
	mux.Handle("/tools/bash/execute", cop.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.execute(w, r, opts.MaxBodyBytes)
	})))
	mux.Handle("/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeJSONError(w, http.StatusNotFound, "not found: the endpoints are /mcp (MCP, streamable HTTP) and POST /tools/bash/execute")
	}))
	var want []byte
	if opts.Token != "" {
		h := sha256.Sum256([]byte(opts.Token))
		want = h[:]
	}
	return s.recoverHTTP(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok && local != nil {
			if isLoopback(local.String()) && !isLoopback(r.Host) {
				w.Header().Set("Connection", "close")
				writeJSONError(w, http.StatusForbidden, fmt.Sprintf("forbidden: Host %q is not a loopback name (DNS-rebinding protection)", r.Host))
				return
			}
		}
		if want != nil {
			auth := r.Header.Get("Authorization")
			tok, ok := strings.CutPrefix(auth, "Bearer ")
			got := sha256.Sum256([]byte(strings.TrimSpace(tok)))
			if !ok || subtle.ConstantTimeCompare(got[:], want) != 1 {
				// Nothing of the body is read, and the connection is not
				// kept: a client without the token cannot hold it open by
				// trickling a body.
				w.Header().Set("WWW-Authenticate", `Bearer realm="shellguard"`)
				w.Header().Set("Connection", "close")
				writeJSONError(w, http.StatusUnauthorized, "unauthorized: send Authorization: Bearer TOKEN")
				return
			}
		}
		if r.Body != nil && r.Body != http.NoBody {
			r.Body = bodyDeadline(w, r.Body, BodyTimeout)
		}
		mux.ServeHTTP(w, r)
	}))
}

// BodyTimeout bounds the time to receive a request body, so that a
// trickled body cannot hold a connection and a call slot.
const BodyTimeout = time.Minute

// bodyDeadline sets a read deadline on the connection for the body and
// clears it once the body has been read (a server-wide ReadTimeout would
// also cut the long calls and event streams that follow their request).
func bodyDeadline(w http.ResponseWriter, body io.ReadCloser, d time.Duration) io.ReadCloser {
	rc := http.NewResponseController(w)
	if rc.SetReadDeadline(time.Now().Add(d)) != nil {
		return body // not a net/http connection (a test recorder)
	}
	return &deadlineBody{ReadCloser: body, rc: rc}
}

type deadlineBody struct {
	io.ReadCloser
	rc   *http.ResponseController
	done bool
}

func (b *deadlineBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil && !b.done {
		b.done = true
		b.rc.SetReadDeadline(time.Time{})
	}
	return n, err
}

// isLoopback reports whether a host or host:port names the loopback
// interface.
func isLoopback(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.Trim(host, "[]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// IsLoopbackAddr reports whether a listen address binds only loopback.
func IsLoopbackAddr(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil || host == "" {
		return false // ":8080" binds every interface
	}
	return isLoopback(host)
}

// executeFields are the fields of a POST /tools/bash/execute body: the
// tool's, without background tasks.
var executeFields = map[string]bool{"command": true, "timeout": true, "cwd": true, "description": true}

// execute serves POST /tools/bash/execute: one command, no approval, no
// background tasks. 200: the command ran (whatever its exit code);
// 403: the policy refused it; 400: the request is wrong.
func (s *Server) execute(w http.ResponseWriter, r *http.Request, maxBody int64) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST")
		writeJSONError(w, http.StatusMethodNotAllowed, "use POST with a JSON body {\"command\": ..., \"timeout\": ..., \"cwd\": ...}")
		return
	}
	if s.failed != nil {
		writeJSONError(w, http.StatusServiceUnavailable, s.failedText())
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		var mb *http.MaxBytesError
		if errors.As(err, &mb) {
			writeJSONError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("request body is larger than %d bytes", maxBody))
			return
		}
		writeJSONError(w, http.StatusBadRequest, "reading the body: "+err.Error())
		return
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(body, &fields); err != nil {
		writeJSONError(w, http.StatusBadRequest, "the body must be a JSON object: "+err.Error())
		return
	}
	for k := range fields {
		if !executeFields[k] {
			writeJSONError(w, http.StatusBadRequest, fmt.Sprintf("invalid input: %q: unknown field; the fields are command, timeout, cwd, description", k))
			return
		}
	}
	in, err := parseInput(bytes.TrimSpace(body), s.set)
	if err != nil {
		writeJSONError(w, http.StatusBadRequest, err.Error())
		return
	}
	if s.opts.NoWorkspace != nil {
		writeJSONError(w, http.StatusServiceUnavailable, fmt.Sprintf("no workspace: %v; this endpoint has no client roots to take one from. Nothing was run. Start the server with --workspace DIR", s.opts.NoWorkspace))
		return
	}
	ctx := r.Context()
	if v := s.g.Check(ctx, shellguard.Request{Command: in.Command, Cwd: in.Cwd}); v.Decision != policy.Allow {
		why := ""
		if v.Decision == policy.Ask {
			why = "the command needs the user's approval, and this endpoint cannot ask; use the MCP endpoint with a client that supports elicitation, or allow the command in the configuration."
		}
		writeJSON(w, http.StatusForbidden, s.refused(s.g, in, v, why))
		return
	}
	ctx, slot, err := s.admit.acquire(ctx)
	if err != nil {
		if errors.Is(err, errBusy) {
			w.Header().Set("Retry-After", "1")
			writeJSONError(w, http.StatusServiceUnavailable, err.Error())
		}
		return // otherwise the client went away while it waited
	}
	defer slot.release()
	// A session of its own that never moves the command to the
	// background: nobody could ask about the task later, nor reach a
	// server it leaves (so no shared network namespace either).
	sess := s.g.NewSession(shellguard.SessionOptions{BlockingBudget: -1, OwnNetworks: true})
	defer sess.Close()
	res, err := s.run(ctx, sess, in, func(context.Context, policy.Verdict) (bool, error) { return false, nil }, &progress{}, nil, nil)
	status := http.StatusOK
	var de *shellguard.DeniedError
	var pe *safe.PanicError
	switch {
	case err == nil:
	case errors.As(err, &de):
		status = http.StatusForbidden
	case errors.As(err, &pe):
		status = http.StatusInternalServerError
	case errors.Is(ctx.Err(), context.Canceled):
		status = 499 // the client went away; nobody reads this
	case res.ExitCode == nil && res.Task == nil: // it never started
		status = http.StatusBadRequest
	}
	writeJSON(w, status, res)
}

func writeJSONError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]string{"error": msg})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
}

// openSessions counts the MCP sessions the server holds.
func (s *Server) openSessions() int {
	n := 0
	for range s.mcp.Sessions() {
		n++
	}
	return n
}

// ListenAndServe serves Handler(opts) on addr until ctx is done. It refuses
// a non-loopback addr without a token.
func (s *Server) ListenAndServe(ctx context.Context, addr string, opts HTTPOptions, ready func(net.Addr)) error {
	if !IsLoopbackAddr(addr) && opts.Token == "" {
		return fmt.Errorf("refusing to listen on %s without a token: binding anything but loopback requires --token-file", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := &http.Server{
		Handler:           s.Handler(opts),
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
	}
	if ready != nil {
		ready(ln.Addr())
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		s.Close()
		return err
	case <-ctx.Done():
	}
	s.Close() // ends the MCP sessions, so their streams do not hold up Shutdown
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	srv.Shutdown(sctx)
	srv.Close()
	<-errc
	return nil
}
