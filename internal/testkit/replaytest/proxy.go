package replaytest

import (
	"bufio"
	"net"
	"strings"
	"sync"
	"time"
)

// RefusingProxy accepts connections on a loopback port and closes each at
// once, recording the first line of the request (e.g. "CONNECT host:443"):
// Chromium is pointed at it as its proxy, so every request that is not for
// a loopback address fails, and the test can say which ones were tried.
type RefusingProxy struct {
	Addr string
	ln   net.Listener
	mu   sync.Mutex
	seen []string
	done chan struct{}
}

// NewRefusingProxy starts one.
func NewRefusingProxy() (*RefusingProxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &RefusingProxy{Addr: ln.Addr().String(), ln: ln, done: make(chan struct{})}
	go func() {
		defer close(p.done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.SetReadDeadline(time.Now().Add(2 * time.Second))
			line, _ := bufio.NewReader(c).ReadString('\n')
			p.mu.Lock()
			p.seen = append(p.seen, strings.TrimSpace(line))
			p.mu.Unlock()
			c.Close()
		}
	}()
	return p, nil
}

// Seen returns the request lines the proxy refused.
func (p *RefusingProxy) Seen() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.seen...)
}

// Close stops the proxy.
func (p *RefusingProxy) Close() error {
	err := p.ln.Close()
	<-p.done
	return err
}
