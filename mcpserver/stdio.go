package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/shellguard/shellguard/internal/steptime"
	"io"
	"os"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shellguard/shellguard"
)

// MaxMessageBytes bounds one JSON-RPC message on stdio.
const MaxMessageBytes = 8 << 20

// DrainTimeout is how long, after the client's input ends, a command may
// go on running before it is stopped. Each command has its own: one that
// starts after the end (it waited for a slot) gets DrainTimeout from its
// start, so a busy machine working through thirty quick calls answers
// them all, while a call that runs on is stopped and answered as such.
// Calls that run no command (a wait on a task) are stopped when
// DrainTimeout passes with no answer and no command running or waiting.
const DrainTimeout = 2 * time.Second

// DrainLimit bounds the whole wait after the input ends (30 times the
// drain timeout, with Options.DrainTimeout set).
const DrainLimit = 30 * DrainTimeout

// stopCommands stops every command of every session (foreground runs
// and tasks); their calls return as stopped.
func (s *Server) stopCommands() {
	s.mu.Lock()
	var all []*shellguard.Session
	for _, b := range s.sessions {
		all = append(all, b.x)
	}
	s.mu.Unlock()
	for _, x := range all {
		s.asking.drop(x)
		x.Close()
	}
}

// RunStdio serves one session over stdin and stdout until the client
// disconnects or ctx is done, then closes the session's tasks.
func (s *Server) RunStdio(ctx context.Context) error {
	return s.RunIO(ctx, os.Stdin, os.Stdout)
}

// RunIO is RunStdio on any reader and writer.
//
// The go-sdk's stdio transport ends the session at the first line that is
// not JSON-RPC. A shell tool should not die of one bad line, so lines are
// checked first: a malformed one gets a JSON-RPC error response (with its
// id when one can be read) and the session goes on.
//
// When r reaches its end (the client's way to end a stdio session), every
// request already read is answered before the session ends: a request the
// server sent the client by then (an approval) can no longer be answered,
// so it is failed on the client's behalf, and commands still running
// DrainTimeout after the end are stopped, so that their calls are
// answered (as stopped) and the server exits promptly.
func (s *Server) RunIO(ctx context.Context, r io.Reader, w io.Writer) error {
	pr, pw := io.Pipe()
	tr := &tracker{pw: pw, inReq: map[string]bool{}, outReq: map[string]json.RawMessage{}, changed: make(chan struct{}, 1)}
	out := &lockedWriter{w: w, tr: tr}
	go filterLines(ctx, r, pw, out, tr, s.admit, s.stopCommands)
	err := s.mcp.Run(ctx, &mcp.IOTransport{Reader: pr, Writer: out, MaxLineLength: MaxMessageBytes + 1})
	pr.Close()
	s.Close()
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrClosedPipe) {
		err = nil
	}
	return err
}

type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
	tr *tracker // nil for the filter's own error replies
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.tr != nil {
		l.tr.sent(b)
	}
	defer steptime.Mark("mcp.written")
	return l.w.Write(b)
}

// tracker follows the requests in flight on a stdio session: the
// client's, until the server answers them, and the server's, until the
// client does.
type tracker struct {
	pw      *io.PipeWriter
	mu      sync.Mutex
	inReq   map[string]bool            // client requests not yet answered
	outReq  map[string]json.RawMessage // server requests (by id) not yet answered
	eof     bool                       // the client's input has ended
	changed chan struct{}              // a client request was answered
}

// rpcHead is what the tracker reads of a message.
type rpcHead struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
}

// heads decodes a line holding a message or a batch.
func heads(line []byte) []rpcHead {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return nil
	}
	if line[0] == '[' {
		var hs []rpcHead
		json.Unmarshal(line, &hs)
		return hs
	}
	var h rpcHead
	if json.Unmarshal(line, &h) != nil {
		return nil
	}
	return []rpcHead{h}
}

func hasID(h rpcHead) bool { return len(h.ID) > 0 && !bytes.Equal(h.ID, []byte("null")) }

// read notes a line from the client before it goes to the server.
func (t *tracker) read(line []byte) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, h := range heads(line) {
		switch {
		case !hasID(h):
		case h.Method != "":
			t.inReq[string(h.ID)] = true
		default:
			delete(t.outReq, string(h.ID))
		}
	}
}

// sent notes what the server wrote: answers to the client's requests, and
// requests of its own, failed at once when the client can no longer
// answer them.
func (t *tracker) sent(b []byte) {
	t.mu.Lock()
	defer t.mu.Unlock()
	answered := false
	for _, line := range bytes.Split(b, []byte("\n")) {
		for _, h := range heads(line) {
			switch {
			case !hasID(h):
			case h.Method == "":
				if t.inReq[string(h.ID)] {
					answered = true
				}
				delete(t.inReq, string(h.ID))
			case t.eof:
				go t.fail(h.ID)
			default:
				t.outReq[string(h.ID)] = h.ID
			}
		}
	}
	if !answered {
		return // a notification (progress, a log line) is no answer
	}
	select {
	case t.changed <- struct{}{}:
	default:
	}
}

// fail answers the server's request id with an error, as the client
// would had it not gone.
func (t *tracker) fail(id json.RawMessage) {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id,
		"error": map[string]any{"code": -32000, "message": "the client closed its input"}})
	t.pw.Write(append(b, '\n'))
}

// drain is called at the end of the client's input: it fails the
// server's open requests, then waits until every client request has been
// answered or ctx is done. When DrainTimeout passes with no answer while
// no command runs or waits to (busy; those have their own clocks), or
// DrainLimit in all, stop is called, and the calls get DrainTimeout more
// to answer.
func (t *tracker) drain(ctx context.Context, after time.Duration, busy func() bool, stop func()) {
	t.mu.Lock()
	t.eof = true
	for _, id := range t.outReq {
		go t.fail(id)
	}
	t.outReq = map[string]json.RawMessage{}
	t.mu.Unlock()
	bound := time.NewTimer(after)
	defer bound.Stop()
	limit := time.NewTimer(DrainLimit / DrainTimeout * after)
	defer limit.Stop()
	stopped := false
	stopNow := func() bool {
		if stopped {
			return true
		}
		stopped = true
		stop()
		bound.Reset(after)
		return false
	}
	for {
		t.mu.Lock()
		n := len(t.inReq)
		t.mu.Unlock()
		if n == 0 {
			return
		}
		select {
		case <-t.changed:
			if !stopped { // an answer: the calls are moving
				bound.Reset(after)
			}
		case <-ctx.Done():
			return
		case <-limit.C:
			if stopNow() {
				return
			}
		case <-bound.C:
			if !stopped && busy() {
				bound.Reset(after)
				continue
			}
			if stopNow() {
				return
			}
		}
	}
}

func (l *lockedWriter) Close() error { return nil }

// filterLines copies well-formed JSON-RPC lines from r to pw and answers
// the others itself. At the end of r it waits for the server to answer
// what was read (tracker.drain) before it ends the session.
func filterLines(ctx context.Context, r io.Reader, pw *io.PipeWriter, out io.Writer, tr *tracker, calls *admission, stop func()) {
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, tooLong, err := readLine(br, MaxMessageBytes)
		steptime.Mark("mcp.read")
		switch {
		case tooLong:
			writeRPCError(out, nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("message larger than %d bytes", MaxMessageBytes))
		case len(bytes.TrimSpace(line)) == 0:
		default:
			if code, msg := checkMessage(line); code != 0 {
				writeRPCError(out, line, code, msg)
			} else {
				tr.read(line)
				if _, werr := pw.Write(append(line, '\n')); werr != nil {
					return // the session is over
				}
			}
		}
		if err != nil {
			calls.drain()
			tr.drain(ctx, calls.drainAfter, calls.busy, stop)
			pw.Close()
			return
		}
	}
}

// readLine reads one line of at most limit bytes (without the newline).
// A longer line is consumed and reported as tooLong.
func readLine(br *bufio.Reader, limit int) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > limit+1 {
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		return bytes.TrimSuffix(line, []byte("\n")), tooLong, err
	}
}

// checkMessage returns a JSON-RPC error code and message for a line the
// SDK would choke on, or 0.
func checkMessage(line []byte) (int64, string) {
	line = bytes.TrimSpace(line)
	if !json.Valid(line) {
		return jsonrpc.CodeParseError, "parse error: not valid JSON"
	}
	if line[0] == '[' {
		var batch []json.RawMessage
		if err := json.Unmarshal(line, &batch); err != nil || len(batch) == 0 {
			return jsonrpc.CodeInvalidRequest, "invalid request: empty or malformed batch"
		}
		for _, m := range batch {
			if _, err := jsonrpc.DecodeMessage(m); err != nil {
				return jsonrpc.CodeInvalidRequest, "invalid request in batch: " + err.Error()
			}
		}
		return 0, ""
	}
	if _, err := jsonrpc.DecodeMessage(line); err != nil {
		return jsonrpc.CodeInvalidRequest, "invalid request: " + err.Error()
	}
	return 0, ""
}

// writeRPCError writes an error response, echoing the id of line when it
// has one.
func writeRPCError(out io.Writer, line []byte, code int64, msg string) {
	var probe struct {
		ID json.RawMessage `json:"id"`
	}
	id := json.RawMessage("null")
	if line != nil && json.Unmarshal(line, &probe) == nil && len(probe.ID) > 0 {
		var v any
		if json.Unmarshal(probe.ID, &v) == nil {
			switch v.(type) {
			case string, float64:
				id = probe.ID
			}
		}
	}
	b, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   struct {
			Code    int64  `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}{JSONRPC: "2.0", ID: id, Error: struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	}{code, msg}})
	out.Write(append(b, '\n'))
}
