package testservers

import (
	"io"
	"net"
	"sync/atomic"
	"testing"
)

// CountingProxy forwards TCP connections from a loopback port to a server
// and counts the bytes the server sends back: what a client downloaded, as
// the network saw it, whatever the reader under test reports of itself.
type CountingProxy struct {
	ln         net.Listener
	target     string
	downloaded atomic.Int64
}

// StartCountingProxy listens on a free loopback port and forwards to target
// (host:port) until the test ends.
func StartCountingProxy(t testing.TB, target string) *CountingProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &CountingProxy{ln: ln, target: target}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go p.serve(c)
		}
	}()
	return p
}

// Addr is the proxy's host:port.
func (p *CountingProxy) Addr() string { return p.ln.Addr().String() }

// Downloaded is the number of bytes the server has sent so far.
func (p *CountingProxy) Downloaded() int64 { return p.downloaded.Load() }

func (p *CountingProxy) serve(client net.Conn) {
	defer client.Close()
	server, err := net.Dial("tcp", p.target)
	if err != nil {
		return
	}
	defer server.Close()
	go io.Copy(server, client)
	// Counted as the bytes pass, so Downloaded is current while a
	// keep-alive connection is still open, and counted before they are
	// passed on, so a client that has them always finds them counted.
	buf := make([]byte, 32<<10)
	for {
		n, err := server.Read(buf)
		if n > 0 {
			p.downloaded.Add(int64(n))
			if _, werr := client.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}
