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
  // A moment in the viewer's own zone ("2026-02-11 06:11:52.438"), and as an element with its UTC
  // value on hover (title): every time a person reads is local, the exact one a hover away.
  function pad2(n) { return (n < 10 ? "0" : "") + n; }
  function localTime(ms) {
    var d = new Date(ms), frac = d.getMilliseconds();
    return d.getFullYear() + "-" + pad2(d.getMonth() + 1) + "-" + pad2(d.getDate()) + " " + pad2(d.getHours()) + ":" + pad2(d.getMinutes()) + ":" + pad2(d.getSeconds()) + (frac ? "." + ("00" + frac).slice(-3) : "");
  }
  function utcTime(ms) { return new Date(ms).toISOString().replace("T", " ").replace("Z", " UTC"); }
  function timeEl(ms, exact) {
    if (ms == null || isNaN(ms)) return el("span", "–");
    var t = el("span", localTime(ms), "time"); t.title = exact ? exact.replace("T", " ").replace("Z", " UTC") : utcTime(ms); return t;
  }
  function clock(origin, us) { var d = new Date((origin + us) / 1000); return d.toISOString().replace("T", " ").replace("Z", " UTC"); }
  // A count: "failed 3". The non-zero exits' chip (key "exited_nonzero") reads "exited non-zero".
  var LABELS = { exited_nonzero: "exited non-zero" };
  function chip(prefix, status, n) { var c = el("span", null, "chip"), label = LABELS[status] || status; c.id = prefix ? prefix + status : ""; if (prefix === "count-") c.setAttribute("data-testid", "count-" + status); c.title = means(label) || ""; c.appendChild(el("span", null, "dot " + (status === "exited_nonzero" ? "exited" : status))); c.appendChild(document.createTextNode(label + " ")); c.appendChild(el("b", fmtNum(n))); return c; }
  // The chips of counts by status, the non-zero exits beside "failed" (they are among the
  // completed calls: a non-zero exit is not a status of its own).
  function chips(box, prefix, counts, nonzero) {
    box.replaceChildren();
    ["requested", "started", "completed", "failed"].forEach(function (s) { box.appendChild(chip(prefix, s, counts[s])); });
    box.appendChild(chip(prefix, "exited_nonzero", nonzero)); box.appendChild(chip(prefix, "rejected", counts.rejected));
  }
  // An exit code as the pages say it: "exit 1" in the colour of a failure, "exit 0"; none
  // where none was recorded (a file read, a transcript that states none).
  function exitCode(code, cls) { return el("span", "exit " + code, (cls || "exit-code") + (code ? " nonzero" : " zero")); }
  // The legend of the timeline's colours.
  function legend(box) {
    box.replaceChildren();
    [["requested", "requested"], ["started", "started"], ["completed", "completed"], ["exited", "exited non-zero"], ["failed", "failed"], ["rejected", "rejected"]].forEach(function (l) {
      var item = el("span", null, "legend-item"); item.title = means(l[1]) || ""; item.appendChild(el("span", null, "dot " + l[0])); item.appendChild(document.createTextNode(l[1])); box.appendChild(item);
    });
  }
  function short(name) { return name.length > 20 ? name.slice(0, 19) + "…" : name; }
  // An invocation's id without its session's own prefix, as the command prints it
  // (core/tools/short_ids.py: short_invocation_id), held to it by a test.
  var SEPARATORS = "/:-_.#";
  function shortId(session, id) {
    session = String(session); id = String(id); var n = session.length;
    return id.length > n + 1 && SEPARATORS.indexOf(id.charAt(n)) >= 0 && id.slice(0, n) === session ? id.slice(n + 1) : id;
  }
  // A status or a tool's name: one word, never broken in the middle.
  function word(text) { return el("span", text == null ? "–" : text, "word"); }

  // -- the words the pages use ---------------------------------------------------------------------
  var GLOSSARY = [
    ["requested", "The agent asked for the call; it has not started."],
    ["started", "The call is running."],
    ["completed", "The call ran to its end and gave a result (its exit code may still say it went wrong: then it also counts as exited non-zero)."],
    ["exited non-zero", "The call ran to its end, but its exit code is not 0: the command says it went wrong. It is one of the completed calls, drawn in its own colour; the failure keys and buttons stop at it."],
    ["failed", "The call could not run, or ended in an error; the reason says why, and whether the agent could go on (recoverable)."],
    ["rejected", "The call was turned down before it ran: by a policy, or by the person asked to approve it."],
    ["in flight", "Requested or started, and not ended yet."],
    ["prompt", "What the person asked: it starts a turn."],
    ["said", "What the assistant said, in words, between its calls."],
    ["reasoning", "The assistant's reasoning, as the transcript recorded it."],
    ["tokens", "What a message of the model spent, in tokens: new input, output, and the context read from or written to a cache."],
    ["described", "Where the session was imported from: the transcript's format, the agent's own session id, its working directory."],
    ["refused", "An event the lifecycle does not allow (a second start, a result after the call ended, a call never requested). The store keeps it; a strict replay stops there, a lenient one (serve --lenient) skips it and lists it here with why."],
    ["tier", "How much approval a tool needs before it runs: auto (none), confirm (a person confirms), elevated (the most: shell commands, network access)."],
    ["sequence", "An event's number in its session: 1, 2, 3 and on. \"At K\" is the state right after event K; 0 is before the first."],
    ["step", "A session whose transcript records no time is laid out by its events' sequences: its timeline's axis counts events, and no time or duration is shown."],
    ["short id", "A call's id without its session's id in front, as the command prints it; point at it for the whole id."],
    ["recoverable", "Whether the agent could go on after the failure (retry, or do something else)."],
    ["illegal transition", "A refused event that its call's status does not allow, such as a start after the call ended."],
    ["duplicate invocation", "A refused second request for an id already requested."],
    ["unknown invocation", "A refused event about a call that was never requested."],
    ["time regression", "A refused ending recorded before its call was requested."]
  ];
  var MEANS = {}; GLOSSARY.forEach(function (g) { MEANS[g[0]] = g[1]; });
  function means(term) { return Object.prototype.hasOwnProperty.call(MEANS, term) ? MEANS[term] : null; }
  // A word of the glossary, with what it means on hover (text from a session is never one).
  function term(text, key) { var meaning = means(key || text); if (!meaning) return word(text); var a = el("abbr", text, "word"); a.title = meaning; return a; }
  // The title of "what changed since the scrubber's last position": nothing to say before it moved.
  function changedTitle(from, to, total) { return from === to ? "Changed since the last position" : "Changed from " + fmtNum(from) + " to " + fmtNum(to) + ": " + fmtNum(total); }
  function unchangedRow(columns) { var tr = el("tr", null, "nothing-yet"), td = el("td", "Move the scrubber: the calls that changed between where it was and where it is come here.", "muted"); td.colSpan = columns; tr.appendChild(td); return tr; }

  // -- the timeline ---------------------------------------------------------------------------
  // model: lanes (tool names), view [from, to] and end (microseconds after origin), origin
  // (microseconds since 1970; null for a session without calls), mode "bars" or "buckets", visible (calls in view), bars
  // [{key, id, tool, status, nonzero, req, start, end}] (null: none; a start may come before its
  // request, and the bar then reaches back to it), buckets (how many), cells
  // [[lane, bucket, open, completed, failed, rejected, exited non-zero]], now (a time or null),
  // selected (a key). axis "sequence" (a session that records no time): every time is an
  // event's sequence (origin the first), and none is shown as a time or a duration.
  // turns (optional): [{turn, from, to, prompt (a time or null), sequence (the prompt's), title}],
  // drawn as bands behind the lanes, each prompt a mark that can be clicked or focused (Tab) and
  // taken with Enter or Space.
  // on: bar(key), zoom(from, to), prompt(sequence).
  var dragged = false;
  function drawTimeline(svg, m, on) {
    var width = Math.max(svg.clientWidth || 900, 400), left = 150, right = 16, laneH = 22, top = 24;
    var height = top + m.lanes.length * laneH + 8, span = Math.max(m.view[1] - m.view[0], 1);
    svg.setAttribute("viewBox", "0 0 " + width + " " + height); svg.setAttribute("height", height); svg.replaceChildren();
    function x(t) { return left + (t - m.view[0]) / span * (width - left - right); }
    var steps = m.axis === "sequence";
    svg.setAttribute("data-axis", steps ? "sequence" : "time");
    for (var a = 0; a <= 5; a++) {
      var t = m.view[0] + span * a / 5, label = sv("text", { x: x(t), y: 14, "class": "axis", "text-anchor": a === 0 ? "start" : a === 5 ? "end" : "middle" });
      if (steps) label.textContent = (a === 0 ? "step (sequence) " : "") + (m.origin == null ? "" : fmtNum(Math.round(m.origin + t)));
      else label.textContent = a === 0 ? (m.origin == null ? "" : clock(m.origin, t)) : "+" + dur(t - m.view[0]);
      svg.appendChild(label);
      svg.appendChild(sv("line", { x1: x(t), x2: x(t), y1: 18, y2: height, stroke: "#eef0f4" }));
    }
    (m.turns || []).forEach(function (u, n) {
      // A turn: a band from its prompt to its last event, every other one shaded.
      var from = Math.max(u.from, m.view[0]), to = Math.min(u.to, m.view[1]);
      if (to >= from) svg.appendChild(sv("rect", { x: x(from), y: 18, width: Math.max(x(to) - x(from), 1), height: height - 18, "class": "turn-band" + (n % 2 ? " odd" : ""), "data-turn": u.turn, "pointer-events": "none" }));
      if (u.prompt == null || u.prompt < m.view[0] || u.prompt > m.view[1]) return;
      var mark = sv("path", { d: "M" + (x(u.prompt) - 5) + " 16 L" + (x(u.prompt) + 5) + " 16 L" + x(u.prompt) + " 24 Z", "class": "prompt-mark", tabindex: 0, role: "button", "data-sequence": u.sequence, "aria-label": "prompt of turn " + u.turn + " at sequence " + u.sequence });
      var tip = sv("title", {}); tip.textContent = "prompt · turn " + u.turn + " · sequence " + u.sequence + (u.title ? "\n" + txt(u.title) : ""); mark.appendChild(tip);
      mark.onkeydown = function (ev) { if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); on.prompt(u.sequence); } };
      svg.appendChild(mark);
    });
    m.lanes.forEach(function (name, lane) {
      var l = sv("text", { x: 6, y: top + lane * laneH + 15, "class": "lane-label" }); l.textContent = short(txt(name)); svg.appendChild(l);
      var title = sv("title", {}); title.textContent = txt(name); l.appendChild(title);
    });
    svg.setAttribute("data-mode", m.mode); svg.setAttribute("data-visible", m.visible);
    if (m.mode === "bars") m.bars.forEach(function (b) {
      var ends = b.end != null ? b.end : m.end, x0 = x(Math.max(b.start != null ? Math.min(b.req, b.start) : b.req, m.view[0])), x1 = x(Math.min(ends, m.view[1])), y = top + b.tool * laneH + 3;
      var open = b.status === "requested" || b.status === "started";
      var r = sv("rect", { x: x0, y: y, width: Math.max(x1 - x0, 2), height: laneH - 6, rx: 2, "class": "bar " + b.status + (b.nonzero ? " exited" : "") + (open ? " open" : "") + (b.key === m.selected ? " selected" : ""), "data-index": b.key });
      var title = sv("title", {}), said = b.status + (b.nonzero ? " · exited non-zero" : "");
      function at(t) { return t == null ? "–" : fmtNum(Math.round(m.origin + t)); }
      title.textContent = txt(b.id + "\n" + m.lanes[b.tool]) + " · " + said + (steps
        ? "\nrequested at sequence " + at(b.req) + " · started at " + at(b.start) + " · ended at " + at(b.end) + " (no times recorded)"
        : "\nqueued " + dur(b.start != null ? b.start - b.req : null) + " · ran " + dur(b.end != null && b.start != null ? b.end - b.start : null) + " · total " + dur(b.end != null ? b.end - b.req : null));
      r.appendChild(title); svg.appendChild(r);
      if (b.start != null && b.start > m.view[0] && b.start < m.view[1]) svg.appendChild(sv("line", { x1: x(b.start), x2: x(b.start), y1: y, y2: y + laneH - 6, "class": "start-mark" }));
    });
    else {
      var w = (width - left - right) / m.buckets, most = 1;
      m.cells.forEach(function (c) { var calls = c[2] + c[3] + c[4] + c[5]; if (calls > most) most = calls; });
      m.cells.forEach(function (c) {
        // A bucket: its calls by outcome, stacked, under a clear rectangle that takes the clicks.
        var lane = c[0], b = c[1], calls = c[2] + c[3] + c[4] + c[5], x0 = left + b * w, base = top + lane * laneH + laneH - 3;
        var nonzero = c[6] || 0, h = Math.max(3, (laneH - 6) * Math.sqrt(calls / most)), parts = [["completed", c[3] - nonzero], ["exited", nonzero], ["failed", c[4]], ["rejected", c[5]], ["started", c[2]]];
        parts.forEach(function (part) { if (!part[1]) return; var ph = h * part[1] / calls; base -= ph; svg.appendChild(sv("rect", { x: x0, y: base, width: Math.max(w - 1, 1), height: ph, "class": "part " + part[0], "pointer-events": "none" })); });
        var r = sv("rect", { x: x0, y: top + lane * laneH + 1, width: Math.max(w - 1, 1), height: laneH - 3, fill: "transparent", "class": "bucket", "data-count": calls, "data-bucket": b });
        var title = sv("title", {}); title.textContent = txt(m.lanes[lane]) + ": " + fmtNum(calls) + " calls · " + c[3] + " completed (" + nonzero + " exited non-zero) · " + c[4] + " failed · " + c[5] + " rejected · " + c[2] + " in flight";
        r.appendChild(title); svg.appendChild(r);
      });
    }
    if (m.now != null && m.now >= m.view[0] && m.now <= m.view[1]) svg.appendChild(sv("line", { x1: x(m.now), x2: x(m.now), y1: 18, y2: height, "class": "now" }));
    svg.onclick = function (ev) {
      var mark = ev.target.closest ? ev.target.closest(".prompt-mark") : null;
      if (mark && !dragged && on.prompt) { on.prompt(+mark.getAttribute("data-sequence")); return; }
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
    if (v.kind === "edit" && v.applied === false) {
      // An edit that did not take effect has no diff: what it was about, and why, in words.
      box.setAttribute("data-testid", "edit-not-applied");
      box.appendChild(el("p", "Nothing was changed: " + (v.status === "completed" ? "the tool answered that it did not apply the edit" : v.status === "failed" ? "the edit failed" : v.status === "rejected" ? "the edit was refused before it ran" : "the edit has not finished") + (v.paths && v.paths.length ? " (" + v.paths.join(", ") + ")" : "") + ".", "edit-outcome"));
      box.appendChild(el("pre", v.why, "edit-why"));
    } else if (v.kind === "edit") {
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
      var out = el("pre", v.output == null ? (v.ran ? "(no output recorded)" : "(it did not run)") : outputText(v.output) + (v.cut ? "\n… and " + fmtNum(v.cut) + " more characters" : ""), "terminal");
      box.appendChild(out);
      if (v.exit_code == null) box.appendChild(el("div", v.ran ? v.status + " · exit code not recorded" : v.status, "exit-code none"));
      else { var code = el("div", null, "exit-code " + (v.exit_code ? "nonzero" : "zero")); code.textContent = "exit " + v.exit_code; box.appendChild(code); }
    }
    return box;
  }

  // -- a call's output, as a person reads it ---------------------------------------------------------
  // The text of an output: a string, or the text an object or a list of blocks holds ({"output":
  // "…", "metadata": …}, even written as a JSON string, as Codex does; {stdout, stderr};
  // [{type: "text", text}]); null for an output that is data. Line ends become "\n" (SWE-agent
  // writes "\r\n"). The server masked the whole value before it sent it.
  var TEXT_KEYS = ["output", "stdout", "stderr", "content", "text"];
  function outputText(value) { var text = textOf(value, 0); return text == null ? null : text.replace(/\r\n?/g, "\n"); }
  function textOf(value, depth) {
    if (typeof value === "string") {
      if (!depth && value.charAt(0) === "{" && value.charAt(value.length - 1) === "}") {
        try { var inner = textOf(JSON.parse(value), 1); if (inner != null) return inner; } catch (e) { /* text that only looks like JSON */ }
      }
      return value;
    }
    if (depth > 2 || value == null || typeof value !== "object") return null;
    if (Array.isArray(value)) {
      var parts = [];
      for (var i = 0; i < value.length; i++) {
        var part = value[i];
        if (typeof part === "string") parts.push(part);
        else if (part && typeof part === "object" && typeof part.text === "string") parts.push(part.text);
        else return null;
      }
      return parts.length ? parts.join("\n") : null;
    }
    var texts = [];
    TEXT_KEYS.forEach(function (key) { var t = value[key], found = typeof t === "string" ? t : Array.isArray(t) ? textOf(t, depth + 1) : null; if (found) texts.push(found); });
    return texts.length ? texts.join("\n") : null;
  }
  var MAX_TEXT = 200000;  // characters a view holds (core/report/tool_views.py MAX_OUTPUT)

  // A file read: the tools that read one, by the name each agent gives it (lower case, after a
  // Goose extension's "__"), and the editors whose "view" command reads one.
  var READERS = { read: 1, read_file: 1, view: 1, open: 1, goto: 1, scroll_up: 1, scroll_down: 1, notebookread: 1 };
  var EDITORS = { str_replace_editor: 1, file_editor: 1, text_editor: 1 };
  var PATHS = ["file_path", "path", "filePath", "filename", "absolute_path", "target_file", "file"];
  var PARTS = ["offset", "line", "line_number", "start_line", "view_range", "limit"];
  function has(table, key) { return Object.prototype.hasOwnProperty.call(table, key); }
  function readsAFile(tool, args) {
    var name = String(tool).toLowerCase(), cut = name.lastIndexOf("__"); if (cut >= 0) name = name.slice(cut + 2);
    return has(READERS, name) || (has(EDITORS, name) && !!args && args.command === "view");
  }
  // A line as the agents number a file's lines: "     1→text" (Claude Code), "     1\ttext" (cat -n,
  // as OpenHands shows a file), "00001| text" (OpenCode), "1:text" (SWE-agent, under its
  // "[File: …]" line). Read without a pattern: digits, then the mark. [number, mark, text] or null.
  function numbered(line, swe) {
    var i = 0; while (i < line.length && line.charAt(i) === " ") i++;
    var j = i; while (j < line.length && j - i < 10 && line.charCodeAt(j) >= 48 && line.charCodeAt(j) <= 57) j++;
    if (j === i) return null;
    var at = line.charAt(j), padded = j >= 6;
    if ((at === "→" || at === "\t") && padded) return [+line.slice(i, j), at, line.slice(j + 1)];
    if (at === "|" && line.charAt(j + 1) === " " && i === 0 && j === 5) return [+line.slice(0, 5), "|", line.slice(j + 2)];
    if (at === ":" && swe && i === 0) return [+line.slice(0, j), ":", line.slice(j + 1)];
    return null;
  }
  // The file's lines, [number or null, text]: the numbers the agent wrote where it numbered them
  // (its other lines, such as a header, unnumbered), else from 1 for a whole file (none for a part).
  function fileLines(text, args) {
    var lines = text.split("\n"); if (lines.length > 1 && lines[lines.length - 1] === "") lines.pop();
    var swe = /^\[File: /.test(lines[0] || ""), mark = null, next = null, count = 0;
    var found = lines.map(function (line) {
      var n = numbered(line, swe);
      if (n && (mark == null || n[1] === mark) && (next == null || n[0] === next)) { mark = n[1]; next = n[0] + 1; count++; return [n[0], n[2]]; }
      return [null, line];
    });
    if (count && count * 2 >= lines.length) return found;
    var part = !!args && PARTS.some(function (key) { return has(args, key) && args[key] != null; });
    return lines.map(function (line, k) { return [part ? null : k + 1, line]; });
  }
  function pathOf(args, text) {
    var header = /^\[File: (.*) \(\d+ lines total\)\]/.exec(text.slice(0, 4096));
    if (header) return header[1];
    for (var i = 0; args && i < PATHS.length; i++) if (typeof args[PATHS[i]] === "string") return args[PATHS[i]];
    return null;
  }
  function fileView(path, text, cut, args) {
    var box = el("div", null, "tool-view read"); box.setAttribute("data-testid", "file-read");
    var lines = fileLines(text, args);
    var numbers = lines.filter(function (l) { return l[0] != null; }).map(function (l) { return l[0]; });
    box.appendChild(el("div", (path || "a file") + " · " + (numbers.length ? "lines " + fmtNum(numbers[0]) + "–" + fmtNum(numbers[numbers.length - 1]) : counted(lines.length, "line")), "diff-path"));
    var pre = el("pre", null, "file");
    lines.forEach(function (l) {
      var span = el("span", null, l[0] == null ? "file-line note" : "file-line");
      span.appendChild(el("span", l[0] == null ? "" : String(l[0]), "ln"));
      span.appendChild(document.createTextNode(txt(l[1]))); pre.appendChild(span);
    });
    if (cut) pre.appendChild(el("span", "… and " + fmtNum(cut) + " more characters: the raw JSON below has them", "file-line note"));
    box.appendChild(pre); return box;
  }
  function textView(text, cut) {
    var pre = el("pre", text + (cut ? "\n… and " + fmtNum(cut) + " more characters: the raw JSON below has them" : ""), "output");
    pre.setAttribute("data-testid", "output-text"); return pre;
  }
  // One call's body, on both pages: how it reads best (the server's edit or shell view, else its
  // output as text or as the file it read), then its arguments, reason and receipt, the output
  // shown once (the receipt's raw JSON folded under it). r: {tool_name, arguments, reason,
  // recoverable, receipt}; view: what core/report/tool_views.py made of it, or null.
  function callDetails(box, r, view) {
    var receipt = r.receipt, text = receipt ? outputText(receipt.output) : null, shown = false;
    if (view && (view.kind === "edit" || view.kind === "shell")) {
      box.appendChild(el("h3", viewTitle(view))); box.appendChild(toolView(view));
      shown = view.kind === "shell" && view.output != null && receipt != null;
    }
    if (!shown && text === "") { box.appendChild(el("h3", "Output")); box.appendChild(el("p", "(it gave no output)", "muted")); shown = true; }
    if (!shown && text != null) {
      var cut = Math.max(0, text.length - MAX_TEXT), whole = cut ? text.slice(0, MAX_TEXT) : text, file = readsAFile(r.tool_name, r.arguments);
      box.appendChild(el("h3", file ? "File read" : "Output"));
      box.appendChild(file ? fileView(pathOf(r.arguments, whole), whole, cut, r.arguments) : textView(whole, cut)); shown = true;
    }
    box.appendChild(el("h3", "Arguments")); box.appendChild(el("pre", JSON.stringify(r.arguments, null, 2), "arguments"));
    if (r.reason != null) {
      var why = el("h3", "Reason");
      if (r.recoverable != null) { why.appendChild(document.createTextNode(" (")); why.appendChild(term(r.recoverable ? "recoverable" : "not recoverable", "recoverable")); why.appendChild(document.createTextNode(")")); }
      box.appendChild(why); box.appendChild(el("pre", String(r.reason).replace(/\r\n?/g, "\n"), "reason"));
    }
    if (receipt) {
      // The exit code the call recorded (null: none was; the document says so, never a 0).
      var title = el("h3", "Receipt · ");
      title.appendChild(receipt.exit_code == null ? document.createTextNode("exit code not recorded") : exitCode(receipt.exit_code, "receipt-exit"));
      box.appendChild(title);
      var cut = receipt.metadata && receipt.metadata.cut;
      if (cut) { var said = el("p", "Cut to fit the store: " + cut + " (the original's size and SHA-256)", "cut-note"); said.setAttribute("data-testid", "cut-note"); box.appendChild(said); }
      var raw = el("pre", JSON.stringify({ output: receipt.output, metadata: receipt.metadata }, null, 2), "raw");
      if (!shown) { box.appendChild(raw); return; }
      var meta = receipt.metadata || {}, keys = Object.keys(meta);
      if (keys.length) box.appendChild(el("p", keys.map(function (k) { return k + ": " + meta[k]; }).join(" · "), "muted metadata"));
      var fold = el("details", null, "raw-json"); fold.appendChild(el("summary", "raw JSON: the output as it was recorded, and its metadata")); fold.appendChild(raw); box.appendChild(fold);
    }
  }

  function viewTitle(view) { return view.kind === "shell" ? "Terminal" : view.applied === false ? "Edit not applied" : "What it changed"; }

  // A link to a subagent's session (or from it, to the call that started it): an anchor where the
  // page can open it, otherwise its name and how to open it.
  function subagentLink(text, href) {
    var a = el(href ? "a" : "span", text, "subagent-link"); if (href) a.href = href;
    a.setAttribute("data-testid", "subagent-link"); return a;
  }

  return { txt: txt, $: $, el: el, sv: sv, row: row, head: head, fill: fill, fmtNum: fmtNum, counted: counted, dur: dur, clock: clock, localTime: localTime, utcTime: utcTime, timeEl: timeEl, chip: chip, chips: chips, exitCode: exitCode, legend: legend, viewTitle: viewTitle, drawTimeline: drawTimeline, toolView: toolView, subagentLink: subagentLink,
    shortId: shortId, word: word, term: term, means: means, GLOSSARY: GLOSSARY, changedTitle: changedTitle, unchangedRow: unchangedRow, outputText: outputText, fileLines: fileLines, callDetails: callDetails };
})();
