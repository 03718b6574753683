// correx-tools serve: the page. Everything comes from /api/v1; every value from a session is
// set as text (CX.el, CX.row), never as markup. The address holds where you are
// (/sessions/ID?at=K&invocation=REF&a=A&b=B&from=T&to=T), so a link opens exactly there and
// Back and Forward move through what you looked at.
"use strict";
(function () {
  var $ = CX.$, el = CX.el, row = CX.row, fill = CX.fill, fmtNum = CX.fmtNum, counted = CX.counted, dur = CX.dur;
  var API = "/api/v1", STATUSES = ["requested", "started", "completed", "failed", "rejected"];
  var enc = encodeURIComponent;

  // Who asks: the link's single-use code (#code=…) is traded once for this browser's credential,
  // kept in this origin's storage (a cookie would go to every port of the host) and sent as a header.
  var KEY = "correx-serve-credential", credential = null;
  try { credential = localStorage.getItem(KEY); } catch (e) { /* no storage: a link per page */ }
  function authorized(headers) { if (credential) headers.Authorization = "Bearer " + credential; return headers; }
  function answered(response) {
    return response.json().catch(function () { return {}; }).then(function (body) {
      if (!response.ok) throw new Error(body.error || response.status + " " + response.statusText);
      return body;
    });
  }
  function forget(response) {  // a credential of a server since restarted
    if (response.status === 401 && credential) { credential = null; try { localStorage.removeItem(KEY); } catch (e) { /* gone anyway */ } }
    return response;
  }
  function signIn() {
    var code = new URLSearchParams(location.hash.slice(1)).get("code");
    if (!code) return Promise.resolve();
    var here = new URL(location.href); here.hash = ""; history.replaceState(history.state, "", here.href);
    return fetch(API + "/credential", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ code: code }) })
      .then(answered).then(function (d) { credential = d.credential; try { localStorage.setItem(KEY, credential); } catch (e) { /* this page only */ } });
  }
  function api(path, params) {
    var query = new URLSearchParams();
    Object.keys(params || {}).forEach(function (k) { if (params[k] != null && params[k] !== "") query.set(k, params[k]); });
    var url = API + path + (String(query) ? "?" + query : "");
    return fetch(url, { credentials: "omit", headers: authorized({ Accept: "application/json" }) }).then(forget).then(answered);
  }
  // An error about the address (a sequence out of range, an unknown invocation) stays shown
  // until the address changes; any other lasts until the next answer.
  var sticky = null;
  function showError(error) { $("error").textContent = error ? CX.txt(error.message || error) : sticky ? CX.txt(sticky) : ""; }
  function link(text, ref, open) { var a = el("a", text, "ref"); a.href = "#"; a.title = CX.txt(text); a.setAttribute("data-ref", ref); a.onclick = function (ev) { ev.preventDefault(); open(ref); }; return a; }
  function seconds(s) { return s == null ? "–" : dur(Math.round(s * 1e6)); }

  // -- the sessions -----------------------------------------------------------------------------
  var LIST_COLUMNS = [["session", "session"], ["events", "events"], ["invocations", "invocations"], ["completed", "completed"], ["failed", "failed"],
    ["rejected", "rejected"], ["open", "open"], ["refused", "refused"], ["first", "first event"], ["last", "last event"]];
  var list = { offset: 0, limit: 50, sort: "session", q: "" }, listTimer = null;
  function sessionsView() {
    $("sessions-view").hidden = false; document.title = "correx-tools serve";
    var params = new URLSearchParams(location.search);
    list.q = params.get("q") || ""; list.sort = params.get("sort") || "session"; list.offset = +(params.get("offset") || 0);
    $("filter").value = list.q;
    $("filter").oninput = function () { list.q = this.value; list.offset = 0; listUrl(); loadSessions(); };
    $("sessions-prev").onclick = function () { list.offset = Math.max(0, list.offset - list.limit); listUrl(); loadSessions(); };
    $("sessions-next").onclick = function () { list.offset += list.limit; listUrl(); loadSessions(); };
    loadSessions();
    listTimer = setInterval(loadSessions, 5000);
    everywhere();
  }
  function listUrl() {
    var q = new URLSearchParams(); if (list.q) q.set("q", list.q); if (list.sort !== "session") q.set("sort", list.sort); if (list.offset) q.set("offset", list.offset);
    history.replaceState(null, "", "/" + (String(q) ? "?" + q : ""));
  }
  function loadSessions() {
    api("/sessions", { q: list.q, sort: list.sort, offset: list.offset, limit: list.limit }).then(function (d) {
      showError(null); $("source").textContent = CX.txt(d.source);
      var table = $("sessions"), tr = el("tr");
      LIST_COLUMNS.forEach(function (c) {
        var key = c[0], th = el("th", c[1] + (list.sort === key ? " ▲" : list.sort === "-" + key ? " ▼" : ""), list.sort.replace("-", "") === key ? "sorted" : "");
        th.onclick = function () { list.sort = list.sort === key ? "-" + key : key; list.offset = 0; listUrl(); loadSessions(); }; tr.appendChild(th);
      });
      table.replaceChildren(tr);
      d.sessions.forEach(function (s) {
        var a = el("a", s.session_id); a.href = "/sessions/" + enc(s.ref);
        var st = s.statuses;
        if (s.damaged) {  // its events do not hold together: no counts, and why
          a.title = s.damaged;
          table.appendChild(row([a, fmtNum(s.events), el("span", "damaged: " + s.damaged, "damaged"), "", "", "", "", "", "", ""]));
          return;
        }
        table.appendChild(row([a, fmtNum(s.events), fmtNum(s.invocations), fmtNum(st.completed), fmtNum(st.failed), fmtNum(st.rejected), fmtNum(st.requested + st.started), fmtNum(s.refused_events), s.first_time, s.last_time]));
      });
      table.setAttribute("data-total", d.total);
      $("sessions-count").textContent = d.total ? fmtNum(d.offset + 1) + "–" + fmtNum(d.offset + d.sessions.length) + " of " + fmtNum(d.total) : "no sessions";
      $("sessions-prev").disabled = d.offset === 0; $("sessions-next").disabled = d.offset + d.sessions.length >= d.total;
      document.body.setAttribute("data-ready", "1");
    }).catch(showError);
  }

  // -- every session: one search over them all, a page at a time ---------------------------------
  var found = null;
  function everywhere() {
    STATUSES.forEach(function (s) { $("everywhere-status").appendChild(el("option", s)); });
    $("everywhere-run").onclick = searchEverywhere;
    $("everywhere-text").onkeydown = function (ev) { if (ev.key === "Enter") searchEverywhere(); };
    $("everywhere-more").onclick = moreEverywhere;
  }
  function searchEverywhere() {
    found = { q: $("everywhere-text").value, tool: $("everywhere-tool").value, status: $("everywhere-status").value, after: "", count: 0 };
    $("everywhere-results").replaceChildren(CX.head(["session", "invocation", "tool", "status", "at seq", "found in"])); moreEverywhere();
  }
  function moreEverywhere() {
    var f = found;
    api("/search", { q: f.q, tool: f.tool, status: f.status, after: f.after, limit: 50 }).then(function (d) {
      var table = $("everywhere-results");
      d.matches.forEach(function (m) {
        var s = el("a", m.session_id); s.href = "/sessions/" + enc(m.session_ref);
        var a = el("a", m.invocation_id, "hit"); a.href = m.href; a.setAttribute("data-testid", "search-hit");
        table.appendChild(row([s, a, m.tool_name, m.status, m.at, m.where.join(", ")], "match"));
      });
      f.count += d.matches.length; f.after = d.next || "";
      table.setAttribute("data-found", f.count);
      $("everywhere-summary").textContent = fmtNum(f.count) + " found · " + fmtNum(d.searched) + " of " + fmtNum(d.sessions) + " sessions searched" + (d.skipped.length ? " · " + d.skipped.length + " could not be searched" : "");
      $("everywhere-more").hidden = d.next == null;
    }).catch(showError);
  }

  // -- one session: where the page is ------------------------------------------------------------
  var S = { ref: null, last: 0, at: null, shown: null, follow: false, view: null, model: null, now: null, selected: null, diff: null, search: null };
  function sessionUrl(replace) {
    var q = new URLSearchParams();
    if (S.at != null) q.set("at", S.at);
    if (S.selected) q.set("invocation", S.selected);
    if (S.diff) { q.set("a", S.diff.a); q.set("b", S.diff.b); }
    if (S.view) { q.set("from", S.view[0]); q.set("to", S.view[1]); }
    var url = "/sessions/" + enc(S.ref) + "?" + q;
    if (url === location.pathname + location.search) return;
    if (replace) history.replaceState(null, "", url); else history.pushState(null, "", url);
  }
  function sessionView(ref) {
    $("session-view").hidden = false; S.ref = ref;
    api("/sessions/" + enc(ref)).then(function (o) {
      showOverview(o); S.last = o.last_sequence; setLast(); loadFamily();
      STATUSES.forEach(function (s) { $("search-status").appendChild(el("option", s)); });
      wire(); applyAddress(true); stream();
    }).catch(function (error) { showError(error); $("session").textContent = CX.txt(ref); document.body.setAttribute("data-ready", "1"); });
  }
  function showOverview(o) {
    $("source").textContent = ""; $("session").textContent = CX.txt(o.session_id); document.title = "correx-tools serve: " + CX.txt(o.session_id);
    $("overview").textContent = counted(o.last_sequence, "event") + " · " + counted(o.invocations, "invocation") + (o.first_time ? " · first event " + o.first_time + ", last " + o.last_time : "") + (o.lenient ? " · lenient: refused events skipped" : "") + (o.redacted ? " · secrets masked" : " · NOT redacted");
    var box = $("final-counts"); box.replaceChildren();
    STATUSES.forEach(function (s) { box.appendChild(CX.chip("final-", s, o.statuses[s])); });
    if (o.refused_events) { box.appendChild(CX.chip("final-", "refused", o.refused_events)); loadRefused(); }
  }
  // A subagent's session links to the call that started it, and a session to the subagents it started.
  function loadFamily() {
    api("/sessions/" + enc(S.ref) + "/family").then(function (f) {
      var box = $("family"); box.replaceChildren();
      if (f.parent) {
        var to = f.parent.invocation_ref ? "/sessions/" + enc(f.parent.ref) + "?at=" + f.parent.sequence + "&invocation=" + enc(f.parent.invocation_ref) : "/sessions/" + enc(f.parent.ref);
        box.appendChild(document.createTextNode("A subagent's session, started by "));
        box.appendChild(CX.subagentLink(f.parent.invocation_id ? "call " + f.parent.invocation_id : "session " + f.parent.session_id, f.parent.present ? to : null));
        box.appendChild(document.createTextNode(f.parent.invocation_id ? " of session " + CX.txt(f.parent.session_id) : ""));
      }
      if (f.children.length) {
        box.appendChild(document.createTextNode((f.parent ? " · " : "") + "Started subagents: "));
        f.children.forEach(function (c, k) { if (k) box.appendChild(document.createTextNode(", ")); box.appendChild(CX.subagentLink(c.session_id, "/sessions/" + enc(c.ref))); });
      }
    }).catch(function () { /* a session without a family says nothing */ });
  }
  function setLast() { $("last").textContent = S.last; $("scrubber").max = S.last; $("seq").max = S.last; }
  function applyAddress(first) {
    // Everything the address says is taken in first: the first position written back holds it.
    var p = new URLSearchParams(location.search), at = p.get("at"), invocation = p.get("invocation");
    S.view = p.get("from") != null && p.get("to") != null ? [+p.get("from"), +p.get("to")] : null;
    S.selected = invocation || null;
    S.diff = p.get("a") != null && p.get("b") != null ? { a: p.get("a"), b: p.get("b"), offset: 0 } : null;
    sticky = null;
    if (at != null && at !== "" && !/^\d+$/.test(at)) sticky = "at=" + JSON.stringify(at).replace(/"/g, "'") + " is not a whole number";
    else if (at != null && at !== "" && +at > S.last) sticky = "at=" + at + " is outside session '" + $("session").textContent + "' (sequences 0.." + S.last + ")";
    showError(null);
    scrubTo(at == null || at === "" || sticky ? S.last : +at, first ? "replace" : null);
    if (invocation) openInvocation(invocation, null); else $("invocation").replaceChildren(el("span", "Click a bar, a row or an id to see its history.", "muted"));
    if (S.diff) { $("diff-a").value = S.diff.a; $("diff-b").value = S.diff.b; runDiff(null); }
    loadTimeline();
  }
  function wire() {
    // Dragging moves the state; letting go (or a key) writes the position into the history.
    $("scrubber").oninput = function () { scrubTo(+this.value, null); };
    $("scrubber").onchange = function () { scrubTo(+this.value, "push"); };
    $("seq").onchange = function () { scrubTo(+this.value, "push"); };
    $("step-back").onclick = function () { scrubTo((S.shown == null ? S.last : S.shown) - 1, "push"); };
    $("step-on").onclick = function () { scrubTo((S.shown == null ? S.last : S.shown) + 1, "push"); };
    $("prev-failure").onclick = function () { seek("previous"); };
    $("next-failure").onclick = function () { seek("next"); };
    $("follow").onchange = function () { S.follow = this.checked; if (S.follow) scrubTo(S.last, "replace"); };
    $("reset-zoom").onclick = function () { S.view = null; sessionUrl(false); loadTimeline(); };
    $("diff-run").onclick = function () { runDiff("push"); };
    $("diff-more").onclick = function () { moreDiff(); };
    $("search-run").onclick = function () { runSearch(); };
    $("search-more").onclick = function () { moreSearch(); };
    $("search-text").onkeydown = function (ev) { if (ev.key === "Enter") runSearch(); };
    window.onpopstate = function () { applyAddress(false); };
    window.onresize = draw;
  }

  // -- scrubbing: one question in flight, the latest position wins ----------------------------------
  var asking = false, wanted = null;
  function scrubTo(k, how) {
    if (isNaN(k)) k = S.last;
    k = Math.max(0, Math.min(S.last, Math.floor(k)));
    S.at = k; $("scrubber").value = k; $("seq").value = k;
    if (how) sessionUrl(how === "replace");
    wanted = k; if (!asking) ask();
  }
  function ask() {
    var k = wanted; wanted = null; asking = true;
    var since = S.shown == null ? k : S.shown;
    api("/sessions/" + enc(S.ref) + "/scrub", { at: k, since: since }).then(function (d) {
      showScrub(d); showError(null);
    }).catch(showError).then(function () {
      asking = false; if (wanted != null) ask(); else loadStats(S.shown == null ? k : S.shown);
      document.body.setAttribute("data-ready", "1");
    });
  }
  function showScrub(d) {
    S.shown = d.at; $("at").textContent = d.at; $("at-time").textContent = d.at ? (d.time || "") : "before the first event";
    var box = $("counts"); box.replaceChildren();
    STATUSES.forEach(function (s) { box.appendChild(CX.chip("count-", s, d.counts[s])); });
    box.appendChild(CX.chip("count-", "refused", d.counts.refused));
    fill($("in-flight"), ["invocation", "tool", "status"], d.in_flight.items.map(function (c) { return row([link(c.invocation_id, c.ref, pick), c.tool_name, c.status]); }));
    if (d.in_flight.total > d.in_flight.items.length) $("in-flight").appendChild(row(["… and " + fmtNum(d.in_flight.total - d.in_flight.items.length) + " more", "", ""]));
    $("in-flight").setAttribute("data-count", d.in_flight.total);
    fill($("recent"), ["seq", "event", "invocation", "tool"], d.events.map(function (e) {
      var tr = row([e.sequence, e.kind, e.ref ? link(e.invocation_id, e.ref, pick) : "", e.tool_name || ""], e.sequence === d.at ? "current" : "");
      return tr;
    }));
    var c = d.changes;
    $("diff-title").textContent = "Changed from " + fmtNum(c.from) + " to " + fmtNum(d.at) + ": " + fmtNum(c.total);
    fill($("diff"), ["invocation", "tool", "at " + c.from, "at " + d.at], c.items.map(function (x) { return row([link(x.invocation_id, x.ref, pick), x.tool_name, x.before, x.after]); }));
    $("diff").setAttribute("data-count", c.total);
    S.now = d.time ? Date.parse(d.time) * 1000 : null; draw();
  }
  function seek(direction) {
    api("/sessions/" + enc(S.ref) + "/seek", { from: S.shown == null ? S.last : S.shown, direction: direction }).then(function (d) {
      if (d.sequence == null) { showError(new Error("no " + (direction === "next" ? "later" : "earlier") + " failure or rejection")); return; }
      S.selected = d.ref; scrubTo(d.sequence, "push"); openInvocation(d.ref, "replace");
    }).catch(showError);
  }
  function loadStats(k) {
    api("/sessions/" + enc(S.ref) + "/stats", { at: k, limit: 1 }).then(function (d) {
      $("tools-title").textContent = "Tools at sequence " + fmtNum(d.at) + " · " + fmtNum(d.total) + " in flight";
      fill($("tools"), ["tool", "calls", "completed", "failed", "rejected", "in flight", "queued p50 / p95 / max", "ran p50 / p95 / max"], d.tools.map(function (t) {
        var q = t.queued_seconds, r = t.ran_seconds;
        return row([t.tool_name, fmtNum(t.calls), fmtNum(t.completed), fmtNum(t.failed), fmtNum(t.rejected), fmtNum(t.in_flight), [q.p50, q.p95, q.max].map(seconds).join(" / "), [r.p50, r.p95, r.max].map(seconds).join(" / ")]);
      }));
      $("tools").setAttribute("data-at", d.at);
    }).catch(function () { /* a strict server says why on the scrubber already */ });
  }

  // -- the timeline -------------------------------------------------------------------------------
  function loadTimeline() {
    var params = { through: S.last };
    if (S.view) { params.from = S.view[0]; params.to = S.view[1]; }
    api("/sessions/" + enc(S.ref) + "/timeline", params).then(function (d) {
      S.model = { lanes: d.tools, view: [d.from, d.to], end: d.end, origin: d.origin_us, mode: d.mode, visible: d.visible,
        bars: (d.bars || []).map(function (b) { return { key: b.ref, id: b.invocation_id, tool: b.tool, status: b.status, req: b.requested, start: b.started, end: b.ended }; }),
        cells: d.buckets ? d.buckets.cells : [], buckets: d.buckets ? d.buckets.count : 1 };
      $("timeline-mode").textContent = fmtNum(d.visible) + " invocations in view" + (d.mode === "bars" ? "" : ", grouped into " + d.buckets.count + " time buckets per tool (click one to zoom)");
      var tools = $("search-tool"), chosen = tools.value; tools.replaceChildren(el("option", "any tool"));
      tools.firstChild.value = ""; d.tools.forEach(function (name) { tools.appendChild(el("option", name)).value = name; }); tools.value = chosen;
      draw();
    }).catch(showError);
  }
  function draw() {
    if (!S.model) return;
    S.model.now = S.now == null ? null : S.now - S.model.origin; S.model.selected = S.selected;
    CX.drawTimeline($("timeline"), S.model, { bar: pick, zoom: function (a, b) { S.view = [Math.round(a), Math.round(Math.max(b, a + 1))]; sessionUrl(false); loadTimeline(); } });
  }

  // -- one invocation -----------------------------------------------------------------------------
  function pick(ref) { openInvocation(ref, "push"); }
  function openInvocation(ref, how) {
    S.selected = ref; draw(); if (how) sessionUrl(how === "replace");
    api("/sessions/" + enc(S.ref) + "/invocations/" + enc(ref) + "/history").then(function (h) { showHistory(h); showView(ref); }).catch(function (error) {
      $("invocation").replaceChildren(el("p", error.message, "muted"));
      if (!how) sticky = error.message;
      showError(error);
    });
  }
  function madeAt(r) { return r.status === "requested" ? r.requested_at : r.status === "started" ? r.started_at : r.completed_at; }
  function showHistory(h) {
    var box = $("invocation"), versions = h.versions, last = versions[versions.length - 1].record;
    box.replaceChildren(); box.setAttribute("data-invocation", h.invocation_id);
    box.appendChild(el("div", h.invocation_id, "id"));
    box.appendChild(el("p", last.tool_name + " · tier " + last.tier + " · " + last.status));
    var vt = el("table"); vt.id = "versions";
    fill(vt, ["seq", "became", "at", "detail"], versions.map(function (v) {
      var r = v.record, a = el("a", v.sequence); a.href = "#"; a.onclick = function (ev) { ev.preventDefault(); scrubTo(v.sequence, "push"); };
      return row([a, r.status, madeAt(r), r.reason != null ? r.reason : r.receipt ? "exit " + r.receipt.exit_code : ""], "version");
    }));
    box.appendChild(el("h3", "Versions")); box.appendChild(vt);
    var shown = el("div"); shown.id = "tool-view"; box.appendChild(shown);
    box.appendChild(el("h3", "Arguments")); box.appendChild(el("pre", JSON.stringify(last.arguments, null, 2)));
    if (last.reason != null) { box.appendChild(el("h3", "Reason" + (last.recoverable === true ? " (recoverable)" : last.recoverable === false ? " (not recoverable)" : ""))); box.appendChild(el("pre", last.reason)); }
    if (last.receipt) { box.appendChild(el("h3", "Receipt · exit " + last.receipt.exit_code)); box.appendChild(el("pre", JSON.stringify({ output: last.receipt.output, metadata: last.receipt.metadata }, null, 2))); }
    if (h.refused.length) { box.appendChild(el("h3", "Refused events about it")); h.refused.forEach(function (r) { box.appendChild(el("p", r.sequence + ": " + r.error)); }); }
  }

  // How the call reads best (an edit's diff, a shell call's terminal), and the subagent it started.
  function showView(ref) {
    api("/sessions/" + enc(S.ref) + "/invocations/" + enc(ref) + "/view").then(function (d) {
      var box = $("tool-view"); if (!box || S.selected !== ref) return;
      box.replaceChildren();
      if (d.subagent) {
        var p = el("p", "Started a subagent: ");
        p.appendChild(CX.subagentLink(d.subagent.session_id, d.subagent.present ? "/sessions/" + enc(d.subagent.ref) : null));
        if (!d.subagent.present) p.appendChild(document.createTextNode(" (not in this source)"));
        box.appendChild(p);
      }
      if (d.view) { box.appendChild(el("h3", d.view.kind === "edit" ? "What it changed" : "Terminal")); box.appendChild(CX.toolView(d.view)); }
    }).catch(function () { /* the arguments and output are shown as they are */ });
  }

  // -- diff and search ------------------------------------------------------------------------------
  function runDiff(how) {
    var a = $("diff-a").value, b = $("diff-b").value;
    S.diff = { a: a, b: b, offset: 0 }; if (how) sessionUrl(false);
    $("diff-result").replaceChildren(); moreDiff();
  }
  function moreDiff() {
    var d0 = S.diff;
    api("/sessions/" + enc(S.ref) + "/diff", { a: d0.a, b: d0.b, offset: d0.offset, limit: 100 }).then(function (d) {
      var table = $("diff-result"); if (!d0.offset) table.replaceChildren(CX.head(["invocation", "tool", "at " + d.a, "at " + d.b]));
      d.changes.forEach(function (c) { table.appendChild(row([link(c.invocation_id, c.ref, pick), c.after.tool_name, c.before ? c.before.status : "(new)", c.after.status], "change")); });
      d0.offset += d.changes.length; table.setAttribute("data-total", d.total);
      $("diff-summary").textContent = fmtNum(d.total) + " invocations added or changed from " + fmtNum(d.a) + " to " + fmtNum(d.b);
      $("diff-more").hidden = d0.offset >= d.total;
    }).catch(showError);
  }
  function runSearch() {
    S.search = { q: $("search-text").value, tool: $("search-tool").value, status: $("search-status").value, id: $("search-id").value, at: S.last, after: -1, found: 0, scanned: 0 };
    $("search-results").replaceChildren(CX.head(["invocation", "tool", "status", "requested at seq", "found in"])); moreSearch();
  }
  function moreSearch() {
    var s = S.search;
    api("/sessions/" + enc(S.ref) + "/search", { q: s.q, tool: s.tool, status: s.status, id: s.id, at: s.at, after: s.after, limit: 50 }).then(function (d) {
      var table = $("search-results");
      d.matches.forEach(function (m) { table.appendChild(row([link(m.invocation_id, m.ref, pick), m.tool_name, m.status, m.requested_seq, m.where.join(", ")], "match")); });
      s.found += d.matches.length; s.scanned += d.scanned; s.after = d.next;
      table.setAttribute("data-found", s.found);
      $("search-summary").textContent = fmtNum(s.found) + " found at sequence " + fmtNum(d.at) + (d.next == null ? " · every invocation searched" : " · " + fmtNum(s.scanned) + " searched so far");
      $("search-more").hidden = d.next == null;
    }).catch(showError);
  }
  function loadRefused() {
    api("/sessions/" + enc(S.ref) + "/refused", { limit: 200 }).then(function (d) {
      $("refused-title").hidden = false; $("refused-title").textContent = "Refused events: " + fmtNum(d.total) + (d.total > d.refused.length ? " (the first " + d.refused.length + " shown)" : "");
      fill($("refused"), ["seq", "invocation", "why", "error"], d.refused.map(function (r) { return row([r.sequence, r.ref ? link(r.invocation_id, r.ref, pick) : "", r.kind, r.error]); }));
    }).catch(showError);
  }

  // -- live: the head, pushed by the server --------------------------------------------------------
  // Read with fetch, not EventSource, which cannot send the credential; a broken stream is tried again.
  var redraw = null;
  function stream() {
    var text = "", decoder = new TextDecoder();
    fetch(API + "/sessions/" + enc(S.ref) + "/stream", { credentials: "omit", headers: authorized({ Accept: "text/event-stream" }) }).then(function (response) {
      if (!response.ok || !response.body) throw new Error(response.status);
      var reader = response.body.getReader();
      function read() {
        return reader.read().then(function (chunk) {
          if (chunk.done) throw new Error("the stream ended");
          var blocks = (text += decoder.decode(chunk.value, { stream: true })).split("\n\n"); text = blocks.pop();
          blocks.forEach(function (block) { var m = /^event: head\ndata: (.*)$/m.exec(block); if (m) head(JSON.parse(m[1]).last_sequence); });
          return read();
        });
      }
      return read();
    }).catch(function () { $("live").className = "live stale"; setTimeout(stream, 3000); });
  }
  function head(n) {
    $("live").hidden = false; $("live").className = "live";
    if (n === S.last) return;
    S.last = n; setLast();
    if (S.follow) scrubTo(n, "replace");
    if (!redraw) redraw = setTimeout(function () { redraw = null; loadTimeline(); api("/sessions/" + enc(S.ref)).then(showOverview).catch(showError); }, 300);
  }

  function start() {
    var parts = location.pathname.split("/");
    if (parts[1] === "sessions" && parts[2]) sessionView(decodeURIComponent(parts[2])); else sessionsView();
  }
  signIn().then(start, function (error) { if (credential) start(); else showError(error); });
})();
