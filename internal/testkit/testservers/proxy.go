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
	io.Copy(countingWriter{client, &p.downloaded}, server)
}

// countingWriter counts bytes as they pass, so the count is current while a
// keep-alive connection is still open.
type countingWriter struct {
	w io.Writer
	n *atomic.Int64
}

func (c countingWriter) Write(b []byte) (int, error) {
	n, err := c.w.Write(b)
	c.n.Add(int64(n))
	return n, err
}
