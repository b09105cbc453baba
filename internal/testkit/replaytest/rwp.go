package replaytest

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"time"
)

// Replayed is what ReplayWeb.page shows for one page: the replayed
// document's title and text, the replay URL of its frame (which names the
// collection, timestamp and URL actually replayed) and the collection id.
type Replayed struct {
	Title    string `json:"title"`
	Text     string `json:"text"`
	FrameURL string `json:"frameUrl"`
	Coll     string `json:"coll"`
}

// pageText is the JavaScript function both sides are compared with: the
// document's title and its body's text without scripts, styles and
// templates, whitespace collapsed.
const pageText = `function pageText(doc) {
  const norm = s => (s || "").replace(/\s+/g, " ").trim();
  let text = "";
  if (doc.body) {
    const b = doc.body.cloneNode(true);
    for (const el of b.querySelectorAll("script,style,noscript,template")) el.remove();
    text = norm(b.textContent);
  }
  return {title: norm(doc.title), text};
}`

// probe finds the replay frame (an iframe whose URL has "mp_/") through
// shadow roots and same-origin frames, and returns its text once loaded.
const probe = `(() => {
  ` + pageText + `
  let found = null;
  function walk(root) {
    for (const el of root.querySelectorAll("*")) {
      if (found) return;
      if (el.shadowRoot) walk(el.shadowRoot);
      if (el.tagName !== "IFRAME") continue;
      let doc = null;
      try { doc = el.contentDocument; } catch (e) {}
      if (!doc) continue;
      const href = doc.location ? doc.location.href : "";
      if (href.includes("mp_/") && doc.readyState === "complete") {
        const m = href.match(/\/w\/([^/]+)\//);
        found = Object.assign(pageText(doc), {frameUrl: href, coll: m ? m[1] : ""});
        return;
      }
      walk(doc);
    }
  }
  walk(document);
  return found;
})()`

// WaitReplay polls the page until its replay frame has loaded, or ctx ends.
func (p *Page) WaitReplay(ctx context.Context) (Replayed, error) {
	for {
		var r *Replayed
		if err := p.Eval(ctx, probe, &r); err != nil {
			return Replayed{}, err
		}
		if r != nil && (r.Title != "" || r.Text != "") {
			return *r, nil
		}
		select {
		case <-ctx.Done():
			return Replayed{}, fmt.Errorf("no replayed page: %w", ctx.Err())
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// Expected parses archived HTML in the browser with the same function the
// replayed page is read with.
func (p *Page) Expected(ctx context.Context, html string) (title, text string, err error) {
	js, _ := json.Marshal(html)
	var r struct{ Title, Text string }
	err = p.Eval(ctx, `(() => { `+pageText+` return pageText(new DOMParser().parseFromString(`+string(js)+`, "text/html")); })()`, &r)
	return r.Title, r.Text, err
}

// APIPage is one page of a collection as ReplayWeb.page lists it.
type APIPage struct {
	URL   string `json:"url"`
	Title string `json:"title"`
	TS    any    `json:"ts"`
}

// swFetch fetches a URL from the viewer's frame (a client of the service
// worker, so the worker answers) and returns, as its second argument says,
// the JSON ("json"), the text ("text"), or the status and the body's bytes
// in base64 ("bytes", as {status, body}).
const swFetch = `((url, as) => {
  let win = null;
  function walk(root) {
    for (const el of root.querySelectorAll("*")) {
      if (win) return;
      if (el.shadowRoot) walk(el.shadowRoot);
      if (el.tagName !== "IFRAME") continue;
      let doc = null;
      try { doc = el.contentDocument; } catch (e) {}
      if (!doc) continue;
      if (doc.location && doc.location.pathname === "/replay/") { win = doc.defaultView; return; }
      walk(doc);
    }
  }
  walk(document);
  if (!win) throw new Error("no viewer frame");
  return win.fetch(url).then(r => {
    if (as === "text") return r.text();
    if (as !== "bytes") return r.json();
    return r.arrayBuffer().then(buf => {
      const u = new Uint8Array(buf);
      let s = "";
      for (let i = 0; i < u.length; i += 0x8000) s += String.fromCharCode.apply(null, u.subarray(i, i + 0x8000));
      return {status: r.status, body: btoa(s)};
    });
  });
})`

// Collection returns the collection's metadata title and its pages as
// ReplayWeb.page's service worker lists them (its API under /replay/w/api).
// The page must show a replayed page (see WaitReplay).
func (p *Page) Collection(ctx context.Context, coll string) (title string, pages []APIPage, err error) {
	var info struct {
		Title string `json:"title"`
	}
	if err := p.Eval(ctx, swFetch+`("/replay/w/api/c/`+coll+`", "json")`, &info); err != nil {
		return "", nil, err
	}
	var ps struct {
		Pages []APIPage `json:"pages"`
	}
	if err := p.Eval(ctx, swFetch+`("/replay/w/api/c/`+coll+`/pages", "json")`, &ps); err != nil {
		return "", nil, err
	}
	return info.Title, ps.Pages, nil
}

// Raw returns what ReplayWeb.page's service worker replays for a capture
// of collection coll unchanged (its id_ form: the archived status and
// payload, no rewriting). The page must show a replayed page (see
// WaitReplay).
func (p *Page) Raw(ctx context.Context, coll, ts, url string) (status int, body []byte, err error) {
	target, _ := json.Marshal("/replay/w/" + coll + "/" + ts + "id_/" + url)
	var r struct {
		Status int    `json:"status"`
		Body   string `json:"body"`
	}
	if err := p.Eval(ctx, swFetch+`(`+string(target)+`, "bytes")`, &r); err != nil {
		return 0, nil, fmt.Errorf("replay %s %s: %w", ts, url, err)
	}
	body, err = base64.StdEncoding.DecodeString(r.Body)
	if err != nil {
		return 0, nil, fmt.Errorf("replay %s %s: %w", ts, url, err)
	}
	return r.Status, body, nil
}
