package report

// labelScript is report.html's one inline script. It
//   - orders every documents table by crawl order or by relevance (the
//     "order" toggle), by the positions Detail.Rows computed;
//   - keeps the researcher's marks: two buttons a row, "relevant" (grade 1)
//     and "not relevant" (grade 0); a click on the active one clears it.
//
// Served by "recrawl serve" (GET labels answers), a mark is posted to the
// server (POST labels, JSON {"url": URL, "grade": 1, 0 or null}), which
// writes the labels file; on load the page shows the server's marks. Opened
// any other way (a file), the marks live in localStorage under the page's
// path and the "download labels.tsv" link saves them in the labels format
// (url, event, grade; event "-": none). A file page makes no request at all.
// It is plain ES5 without backquotes, so that it sits in the Go string of
// the page's template.
const labelScript = `(function () {
  "use strict";
  var statusLine = document.getElementById("labels-status");
  var download = document.getElementById("labels-download");
  if (!statusLine || !download) return;
  var storeKey = "recrawl-labels:" + location.pathname;
  var marks = {};
  var served = false;
  var blobURL = "";

  function setStatus(text, bad) {
    statusLine.textContent = text;
    statusLine.className = bad ? "warn" : "muted";
  }
  function show() {
    document.querySelectorAll("table.top tr[data-url]").forEach(function (tr) {
      var g = marks[tr.getAttribute("data-url")];
      tr.querySelectorAll("button.mark").forEach(function (b) {
        var on = g !== undefined && b.getAttribute("data-grade") === g;
        b.classList.toggle("on", on);
        b.setAttribute("aria-pressed", on ? "true" : "false");
      });
    });
    if (!served) offerDownload();
  }
  function offerDownload() {
    var urls = Object.keys(marks).sort();
    var tsv = "url\tevent\tgrade\n";
    urls.forEach(function (u) { tsv += u + "\t-\t" + marks[u] + "\n"; });
    if (blobURL) URL.revokeObjectURL(blobURL);
    blobURL = URL.createObjectURL(new Blob([tsv], {type: "text/tab-separated-values"}));
    download.setAttribute("href", blobURL);
    download.textContent = "download labels.tsv (" + urls.length + (urls.length === 1 ? " mark)" : " marks)");
    download.hidden = false;
  }
  function grade(g) { return Number(g) > 0 ? "1" : "0"; }
  function local() {
    served = false;
    marks = {};
    try {
      var kept = JSON.parse(localStorage.getItem(storeKey) || "{}");
      Object.keys(kept || {}).forEach(function (u) { marks[u] = grade(kept[u]); });
    } catch (e) {
      marks = {};
    }
    setStatus("This page is not served by recrawl serve: the marks are kept in this browser only (localStorage). Save them as a labels file with the link below.", false);
    show();
  }
  function fromServer(answer) {
    served = true;
    marks = {};
    Object.keys(answer.labels).forEach(function (u) { marks[u] = grade(answer.labels[u]); });
    setStatus("Marks are written to " + answer.file + " (event " + answer.event + ").", false);
    download.hidden = true;
    show();
  }
  function post(url, next) {
    fetch("labels", {method: "POST", headers: {"Content-Type": "application/json"},
      body: JSON.stringify({url: url, grade: next === null ? null : Number(next)})})
      .then(function (r) {
        if (!r.ok) return r.text().then(function (t) { throw new Error(r.status + ": " + t.trim()); });
        return r.json();
      })
      .then(function (answer) {
        if (answer.grade === null) delete marks[url]; else marks[url] = grade(answer.grade);
        var what = answer.grade === null ? "unmarked" : (answer.grade > 0 ? "relevant" : "not relevant");
        setStatus("Saved in " + answer.file + ": " + url + " " + what + ".", false);
        show();
      })
      .catch(function (e) { setStatus("The mark of " + url + " was not saved: " + e.message, true); });
  }
  function mark(url, g) {
    var next = marks[url] === g ? null : g;
    if (served) {
      post(url, next);
      return;
    }
    if (next === null) delete marks[url]; else marks[url] = next;
    try {
      localStorage.setItem(storeKey, JSON.stringify(marks));
    } catch (e) {
      setStatus("This browser does not keep the marks (" + e.message + "): save them with the link below before leaving.", true);
    }
    show();
  }
  function order(by) {
    var attr = by === "ranked" ? "data-ranked" : "data-crawl";
    document.querySelectorAll("table.top tbody").forEach(function (body) {
      var trs = Array.prototype.slice.call(body.querySelectorAll("tr[data-url]"));
      trs.sort(function (a, b) { return Number(a.getAttribute(attr)) - Number(b.getAttribute(attr)); });
      trs.forEach(function (tr, i) {
        tr.cells[0].textContent = String(i + 1);
        body.appendChild(tr);
      });
    });
  }

  document.addEventListener("click", function (ev) {
    var b = ev.target.closest ? ev.target.closest("button.mark") : null;
    var tr = b ? b.closest("tr[data-url]") : null;
    if (tr) mark(tr.getAttribute("data-url"), b.getAttribute("data-grade"));
  });
  document.querySelectorAll("input[name=order]").forEach(function (input) {
    input.addEventListener("change", function () { if (input.checked) order(input.value); });
    if (input.checked) order(input.value);
  });
  if (location.protocol === "file:") {
    local();
  } else {
    fetch("labels", {cache: "no-store"})
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (answer) { if (answer && answer.labels) fromServer(answer); else local(); })
      .catch(local);
  }
})();`
