package netproxy

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"time"
)

// SOCKS5 reply codes (RFC 1928).
const (
	socksOK          = 0x00
	socksFailure     = 0x01
	socksNotAllowed  = 0x02
	socksHostUnreach = 0x04
	socksCmdUnsupp   = 0x07
	socksAddrUnsupp  = 0x08
)

// errSocks is a malformed greeting or request.
var errSocks = errors.New("bad SOCKS5 request")

// socksRequest is a parsed SOCKS5 CONNECT request.
type socksRequest struct {
	Host string // a name or an IP literal
	Port int
	Cmd  byte
}

// readSocksGreeting reads the method selection message and answers it:
// only "no authentication" is offered.
func readSocksGreeting(r io.Reader, w io.Writer) error {
	var hdr [2]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return err
	}
	if hdr[0] != 5 || hdr[1] == 0 {
		return errSocks
	}
	methods := make([]byte, hdr[1])
	if _, err := io.ReadFull(r, methods); err != nil {
		return err
	}
	for _, m := range methods {
		if m == 0 {
			_, err := w.Write([]byte{5, 0})
			return err
		}
	}
	w.Write([]byte{5, 0xff})
	return errors.New("SOCKS5 client offers no method without authentication")
}

// readSocksRequest reads a request. A request with a command other than
// CONNECT or an unknown address type is returned with its code in err's
// place (code != 0).
func readSocksRequest(r io.Reader) (req socksRequest, code byte, err error) {
	var hdr [4]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return req, socksFailure, err
	}
	if hdr[0] != 5 || hdr[2] != 0 {
		return req, socksFailure, errSocks
	}
	req.Cmd = hdr[1]
	switch hdr[3] {
	case 1:
		var b [4]byte
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return req, socksFailure, err
		}
		req.Host = netip.AddrFrom4(b).String()
	case 4:
		var b [16]byte
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return req, socksFailure, err
		}
		req.Host = netip.AddrFrom16(b).Unmap().String()
	case 3:
		var n [1]byte
		if _, err := io.ReadFull(r, n[:]); err != nil {
			return req, socksFailure, err
		}
		if n[0] == 0 {
			return req, socksAddrUnsupp, errSocks
		}
		b := make([]byte, n[0])
		if _, err := io.ReadFull(r, b); err != nil {
			return req, socksFailure, err
		}
		req.Host = string(b)
	default:
		return req, socksAddrUnsupp, fmt.Errorf("SOCKS5 address type %d", hdr[3])
	}
	var pb [2]byte
	if _, err := io.ReadFull(r, pb[:]); err != nil {
		return req, socksFailure, err
	}
	req.Port = int(binary.BigEndian.Uint16(pb[:]))
	if req.Cmd != 1 {
		return req, socksCmdUnsupp, fmt.Errorf("SOCKS5 command %d (only CONNECT)", req.Cmd)
	}
	if req.Port == 0 {
		return req, socksNotAllowed, errors.New("port 0")
	}
	return req, 0, nil
}

// socksReply writes a reply with an IPv4 bound address of zeros.
func socksReply(w io.Writer, code byte) error {
	_, err := w.Write([]byte{5, code, 0, 1, 0, 0, 0, 0, 0, 0})
	return err
}

func (p *Proxy) socks(c net.Conn, br *bufio.Reader, lr *io.LimitedReader, a *Attached) {
	record := func(r Conn) { p.record(r, a) }
	if err := readSocksGreeting(br, c); err != nil {
		return
	}
	req, code, err := readSocksRequest(br)
	if err != nil {
		if code != socksFailure || req.Host != "" {
			socksReply(c, code)
		}
		if req.Host != "" {
			record(Conn{Host: req.Host, Port: req.Port, Proto: "socks5", Start: time.Now(), Reason: err.Error()})
		}
		return
	}
	rec := Conn{Host: req.Host, Port: req.Port, Proto: "socks5", Start: time.Now()}
	up, addr, err := p.dial(context.Background(), req.Host, req.Port, a)
	if err != nil {
		var ref *refusal
		if errors.As(err, &ref) {
			socksReply(c, socksNotAllowed)
			rec.Reason, rec.Grantable = ref.Reason, ref.grantable
			if ref.grantable {
				rec.Host = ref.Host // as checked (normalized)
			}
		} else {
			socksReply(c, socksHostUnreach)
			rec.Allowed, rec.Reason = true, err.Error()
		}
		record(rec)
		return
	}
	defer up.Close()
	rec.Allowed, rec.Addr = true, addr
	c.SetReadDeadline(time.Time{})
	lr.N = 1<<63 - 1
	if err := socksReply(c, socksOK); err != nil {
		record(rec)
		return
	}
	rec.Sent, rec.Received = splice(c, up, br)
	record(rec)
}
