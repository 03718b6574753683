// What the report page and the live debugger (correx-tools serve) share: building elements
// from text (never from markup), formatting, and drawing the timeline from a model of it.
// The report builds the model from the data embedded in it; the server sends it.
var CX = (function () {
  "use strict";
  var SVG = "http://www.w3.org/2000/svg";
  // Text from a session is set as text, never parsed; its direction controls are shown as
  // what they are ([U+202E]), so a hostile name cannot reorder what is around it.
  var BIDI = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/g;
  function txt(value) { return String(value).replace(BIDI, function (c) { return "[U+" + c.charCodeAt(0).toString(16).toUpperCase() + "]"; }); }
  function $(id) { return document.getElementById(id); }
  function el(tag, text, cls) { var e = document.createElement(tag); if (text != null) e.textContent = txt(text); if (cls) e.className = cls; return e; }
  function sv(tag, attrs) { var e = document.createElementNS(SVG, tag); for (var k in attrs) e.setAttribute(k, attrs[k]); return e; }
  function row(cells, cls) { var tr = el("tr", null, cls); cells.forEach(function (c) { var td = el("td"); if (c instanceof Node) td.appendChild(c); else td.textContent = c == null ? "–" : txt(c); tr.appendChild(td); }); return tr; }
  function head(names) { var tr = el("tr"); names.forEach(function (n) { tr.appendChild(el("th", n)); }); return tr; }
  function fill(table, names, rows) { table.replaceChildren(head(names)); rows.forEach(function (r) { table.appendChild(r); }); }
  function fmtNum(n) { return n.toLocaleString("en-US"); }
  // "1 invocation", "2,500 invocations": the command's counted() (shell/cli/readable.py).
  function counted(n, noun) { return fmtNum(n) + " " + noun + (n === 1 ? "" : "s"); }
  // A duration as a person says it (4 h 6 min, 2 d 3 h, 850 ms): the command's own rule
  // (shell/cli/readable.py), held to it by a test.
  function two(n, per, big, small) { var r = n % per; return (n - r) / per + " " + big + (r ? " " + r + " " + small : ""); }
  var WAYS = [[1, 1000, function (n) { return n + " µs"; }], [1000, 1000, function (n) { return n + " ms"; }], [1e5, 600, function (n) { return Math.floor(n / 10) + "." + n % 10 + " s"; }], [1e6, 3600, function (n) { return two(n, 60, "min", "s"); }], [6e7, 1440, function (n) { return two(n, 60, "h", "min"); }], [3.6e9, Infinity, function (n) { return two(n, 24, "d", "h"); }]];
  function dur(us) { if (us == null) return "–"; if (us < 0) return "-" + dur(-us); us = Math.round(us); if (us === 0) return "0 s"; for (var i = 0; ; i++) { var w = WAYS[i], n = Math.floor((us + Math.floor(w[0] / 2)) / w[0]); if (n < w[1]) return w[2](n); } }
  function clock(origin, us) { var d = new Date((origin + us) / 1000); return d.toISOString().replace("T", " ").replace("Z", " UTC"); }
  function chip(prefix, status, n) { var c = el("span", null, "chip"); c.id = prefix ? prefix + status : ""; if (prefix === "count-") c.setAttribute("data-testid", "count-" + status); c.appendChild(el("span", null, "dot " + status)); c.appendChild(document.createTextNode(status + " ")); c.appendChild(el("b", fmtNum(n))); return c; }
  function short(name) { return name.length > 20 ? name.slice(0, 19) + "…" : name; }

  // -- the timeline ---------------------------------------------------------------------------
  // model: lanes (tool names), view [from, to] and end (microseconds after origin), origin
  // (microseconds since 1970; null for a session without calls), mode "bars" or "buckets", visible (calls in view), bars
  // [{key, id, tool, status, req, start, end}] (null: none; a start may come before its
  // request, and the bar then reaches back to it), buckets (how many), cells
  // [[lane, bucket, open, completed, failed, rejected]], now (a time or null), selected (a key).
  // on: bar(key), zoom(from, to).
  var dragged = false;
  function drawTimeline(svg, m, on) {
    var width = Math.max(svg.clientWidth || 900, 400), left = 150, right = 16, laneH = 22, top = 24;
    var height = top + m.lanes.length * laneH + 8, span = Math.max(m.view[1] - m.view[0], 1);
    svg.setAttribute("viewBox", "0 0 " + width + " " + height); svg.setAttribute("height", height); svg.replaceChildren();
    function x(t) { return left + (t - m.view[0]) / span * (width - left - right); }
    for (var a = 0; a <= 5; a++) {
      var t = m.view[0] + span * a / 5, label = sv("text", { x: x(t), y: 14, "class": "axis", "text-anchor": a === 0 ? "start" : a === 5 ? "end" : "middle" });
      label.textContent = a === 0 ? (m.origin == null ? "" : clock(m.origin, t)) : "+" + dur(t - m.view[0]); svg.appendChild(label);
      svg.appendChild(sv("line", { x1: x(t), x2: x(t), y1: 18, y2: height, stroke: "#eef0f4" }));
    }
    m.lanes.forEach(function (name, lane) {
      var l = sv("text", { x: 6, y: top + lane * laneH + 15, "class": "lane-label" }); l.textContent = short(txt(name)); svg.appendChild(l);
      var title = sv("title", {}); title.textContent = txt(name); l.appendChild(title);
    });
    svg.setAttribute("data-mode", m.mode); svg.setAttribute("data-visible", m.visible);
    if (m.mode === "bars") m.bars.forEach(function (b) {
      var ends = b.end != null ? b.end : m.end, x0 = x(Math.max(b.start != null ? Math.min(b.req, b.start) : b.req, m.view[0])), x1 = x(Math.min(ends, m.view[1])), y = top + b.tool * laneH + 3;
      var open = b.status === "requested" || b.status === "started";
      var r = sv("rect", { x: x0, y: y, width: Math.max(x1 - x0, 2), height: laneH - 6, rx: 2, "class": "bar " + b.status + (open ? " open" : "") + (b.key === m.selected ? " selected" : ""), "data-index": b.key });
      var title = sv("title", {}); title.textContent = txt(b.id + "\n" + m.lanes[b.tool]) + " · " + b.status + "\nqueued " + dur(b.start != null ? b.start - b.req : null) + " · ran " + dur(b.end != null && b.start != null ? b.end - b.start : null) + " · total " + dur(b.end != null ? b.end - b.req : null);
      r.appendChild(title); svg.appendChild(r);
      if (b.start != null && b.start > m.view[0] && b.start < m.view[1]) svg.appendChild(sv("line", { x1: x(b.start), x2: x(b.start), y1: y, y2: y + laneH - 6, "class": "start-mark" }));
    });
    else {
      var w = (width - left - right) / m.buckets, most = 1;
      m.cells.forEach(function (c) { var calls = c[2] + c[3] + c[4] + c[5]; if (calls > most) most = calls; });
      m.cells.forEach(function (c) {
        // A bucket: its calls by outcome, stacked, under a clear rectangle that takes the clicks.
        var lane = c[0], b = c[1], calls = c[2] + c[3] + c[4] + c[5], x0 = left + b * w, base = top + lane * laneH + laneH - 3;
        var h = Math.max(3, (laneH - 6) * Math.sqrt(calls / most)), parts = [["completed", c[3]], ["failed", c[4]], ["rejected", c[5]], ["started", c[2]]];
        parts.forEach(function (part) { if (!part[1]) return; var ph = h * part[1] / calls; base -= ph; svg.appendChild(sv("rect", { x: x0, y: base, width: Math.max(w - 1, 1), height: ph, "class": "part " + part[0], "pointer-events": "none" })); });
        var r = sv("rect", { x: x0, y: top + lane * laneH + 1, width: Math.max(w - 1, 1), height: laneH - 3, fill: "transparent", "class": "bucket", "data-count": calls, "data-bucket": b });
        var title = sv("title", {}); title.textContent = txt(m.lanes[lane]) + ": " + fmtNum(calls) + " calls · " + c[3] + " completed · " + c[4] + " failed · " + c[5] + " rejected · " + c[2] + " in flight";
        r.appendChild(title); svg.appendChild(r);
      });
    }
    if (m.now != null && m.now >= m.view[0] && m.now <= m.view[1]) svg.appendChild(sv("line", { x1: x(m.now), x2: x(m.now), y1: 18, y2: height, "class": "now" }));
    svg.onclick = function (ev) {
      var target = ev.target.closest ? ev.target.closest("rect") : null; if (!target || dragged) return;
      if (target.classList.contains("bar")) on.bar(target.getAttribute("data-index"));
      else if (target.classList.contains("bucket")) { var b = +target.getAttribute("data-bucket"); on.zoom(m.view[0] + span * b / m.buckets, m.view[0] + span * (b + 1) / m.buckets); }
    };
    brush(svg, left, width - right, height, function (a, b) { var w = width - left - right; on.zoom(m.view[0] + (a - left) / w * span, m.view[0] + (b - left) / w * span); });
  }
  function brush(svg, left, rightEdge, height, done) {
    var from = null, box = null;
    function at(ev) { var r = svg.getBoundingClientRect(); return (ev.clientX - r.left) * (svg.viewBox.baseVal.width / r.width); }
    svg.onmousedown = function (ev) { from = at(ev); dragged = false; };
    svg.onmousemove = function (ev) {
      if (from == null) return; var to = at(ev); if (Math.abs(to - from) < 4) return; dragged = true;
      if (!box) { box = sv("rect", { y: 18, height: height - 18, "class": "brush" }); svg.appendChild(box); }
      box.setAttribute("x", Math.min(from, to)); box.setAttribute("width", Math.abs(to - from));
    };
    svg.onmouseup = function (ev) {
      if (from != null && dragged) done(Math.max(left, Math.min(from, at(ev))), Math.min(rightEdge, Math.max(from, at(ev))));
      from = null; box = null; setTimeout(function () { dragged = false; }, 0);
    };
  }

  // -- views per tool ------------------------------------------------------------------------------
  // A view (core/report/tool_views.py): {kind: "edit", files: [{path, hunks: [{old, new, lines:
  // [[op, text]]}], whole, cut, deleted}]} or {kind: "shell", command, output, cut, exit_code,
  // status, ran}. Every text is set as text; a line is a block of its own.
  function line(pre, text, cls) { pre.appendChild(el("span", text, cls)); }
  function toolView(v) {
    var box = el("div", null, "tool-view " + v.kind);
    if (v.kind === "edit") {
      box.setAttribute("data-testid", "edit-diff");
      v.files.forEach(function (f) {
        box.appendChild(el("div", f.path + (f.whole ? " · written whole (what it held before is not in the transcript)" : f.deleted ? " · deleted" : ""), "diff-path"));
        var pre = el("pre", null, "diff");
        f.hunks.forEach(function (h, k) {
          if (h.old != null || k) line(pre, "@@" + (h.old != null ? " -" + h.old : "") + (h.new != null ? " +" + h.new : "") + " @@", "diff-hunk");
          h.lines.forEach(function (l) { line(pre, l[0] + l[1], l[0] === "+" ? "diff-add" : l[0] === "-" ? "diff-del" : "diff-ctx"); });
        });
        if (f.cut) line(pre, "… longer than a view holds: the arguments have it whole", "diff-hunk");
        box.appendChild(pre);
      });
    } else if (v.kind === "shell") {
      box.setAttribute("data-testid", "shell-output");
      box.appendChild(el("div", "$ " + v.command, "shell-command"));
      var out = el("pre", v.output == null ? (v.ran ? "(no output recorded)" : "(it did not run)") : v.output + (v.cut ? "\n… and " + fmtNum(v.cut) + " more characters" : ""), "terminal");
      box.appendChild(out);
      var code = v.exit_code == null ? (v.ran ? v.status + " · exit code not recorded" : v.status) : "exit " + v.exit_code;
      box.appendChild(el("div", code, "exit-code " + (v.exit_code ? "nonzero" : v.exit_code === 0 ? "zero" : "none")));
    }
    return box;
  }
  // A link to a subagent's session (or from it, to the call that started it): an anchor where the
  // page can open it, otherwise its name and how to open it.
  function subagentLink(text, href) {
    var a = el(href ? "a" : "span", text, "subagent-link"); if (href) a.href = href;
    a.setAttribute("data-testid", "subagent-link"); return a;
  }

  return { txt: txt, $: $, el: el, sv: sv, row: row, head: head, fill: fill, fmtNum: fmtNum, counted: counted, dur: dur, clock: clock, chip: chip, drawTimeline: drawTimeline, toolView: toolView, subagentLink: subagentLink };
})();
