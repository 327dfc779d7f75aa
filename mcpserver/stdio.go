package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxMessageBytes bounds one JSON-RPC message on stdio.
const MaxMessageBytes = 8 << 20

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
func (s *Server) RunIO(ctx context.Context, r io.Reader, w io.Writer) error {
	out := &lockedWriter{w: w}
	pr, pw := io.Pipe()
	go filterLines(r, pw, out)
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
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

func (l *lockedWriter) Close() error { return nil }

// filterLines copies well-formed JSON-RPC lines from r to pw and answers
// the others itself.
func filterLines(r io.Reader, pw *io.PipeWriter, out io.Writer) {
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, tooLong, err := readLine(br, MaxMessageBytes)
		switch {
		case tooLong:
			writeRPCError(out, nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("message larger than %d bytes", MaxMessageBytes))
		case len(bytes.TrimSpace(line)) == 0:
		default:
			if code, msg := checkMessage(line); code != 0 {
				writeRPCError(out, line, code, msg)
			} else if _, werr := pw.Write(append(line, '\n')); werr != nil {
				return // the session is over
			}
		}
		if err != nil {
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
