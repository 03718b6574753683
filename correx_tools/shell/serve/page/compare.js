// correx-tools serve: the compare view (/compare?a=A&b=B&row=N). Two sessions side by side at
// their aligned calls (by meaning: each row says what its calls did, and to what), each run with
// how it ended, the first divergence marked, every call a link to its history in its session's
// page, and what each run left of each file side by side; the address holds the row, so a link
// opens exactly there. Every value from a session is set as text (CX.el), never as markup.
// serve.js calls CXCompare once it has signed in.
"use strict";
var CXCompare = function (tools) {
  var $ = CX.$, el = CX.el, fmtNum = CX.fmtNum, counted = CX.counted, dur = CX.dur, enc = encodeURIComponent;
  var STATUSES = ["requested", "started", "completed", "failed", "rejected"];
  var params = new URLSearchParams(location.search), doc = null, selected = 0;
  $("compare-view").hidden = false; document.title = "compare · correx-tools serve";

  // A call, linked to its session's page scrubbed to its request with the call open.
  function callLink(side, call) {
    if (!call) return el("span", "–", "muted");
    var a = el("a", CX.shortId(side.session_id, call.invocation_id || "") + " " + call.tool_name, "ref");
    a.title = CX.txt(call.invocation_id || "");
    if (call.ref != null) a.href = "/sessions/" + enc(side.ref) + "?at=" + call.requested_seq + "&invocation=" + enc(call.ref);
    a.setAttribute("data-ref", call.ref || "");
    return a;
  }
  function brief(call) {
    if (!call || !call.arguments) return "";
    var words = Object.keys(call.arguments).map(function (k) { var v = call.arguments[k]; return typeof v === "string" ? v : JSON.stringify(v); });
    var text = words.join(" ").replace(/\s+/g, " ");
    return text.length > 80 ? text.slice(0, 79) + "…" : text;
  }
  function outcome(call) {
    if (!call) return "";
    var said = call.status + (call.exit_code ? " exit " + call.exit_code : "");
    return call.duration == null ? said : said + " " + dur(Math.round(call.duration * 1e6));
  }
  function cell(side, call) {
    var td = el("td", null, "call"); td.appendChild(callLink(side, call));
    if (call) { td.appendChild(el("div", brief(call), "muted")); td.appendChild(el("div", outcome(call), "status " + call.status)); }
    return td;
  }
  function chips(state) {
    var box = el("div", null, "chips");
    if (!state) return box;
    STATUSES.forEach(function (s) { if (state.statuses[s]) { var c = el("span", s + " ", "chip " + s); c.appendChild(el("b", fmtNum(state.statuses[s]))); box.appendChild(c); } });
    if (state.exited_nonzero) { var c = el("span", "exit ≠ 0 ", "chip failed"); c.appendChild(el("b", fmtNum(state.exited_nonzero))); box.appendChild(c); }
    return box;
  }
  function divergenceRow() { return doc.first_divergence ? doc.first_divergence.a.position : null; }
  // A run: its session, agent and workspace, and how it ended (as its harness wrote).
  function run(name) {
    var side = doc[name], box = $("compare-run-" + name), o = side.outcome;
    box.replaceChildren(el("h3", name + ": " + CX.txt(side.session_id)));
    box.appendChild(el("div", [side.format || "recorded here", counted(side.calls, "call"), side.root ? "in " + CX.txt(side.root) : ""].filter(Boolean).join(" · "), "muted"));
    var p = el("div", null, "outcome"); p.setAttribute("data-testid", "outcome-" + name);
    if (!o) { p.appendChild(el("span", "no outcome recorded", "muted")); box.appendChild(p); return; }
    p.appendChild(el("span", o.verdict, "verdict " + o.verdict.replace(" ", "-")));
    var said = [];
    if (o.evaluated_by) said.push("by " + CX.txt(o.evaluated_by));
    if (o.task) said.push("task " + CX.txt(o.task));
    if (o.exit_status) said.push("exit " + CX.txt(o.exit_status));
    if (o.submitted != null) said.push(o.submitted ? "a patch submitted" : "no patch");
    if (o.cost != null) said.push("$" + o.cost.toFixed(2));
    if (o.model_calls != null) said.push(counted(o.model_calls, "model call"));
    p.appendChild(el("span", " " + said.join(" · "), "muted")); box.appendChild(p);
  }
  // What a row's calls did, and to what (a's, or b's where a has none).
  function what(r) {
    var call = r.a || r.b, td = el("td", null, "what");
    td.appendChild(el("b", call.kind)); td.appendChild(document.createTextNode(" " + CX.txt(call.target)));
    return td;
  }
  function differs(r) {
    if (r.kind === "only_a") return "only in a";
    if (r.kind === "only_b") return "only in b";
    var said = r.differs.map(function (d) { return d.replace(/_/g, " "); });
    if (r.by === "meaning") said.unshift("spelled otherwise");
    return said.join(", ") || "–";
  }

  function render() {
    $("compare-a").textContent = CX.txt(doc.a.session_id); $("compare-b").textContent = CX.txt(doc.b.session_id);
    $("compare-a-link").href = "/sessions/" + enc(doc.a.ref); $("compare-b-link").href = "/sessions/" + enc(doc.b.ref);
    var k = doc.rows_by_kind;
    run("a"); run("b");
    $("compare-summary").textContent = counted(k.same, "matched call") + " (" + fmtNum(doc.by_meaning) + " by meaning, " + fmtNum(doc.same_with_differences) + " with differences), " +
      fmtNum(k.changed) + " changed, " + fmtNum(k.only_a) + " only in a, " + fmtNum(k.only_b) + " only in b";
    var box = $("compare-divergence"); box.replaceChildren();
    if (!doc.first_divergence) box.appendChild(el("p", "No divergence: the two sessions made the same calls."));
    else {
      box.appendChild(el("h3", "First divergence after " + counted(doc.first_divergence.a.position, "matched call")));
      ["a", "b"].forEach(function (name) {
        var d = doc.first_divergence[name], p = el("div", null, "side");
        p.appendChild(el("b", name + ": ")); p.appendChild(callLink(doc[name], d.call));
        p.appendChild(el("span", d.call ? " " + brief(d.call) : " had no more calls", "muted"));
        p.appendChild(el("div", "before it, at event " + fmtNum(d.at) + ":", "muted")); p.appendChild(chips(d.state));
        box.appendChild(p);
      });
    }
    var table = $("compare-table"), head = el("tr");
    ["row", "what", "a", "differs", "b"].forEach(function (h) { head.appendChild(el("th", h)); });
    table.replaceChildren(head);
    var marked = divergenceRow();
    doc.rows.forEach(function (r, i) {
      var number = doc.rows_from + i, tr = el("tr", null, "compare " + r.kind);
      tr.setAttribute("data-row", number);
      if (number === marked) { tr.className += " divergence"; tr.setAttribute("data-testid", "divergence-row"); }
      var n = el("td", String(number)); tr.appendChild(n);
      tr.appendChild(what(r));
      tr.appendChild(cell(doc.a, r.a));
      tr.appendChild(el("td", differs(r), "differs"));
      tr.appendChild(cell(doc.b, r.b));
      tr.onclick = function (ev) { if (ev.target.tagName !== "A") select(number, "push"); };
      table.appendChild(tr);
    });
    var scrubber = $("compare-scrubber");
    scrubber.min = doc.rows_from; scrubber.max = doc.rows_from + Math.max(doc.rows.length - 1, 0);
    scrubber.oninput = function () { select(+this.value, "replace"); };
    $("compare-back").onclick = function () { select(selected - 1, "push"); };
    $("compare-on").onclick = function () { select(selected + 1, "push"); };
    $("compare-go-divergence").disabled = marked == null;
    $("compare-go-divergence").onclick = function () { if (marked != null) select(marked, "push"); };
    $("compare-rows").textContent = fmtNum(doc.rows_from + doc.rows.length);
    files();
  }
  // The aligned point: the row, and each session at its call there (or its last call before it).
  function select(number, how) {
    if (!doc.rows.length) return;
    number = Math.max(doc.rows_from, Math.min(doc.rows_from + doc.rows.length - 1, number));
    selected = number; $("compare-scrubber").value = number; $("compare-row").textContent = String(number);
    document.querySelectorAll("#compare-table tr.selected").forEach(function (tr) { tr.classList.remove("selected"); });
    var tr = document.querySelector("#compare-table tr[data-row='" + number + "']"); if (tr) { tr.classList.add("selected"); tr.scrollIntoView({ block: "nearest" }); }
    ["a", "b"].forEach(function (name) {
      var panel = $("compare-at-" + name), call = null;
      for (var i = number - doc.rows_from; i >= 0 && !call; i--) call = doc.rows[i][name];
      panel.replaceChildren(el("h3", name + ": " + CX.txt(doc[name].session_id)));
      if (!call) { panel.appendChild(el("p", "no call yet", "muted")); return; }
      var p = el("p"); p.appendChild(callLink(doc[name], call)); p.appendChild(el("span", " " + outcome(call), "muted")); panel.appendChild(p);
      var open = el("a", "open " + name + " at event " + fmtNum(call.requested_seq)); open.href = "/sessions/" + enc(doc[name].ref) + "?at=" + call.requested_seq;
      open.setAttribute("data-at", call.requested_seq); panel.appendChild(open);
    });
    var q = new URLSearchParams(location.search); q.set("row", number);
    var url = "/compare?" + q;
    if (url !== location.pathname + location.search) { if (how === "push") history.pushState(null, "", url); else history.replaceState(null, "", url); }
  }
  var MADE = { patch: "its final patch", text: "its text", edits: "its edits", deleted: "deleted", unknown: "changed; what it became is not known" };
  function hunks(change) {
    var lines = [];
    change.hunks.forEach(function (h) { if (h.old != null || h.new != null) lines.push("@@ -" + (h.old == null ? "?" : h.old) + " +" + (h.new == null ? "?" : h.new) + " @@"); h.lines.forEach(function (l) { lines.push(l[0] + l[1]); }); });
    if (change.cut) lines.push("(cut: the change is longer than the comparison keeps)");
    return lines.join("\n");
  }
  // What each run left of one file, side by side, and whether it is the same change.
  function change(c) {
    var verdict = c.same === true ? ["same", "the same change"] : c.same === false ? ["differ", "different"] : ["unknown", "not known"];
    var head = el("div", null, "change-head"); head.appendChild(el("code", CX.txt(c.path))); head.appendChild(el("span", " " + verdict[1], verdict[0]));
    var grid = el("div", null, "change"); grid.setAttribute("data-path", CX.txt(c.path)); grid.setAttribute("data-same", String(c.same));
    ["a", "b"].forEach(function (name) {
      var side = c[name], col = el("div", null, "side-" + name);
      if (!side) col.appendChild(el("div", name + ": not changed", "muted"));
      else {
        col.appendChild(el("div", name + ": " + MADE[side.of] + (side.by ? " (by " + CX.txt(side.by) + ")" : "") + " · " + counted(side.edits, "edit"), "muted"));
        if (side.hunks.length) { var pre = el("pre", hunks(side), "file-diff"); pre.setAttribute("data-side", name); col.appendChild(pre); }
      }
      grid.appendChild(col);
    });
    return [head, grid];
  }
  function files() {
    var w = doc.workspace, box = $("compare-files"); box.replaceChildren();
    ["a", "b"].forEach(function (name) {
      var list = w[name + "_files"];
      box.appendChild(el("p", "files " + name + " changed: " + (list.length ? list.map(function (f) { return CX.txt(f.path) + " (" + (f.change === "patch" ? "final patch" : counted(f.edits, "edit")) + ")"; }).join(", ") : "none")));
    });
    var said = w.differing.length ? "the runs' final changes differ in " + w.differing.length + " file(s)" : w.unknown.length ? "not known whether " + w.unknown.length + " file(s) differ" : "the two runs' files never differ";
    if (w.first_difference) said += "; the files first differ after row " + fmtNum(w.first_difference.row);
    box.appendChild(el("p", said, "muted"));
    w.changes.forEach(function (c) { change(c).forEach(function (node) { box.appendChild(node); }); });
  }

  tools.api("/compare", { a: params.get("a"), b: params.get("b"), limit: 1000 }).then(function (d) {
    doc = d; tools.showError(null); render();
    var asked = params.get("row"), start = asked != null && asked !== "" ? +asked : divergenceRow();
    select(start == null ? doc.rows_from : start, "replace");
    window.onpopstate = function () { var r = new URLSearchParams(location.search).get("row"); if (r != null) select(+r, "none"); };
    document.body.setAttribute("data-ready", "1");
  }).catch(function (error) { tools.showError(error); document.body.setAttribute("data-ready", "1"); });
};
