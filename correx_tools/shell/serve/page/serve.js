// correx-tools serve: the page. Everything comes from /api/v1; every value from a session is
// set as text (CX.el, CX.row), never as markup. The address holds where you are
// (/sessions/ID?at=K&invocation=REF&a=A&b=B&from=T&to=T&q=&tool=&status=&id=), so a link opens
// exactly there and Back and Forward move through what you looked at; every id on the page is
// such a link (a plain click opens it in place, a middle click in a new tab).
"use strict";
(function () {
  var $ = CX.$, el = CX.el, row = CX.row, fill = CX.fill, fmtNum = CX.fmtNum, counted = CX.counted, dur = CX.dur, word = CX.word;
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
  // A click the page takes itself: the main button, no key held (else the browser opens the link
  // in a new tab or window, as it would any other).
  function plain(ev) { return ev.button === 0 && !ev.ctrlKey && !ev.metaKey && !ev.shiftKey && !ev.altKey; }
  // An invocation, named by its short id (its whole id on hover), linking to the page as it is with
  // that call open.
  function link(id, ref) {
    var a = el("a", CX.shortId(S.name, id), "ref"); a.title = CX.txt(id); a.setAttribute("data-ref", ref); a.href = addressFor({ invocation: ref });
    a.onclick = function (ev) { if (plain(ev)) { ev.preventDefault(); pick(ref); } }; return a;
  }
  // A sequence, linking to the page scrubbed there.
  function seqLink(k) {
    var a = el("a", k, "seq"); a.setAttribute("data-at", k); a.href = addressFor({ at: k });
    a.onclick = function (ev) { if (plain(ev)) { ev.preventDefault(); scrubTo(k, "push"); } }; return a;
  }
  function seconds(s) { return s == null ? "–" : dur(Math.round(s * 1e6)); }
  // A count of calls that exited non-zero, in the colour of a failure when there are any.
  function exits(n) { return el("span", fmtNum(n), n ? "exits nonzero" : "exits"); }

  // -- the sessions: their list and their usage (sessions.js); the search over every session --------
  // The search starts once the list said whether the store keeps a full-text index.
  var listing = null, indexed = false;
  function sessionsView() {
    var asked = false;
    listing = CXSessions({ api: api, showError: showError, listed: function (d) {
      if (asked || location.pathname === "/usage") return;
      asked = true; indexed = !!d.search_index; everywhere();
    } });
  }
  // The search over every session is in the address beside the list's filters (which sessions.js
  // keeps): a new search is a new entry in the history.
  function listUrl() {
    var q = new URLSearchParams(location.search);
    q.set("search", $("everywhere-text").value);
    ["tool", "status", "in"].forEach(function (k) { var v = $("everywhere-" + k).value; if (v && v !== "all") q.set(k, v); else q.delete(k); });
    history.pushState(null, "", location.pathname + "?" + q);
  }

  // -- every session: one search over them all, a page at a time; its question in the address ------
  // A search's status filter: each status, then the completed calls that exited non-zero.
  function statusOptions(select) {
    STATUSES.forEach(function (s) { select.appendChild(el("option", s)); });
    var nonzero = el("option", "exited non-zero"); nonzero.value = "exited-nonzero";
    select.appendChild(nonzero);
  }
  var wide = null, EVERYWHERE = { search: "everywhere-text", tool: "everywhere-tool", status: "everywhere-status", "in": "everywhere-in" };
  function everywhere() {
    statusOptions($("everywhere-status"));
    $("everywhere-run").onclick = function () { askEverywhere(); };
    $("everywhere-text").onkeydown = function (ev) { if (ev.key === "Enter") askEverywhere(); };
    $("everywhere-more").onclick = function () { if (wide && wide.q && !wide.tool && !wide.status && indexed) moreHits(); else moreEverywhere(); };
    $("everywhere-said-more").onclick = moreSaidEverywhere;
    window.addEventListener("popstate", everywhereFromAddress);
    everywhereFromAddress();
  }
  function everywhereFromAddress() {
    var q = new URLSearchParams(location.search);
    Object.keys(EVERYWHERE).forEach(function (k) { $(EVERYWHERE[k]).value = q.get(k) || (k === "in" ? "all" : ""); });
    if (q.has("search")) searchEverywhere(); else { $("everywhere-results").replaceChildren(); $("everywhere-summary").textContent = ""; $("everywhere-more").hidden = true; $("everywhere-said").replaceChildren(); $("everywhere-said-title").hidden = true; wide = null; }
  }
  function askEverywhere() { listUrl(); searchEverywhere(); }
  // A text alone is looked for through the store's full-text index, in the sessions the list's
  // filters pick; a tool or a status, or a store without an index, is searched call by call.
  function searchEverywhere() {
    wide = { q: $("everywhere-text").value, tool: $("everywhere-tool").value, status: $("everywhere-status").value, "in": $("everywhere-in").value, after: "", count: 0, offset: 0 };
    var on = !!(wide.q && !wide.tool && !wide.status);
    $("everywhere-in").disabled = !indexed;
    if (on && indexed) {
      $("everywhere-said-title").hidden = true; $("everywhere-said").replaceChildren();
      $("everywhere-results").replaceChildren(CX.head(["session", "at seq", "in", "call", "found"])); moreHits(); return;
    }
    $("everywhere-results").replaceChildren(CX.head(["session", "invocation", "tool", "status", "at seq", "found in"])); moreEverywhere();
    wide.said = on ? { after: "", count: 0 } : null;
    $("everywhere-said-title").hidden = !on; $("everywhere-said-more").hidden = true; $("everywhere-said-summary").textContent = "";
    $("everywhere-said").replaceChildren(); if (on) { $("everywhere-said").appendChild(CX.head(["session", "at seq", "said", "text"])); moreSaidEverywhere(); }
  }
  // The index's hits: each event whose value holds every word and phrase, newest first; its
  // sequence a link to the page there (with its call open), its value masked then cut around them.
  var FIELDS = { arguments: "arguments", outputs: "output", said: "said" };
  function moreHits() {
    var f = wide, asked = listing.filters();
    asked.q = f.q; asked["in"] = f["in"]; asked.offset = f.offset; asked.limit = 50;
    api("/hits", asked).then(function (d) {
      if (f !== wide) return;
      var table = $("everywhere-results");
      d.hits.forEach(function (h) {
        var s = el("a", h.session_id); s.href = "/sessions/" + enc(h.session_ref);
        var at = el("a", h.sequence, "hit"); at.href = h.page; at.setAttribute("data-testid", "search-hit");
        var call = el("span", h.invocation_id ? CX.shortId(h.session_id, h.invocation_id) : "–", h.invocation_id ? "id" : "muted");
        if (h.invocation_id) call.title = CX.txt(h.invocation_id);
        table.appendChild(row([s, at, el("span", FIELDS[h.field] || h.field, "said-kind"), call, el("span", h.snippet, "said-snippet")], "match hit-row"));
      });
      f.count += d.hits.length; f.offset += d.hits.length;
      table.setAttribute("data-found", f.count);
      var picked = Object.keys(asked).some(function (k) { return ["agent", "project", "model", "since", "until", "failed", "machine", "user"].indexOf(k) >= 0 && asked[k]; });
      $("everywhere-summary").textContent = fmtNum(f.count) + " found" + (d.more ? " so far" : "") + " · through the full-text index, newest first" + (picked ? " · in the sessions the filters pick" : "");
      $("everywhere-more").hidden = !d.more;
    }).catch(function (error) { if (f === wide) $("everywhere-summary").textContent = CX.txt(error.message || error); });
  }
  // What was said in every session (prompts, words, reasoning), each hit a link to its event.
  function moreSaidEverywhere() {
    var f = wide, w = f.said;
    api("/said", { q: f.q, after: w.after, limit: 50 }).then(function (d) {
      if (f !== wide) return;
      var table = $("everywhere-said");
      d.matches.forEach(function (m) {
        var s = el("a", m.session_id); s.href = "/sessions/" + enc(m.session_ref);
        var at = el("a", m.sequence, "hit"); at.href = m.href; at.setAttribute("data-testid", "said-hit");
        var kind = el("span", m.kind === "prompt" ? "prompt" : m.kind === "reasoning" ? "reasoning" : "said", "said-kind");
        table.appendChild(row([s, at, kind, el("span", m.snippet, "said-snippet")], "said-match"));
      });
      w.count += d.matches.length; w.after = d.next || "";
      table.setAttribute("data-found", w.count);
      $("everywhere-said-summary").textContent = fmtNum(w.count) + " found · " + fmtNum(d.searched) + " of " + fmtNum(d.sessions) + " sessions searched";
      $("everywhere-said-more").hidden = d.next == null;
    }).catch(function (error) { if (f === wide) $("everywhere-said-summary").textContent = CX.txt(error.message || error); });
  }
  function moreEverywhere() {
    var f = wide;
    api("/search", { q: f.q, tool: f.tool, status: f.status, after: f.after, limit: 50 }).then(function (d) {
      if (f !== wide) return;
      var table = $("everywhere-results");
      d.matches.forEach(function (m) {
        var s = el("a", m.session_id); s.href = "/sessions/" + enc(m.session_ref);
        var a = el("a", CX.shortId(m.session_id, m.invocation_id), "hit"); a.href = m.href; a.title = CX.txt(m.invocation_id); a.setAttribute("data-testid", "search-hit");
        table.appendChild(row([s, a, word(m.tool_name), word(m.status), m.at, m.where.join(", ")], "match"));
      });
      f.count += d.matches.length; f.after = d.next || "";
      table.setAttribute("data-found", f.count);
      $("everywhere-summary").textContent = fmtNum(f.count) + " found · " + fmtNum(d.searched) + " of " + fmtNum(d.sessions) + " sessions searched" + (d.skipped.length ? " · " + d.skipped.length + " could not be searched" : "");
      $("everywhere-more").hidden = d.next == null;
    }).catch(function (error) { if (f === wide) $("everywhere-summary").textContent = CX.txt(error.message || error); });
  }

  // -- one session: where the page is ------------------------------------------------------------
  var S = { ref: null, name: "", last: 0, at: null, shown: null, follow: false, view: null, model: null, now: null, selected: null, current: null, diff: null, search: null };
  var SEARCH_KEYS = ["q", "tool", "status", "id"];
  // The address of the page as it is, with what ``change`` says changed (at, invocation).
  function addressFor(change) {
    var q = new URLSearchParams(), at = change.at != null ? change.at : S.at, invocation = change.invocation || S.selected;
    if (at != null) q.set("at", at);
    if (invocation) q.set("invocation", invocation);
    if (S.diff) { q.set("a", S.diff.a); q.set("b", S.diff.b); }
    if (S.view) { q.set("from", S.view[0]); q.set("to", S.view[1]); }
    if (S.search) SEARCH_KEYS.forEach(function (k) { if (S.search[k] || k === "q") q.set(k, S.search[k]); });
    return "/sessions/" + enc(S.ref) + "?" + q;
  }
  function sessionUrl(replace) {
    var url = addressFor({});
    relink();
    if (url === location.pathname + location.search) return;
    if (replace) history.replaceState(null, "", url); else history.pushState(null, "", url);
  }
  // Every link on the page opens the page as it now is, with its call open (or scrubbed to its
  // sequence): what a plain click would show.
  function relink() {
    document.querySelectorAll("#session-view a[data-ref], #session-view a[data-at]").forEach(function (a) {
      var ref = a.getAttribute("data-ref"); a.href = addressFor(ref != null ? { invocation: ref } : { at: +a.getAttribute("data-at") });
    });
  }
  function sessionView(ref) {
    $("session-view").hidden = false; S.ref = ref;
    api("/sessions/" + enc(ref)).then(function (o) {
      showOverview(o); S.last = o.last_sequence; setLast(); loadFamily(); loadTurns();
      statusOptions($("search-status"));
      wire(); applyAddress(true); stream(); loadAudit();
    }).catch(function (error) { showError(error); $("session").textContent = CX.txt(ref); document.body.setAttribute("data-ready", "1"); });
  }
  function showOverview(o) {
    S.name = o.session_id; $("source").textContent = ""; $("session").textContent = CX.txt(o.session_id); document.title = "correx-tools serve: " + CX.txt(o.session_id);
    S.steps = o.times_recorded === false;
    $("overview").textContent = counted(o.last_sequence, "event") + " · " + counted(o.invocations, "invocation") + (o.first_time ? " · first event " + o.first_time + ", last " + o.last_time : "") + (S.steps ? " · the transcript records no time: laid out by step (sequence), no times or durations shown" : "") + (o.lenient ? " · lenient: refused events skipped" : "") + (o.redacted ? " · secrets masked" : " · NOT redacted");
    var box = $("final-counts");
    CX.chips(box, "final-", o.statuses, o.exited_nonzero);
    if (o.refused_events) { box.appendChild(CX.chip("final-", "refused", o.refused_events)); loadRefused(); }
  }
  // A subagent's session links to the call that started it, and a session to the subagents it started.
  function loadFamily() {
    api("/sessions/" + enc(S.ref) + "/family").then(function (f) {
      var box = $("family"); box.replaceChildren();
      if (f.parent) {
        var to = f.parent.invocation_ref ? "/sessions/" + enc(f.parent.ref) + "?at=" + f.parent.sequence + "&invocation=" + enc(f.parent.invocation_ref) : "/sessions/" + enc(f.parent.ref);
        box.appendChild(document.createTextNode("A subagent's session, started by "));
        var up = CX.subagentLink(f.parent.invocation_id ? "call " + CX.shortId(f.parent.session_id, f.parent.invocation_id) : "session " + f.parent.session_id, f.parent.present ? to : null);
        up.title = CX.txt(f.parent.invocation_id || f.parent.session_id); box.appendChild(up);
        box.appendChild(document.createTextNode(f.parent.invocation_id ? " of session " + CX.txt(f.parent.session_id) : ""));
      }
      if (f.children.length) {
        box.appendChild(document.createTextNode((f.parent ? " · " : "") + "Started subagents: "));
        f.children.forEach(function (c, k) { if (k) box.appendChild(document.createTextNode(", ")); box.appendChild(CX.subagentLink(c.session_id, "/sessions/" + enc(c.ref))); });
      }
    }).catch(function () { /* a session without a family says nothing */ });
  }
  // The session's turns: each prompt (a link to it), the sequences it spans, its calls and tokens.
  function tokensText(t) { return t ? fmtNum(t.total) : "none recorded"; }
  function tokensTitle(t) { return t ? "input " + fmtNum(t.input) + " · output " + fmtNum(t.output) + " · cache read " + fmtNum(t.cache_read) + " · cache write " + fmtNum(t.cache_write) + (t.by_model.length > 1 ? " · " + t.by_model.map(function (m) { return (m.model || "model not recorded") + " " + fmtNum(m.total); }).join(", ") : "") : ""; }
  // What tokens cost at the server's prices, or which models it has no price for (never a guess).
  function costText(t) {
    var c = t && t.cost; if (!c) return "–";
    return c.usd != null ? "$" + (c.usd >= 1 ? c.usd.toFixed(2) : c.usd.toFixed(4)) : c.note;
  }
  function tokensCell(t) { var c = el("span", tokensText(t), "tokens"); c.title = tokensTitle(t); return c; }
  function loadTurns() {
    api("/sessions/" + enc(S.ref) + "/turns").then(function (d) {
      S.turns = d.conversation ? d.turns : []; draw();
      $("turns-title").hidden = !d.conversation;
      if (!d.conversation) { $("turns").replaceChildren(); return; }
      $("turns-title").textContent = "Turns · tokens " + tokensText(d.tokens) + (d.tokens ? " · cost " + costText(d.tokens) : "");
      $("turns-title").title = tokensTitle(d.tokens) + (d.prices ? " · prices read " + (d.prices.read || "on no date") + " from " + d.prices.sources.join(", ") : "");
      fill($("turns"), ["turn", "prompt", "sequences", "calls", "tokens", "cost"], d.turns.map(function (t) {
        var prompt = el("span"); if (t.prompt_sequence != null) { prompt.appendChild(seqLink(t.prompt_sequence)); prompt.appendChild(document.createTextNode(" ")); }
        prompt.appendChild(el("span", t.title || (t.turn ? "" : "before the first prompt"), "turn-title"));
        return row([t.turn, prompt, t.first + "–" + t.last, fmtNum(t.calls), tokensCell(t.tokens), el("span", costText(t.tokens), "cost")], "turn");
      }));
      $("turns").setAttribute("data-count", d.turns.length);
    }).catch(function () { /* a session without turns says nothing */ });
  }
  // The session's audit by the built-in policy (correx-tools audit): each finding links to its event.
  function loadAudit() {
    api("/audit", { session: S.ref }).then(function (d) {
      var n = d.findings.length + d.more;
      $("audit-summary").textContent = (n ? counted(n, "finding") : "no finding") + " in " + counted(d.calls, "call") + " through sequence " + d.through + (d.more ? " (the first " + d.findings.length + " shown)" : "");
      fill($("audit"), ["seq", "level", "rule", "tool", "finding"], d.findings.map(function (f) { return row([seqLink(f.sequence), f.level, f.rule, f.tool, f.message]); }));
    }).catch(function (error) { $("audit-summary").textContent = CX.txt(error.message || error); });
  }
  function setLast() { $("last").textContent = S.last; $("scrubber").max = S.last; $("seq").max = S.last; }
  function applyAddress(first) {
    // Everything the address says is taken in first: the first position written back holds it.
    var p = new URLSearchParams(location.search), at = p.get("at"), invocation = p.get("invocation");
    S.view = p.get("from") != null && p.get("to") != null ? [+p.get("from"), +p.get("to")] : null;
    S.selected = invocation || null;
    S.diff = p.get("a") != null && p.get("b") != null ? { a: p.get("a"), b: p.get("b"), offset: 0 } : null;
    S.search = SEARCH_KEYS.some(function (k) { return p.has(k); }) ? searchOf(function (k) { return p.get(k) || ""; }) : null;
    showSearchFields(); found = null;
    sticky = null;
    if (at != null && at !== "" && !/^\d+$/.test(at)) sticky = "at=" + JSON.stringify(at).replace(/"/g, "'") + " is not a whole number";
    else if (at != null && at !== "" && +at > S.last) sticky = "at=" + at + " is outside session '" + $("session").textContent + "' (sequences 0.." + S.last + ")";
    showError(null);
    scrubTo(at == null || at === "" || sticky ? S.last : +at, first ? "replace" : null);
    if (invocation) openInvocation(invocation, null); else $("invocation").replaceChildren(el("span", "Click a bar, a row or an id to see its history.", "muted"));
    if (S.diff) { $("diff-a").value = S.diff.a; $("diff-b").value = S.diff.b; runDiff(null); } else clearDiff();
    if (!S.search) $("search-results").replaceChildren(), $("search-summary").textContent = "", $("search-more").hidden = true, $("said-results").replaceChildren(), $("said-title").hidden = true, saidFound = null;
    loadTimeline();
  }
  function wire() {
    CX.legend($("timeline-legend"));
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
    ["diff-a", "diff-b"].forEach(function (id) { $(id).onkeydown = function (ev) { if (ev.key === "Enter") runDiff("push"); }; });
    $("search-run").onclick = function () { runSearch(); };
    $("search-more").onclick = function () { moreSearch(); };
    $("said-more").onclick = function () { moreSaid(); };
    ["search-text", "search-id"].forEach(function (id) { $(id).onkeydown = function (ev) { if (ev.key === "Enter") runSearch(); }; });
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
      asking = false;
      if (wanted != null) ask(); else { loadStats(S.shown == null ? k : S.shown); if (S.search && (!found || found.at !== S.shown)) searchAt(); }
      document.body.setAttribute("data-ready", "1");
    });
  }
  function showScrub(d) {
    $("seek-note").textContent = "";
    S.shown = d.at; $("at").textContent = d.at; $("at-time").textContent = d.at ? (d.time || "") : "before the first event";
    var box = $("counts");
    CX.chips(box, "count-", d.counts, d.counts.exited_nonzero);
    box.appendChild(CX.chip("count-", "refused", d.counts.refused));
    fill($("in-flight"), ["call", "tool", "status"], d.in_flight.items.map(function (c) { return row([link(c.invocation_id, c.ref), word(c.tool_name), word(c.status)]); }));
    if (d.in_flight.total > d.in_flight.items.length) $("in-flight").appendChild(row(["… and " + fmtNum(d.in_flight.total - d.in_flight.items.length) + " more", "", ""]));
    $("in-flight").setAttribute("data-count", d.in_flight.total);
    S.current = null;
    fill($("recent"), ["seq", "event", "call", "tool"], d.events.map(function (e) {
      if (e.sequence === d.at && e.ref) S.current = e.ref;
      return row([e.sequence, CX.term(e.kind), e.ref ? link(e.invocation_id, e.ref) : "", e.tool_name ? word(e.tool_name) : ""], e.sequence === d.at ? "current" : "");
    }));
    var c = d.changes;
    $("diff-title").textContent = CX.changedTitle(c.from, d.at, c.total);
    fill($("diff"), ["call", "tool", "at " + c.from, "at " + d.at], c.items.map(function (x) { return row([link(x.invocation_id, x.ref), word(x.tool_name), word(x.before), word(x.after)]); }));
    if (c.from === d.at) $("diff").appendChild(CX.unchangedRow(4));
    $("diff").setAttribute("data-count", c.total);
    // The dashed line at the scrubbed event: at its time, or at its sequence on a timeline by step.
    S.now = S.steps ? (d.at || null) : d.time ? Date.parse(d.time) * 1000 : null; draw();
  }
  function seek(direction) {
    api("/sessions/" + enc(S.ref) + "/seek", { from: S.shown == null ? S.last : S.shown, direction: direction }).then(function (d) {
      if (d.sequence == null) { $("seek-note").textContent = "no " + (direction === "next" ? "later" : "earlier") + " failure (failed, rejected or exited non-zero)"; return; }
      S.selected = d.ref; scrubTo(d.sequence, "push"); openInvocation(d.ref, "replace", true);
    }).catch(showError);
  }
  function loadStats(k) {
    api("/sessions/" + enc(S.ref) + "/stats", { at: k, limit: 1 }).then(function (d) {
      $("tools-title").textContent = "Tools at sequence " + fmtNum(d.at) + " · " + fmtNum(d.total) + " in flight" + (d.note ? " · " + d.note : "");
      // Each figure of the calls whose times are recorded; how many, where fewer than all.
      function spread(p, could) { return [p.p50, p.p95, p.max].map(seconds).join(" / ") + (p.calls && p.calls < could ? " (" + fmtNum(p.calls) + ")" : ""); }
      fill($("tools"), ["tool", "calls", "completed", "failed", "exit ≠ 0", "rejected", "in flight", "took p50 / p95 / max", "queued p50 / p95 / max", "ran p50 / p95 / max"], d.tools.map(function (t) {
        var ended = t.completed + t.failed + t.rejected;
        return row([word(t.tool_name), fmtNum(t.calls), fmtNum(t.completed), fmtNum(t.failed), exits(t.exited_nonzero), fmtNum(t.rejected), fmtNum(t.in_flight), spread(t.took_seconds, ended), spread(t.queued_seconds, t.calls - t.rejected), spread(t.ran_seconds, t.completed + t.failed)]);
      }));
      $("tools").setAttribute("data-at", d.at);
    }).catch(function () { /* a strict server says why on the scrubber already */ });
  }

  // -- the timeline -------------------------------------------------------------------------------
  function loadTimeline() {
    var params = { through: S.last };
    if (S.view) { params.from = S.view[0]; params.to = S.view[1]; }
    api("/sessions/" + enc(S.ref) + "/timeline", params).then(function (d) {
      S.model = { lanes: d.tools, view: [d.from, d.to], end: d.end, origin: d.origin_us, axis: d.axis, mode: d.mode, visible: d.visible,
        bars: (d.bars || []).map(function (b) { return { key: b.ref, id: b.invocation_id, tool: b.tool, status: b.status, nonzero: b.exited_nonzero, req: b.requested, start: b.started, end: b.ended }; }),
        cells: d.buckets ? d.buckets.cells : [], buckets: d.buckets ? d.buckets.count : 1 };
      $("timeline-mode").textContent = fmtNum(d.visible) + " invocations in view" + (d.mode === "bars" ? "" : ", grouped into " + d.buckets.count + " time buckets per tool (click one to zoom)");
      var tools = $("search-tool"), chosen = tools.value; tools.replaceChildren(el("option", "any tool"));
      tools.firstChild.value = ""; d.tools.forEach(function (name) { tools.appendChild(el("option", name)).value = name; }); tools.value = chosen;
      draw();
    }).catch(showError);
  }
  // The turns on the timeline's axis: its times (microseconds after its origin), or, for a session
  // that records no time, its sequences.
  function turnsOnAxis() {
    var m = S.model; if (!S.turns || m.origin == null) return [];
    function on(k, iso) { return m.axis === "sequence" ? k - m.origin : iso ? Date.parse(iso) * 1000 - m.origin : null; }
    return S.turns.filter(function (u) { return u.turn; }).map(function (u) {
      var from = on(u.first, u.first_time), to = on(u.last, u.last_time);
      return { turn: u.turn, from: from, to: to, prompt: u.prompt_sequence == null ? null : from, sequence: u.prompt_sequence, title: u.title };
    }).filter(function (u) { return u.from != null && u.to != null; });
  }
  // A prompt before or after the scrubber (the keys t and T): scrubbed to.
  function seekPrompt(direction) {
    var at = S.shown == null ? S.last : S.shown, found = null;
    (S.turns || []).forEach(function (u) {
      var k = u.prompt_sequence; if (k == null) return;
      if (direction > 0 ? k > at && (found == null || k < found) : k < at && (found == null || k > found)) found = k;
    });
    if (found == null) { $("seek-note").textContent = "no " + (direction > 0 ? "later" : "earlier") + " prompt"; return; }
    scrubTo(found, "push");
  }
  function draw() {
    if (!S.model) return;
    S.model.now = S.now == null ? null : S.now - S.model.origin; S.model.selected = S.selected;
    // The whole session's view reaches its first prompt and last words too, which may lie
    // before its first call and after its last (bars only: buckets are the server's).
    var turns = turnsOnAxis(), model = Object.assign({}, S.model, { turns: turns });
    if (!S.view && S.model.mode === "bars") turns.forEach(function (u) { model.view = [Math.min(model.view[0], u.from), Math.max(model.view[1], u.to)]; });
    CX.drawTimeline($("timeline"), model, { prompt: function (k) { scrubTo(k, "push"); }, bar: pick, zoom: function (a, b) { S.view = [Math.round(a), Math.round(Math.max(b, a + 1))]; sessionUrl(false); loadTimeline(); } });
  }

  // -- one invocation -----------------------------------------------------------------------------
  // Opened by a person (a click, a key, a failure sought), it is brought into view.
  function pick(ref) { openInvocation(ref, "push", true); }
  function openInvocation(ref, how, reveal) {
    S.selected = ref; draw(); if (how) sessionUrl(how === "replace");
    var base = "/sessions/" + enc(S.ref) + "/invocations/" + enc(ref);
    // Its history, and how it reads best (an edit's diff, a shell call's terminal, the subagent it
    // started), drawn together: the output once.
    var view = api(base + "/view").catch(function () { return null; });
    api(base + "/history").then(function (h) {
      return view.then(function (v) { if (S.selected !== ref) return; showHistory(h, v); if (reveal) bringIntoView(); });
    }).catch(function (error) {
      if (S.selected !== ref) return;
      $("invocation").replaceChildren(el("p", error.message, "muted"));
      if (!how) sticky = error.message;
      showError(error); if (reveal) bringIntoView();
    });
  }
  function bringIntoView() {
    var title = $("invocation-title"), top = title.getBoundingClientRect().top;
    if (top < 0 || top > window.innerHeight - 160) title.scrollIntoView({ block: "start" });
  }
  function madeAt(r) { return r.status === "requested" ? r.requested_at : r.status === "started" ? r.started_at : r.completed_at; }
  function showHistory(h, v) {
    var box = $("invocation"), versions = h.versions, last = versions[versions.length - 1].record;
    box.replaceChildren(); box.setAttribute("data-invocation", h.invocation_id);
    var id = el("div", CX.shortId(S.name, h.invocation_id), "id"); id.title = CX.txt(h.invocation_id); box.appendChild(id);
    if (id.textContent !== CX.txt(h.invocation_id)) box.appendChild(el("div", h.invocation_id, "muted whole-id"));
    var facts = el("p"); facts.appendChild(word(last.tool_name)); facts.appendChild(document.createTextNode(" · "));
    facts.appendChild(CX.term("tier " + last.tier, "tier")); facts.appendChild(document.createTextNode(" · ")); facts.appendChild(CX.term(last.status));
    if (last.status === "completed" && last.receipt && last.receipt.exit_code) { facts.appendChild(document.createTextNode(" · ")); facts.appendChild(CX.term("exited non-zero")); }
    box.appendChild(facts);
    if (h.spent) {  // its share of the tokens of the message that asked for it
      var spent = el("p", "tokens: " + (h.spent.tokens ? fmtNum(h.spent.tokens.total) + " (its share of its message's) · cost " + costText(h.spent.tokens) : h.spent.said ? "none recorded" : "none in the store"), "call-tokens");
      spent.title = tokensTitle(h.spent.tokens); spent.setAttribute("data-testid", "call-tokens"); box.appendChild(spent);
    }
    leadUp(box, h.lead_up);
    var vt = el("table"); vt.id = "versions";
    fill(vt, ["seq", "became", "at", "detail"], versions.map(function (v) {
      // No time where the transcript records none; an exit code only where one was recorded.
      var r = v.record, code = r.receipt ? r.receipt.exit_code : null;
      return row([seqLink(v.sequence), word(r.status), h.times_recorded === false ? "no time recorded" : madeAt(r), r.reason != null ? r.reason : code != null ? CX.exitCode(code) : ""], "version");
    }));
    box.appendChild(el("h3", "Versions")); box.appendChild(vt);
    var shown = el("div"); shown.id = "tool-view"; box.appendChild(shown);
    if (v && v.subagent) {
      var p = el("p", "Started a subagent: ");
      p.appendChild(CX.subagentLink(v.subagent.session_id, v.subagent.present ? "/sessions/" + enc(v.subagent.ref) : null));
      if (!v.subagent.present) p.appendChild(document.createTextNode(" (not in this source)"));
      shown.appendChild(p);
    }
    CX.callDetails(shown, last, v && v.view);
    if (h.refused.length) {
      var about = el("h3"); about.appendChild(CX.term("Refused events about it", "refused")); box.appendChild(about);
      h.refused.forEach(function (r) { box.appendChild(el("p", r.sequence + ": " + r.error)); });
    }
  }

  // What led to the call: its turn's prompt, then the words before it, reasoning folded. Text
  // only (textContent), masked by the server like everything it sends.
  function leadUp(box, led) {
    if (!led || (!led.prompt && !led.before.length)) return;
    var part = el("section"); part.id = "lead-up"; part.appendChild(el("h3", "What led to it"));
    if (!led.prompt && !led.whole) part.appendChild(el("p", "No prompt in the " + CX.fmtNum(led.looked_at_most) + " events before it.", "muted"));
    (led.prompt ? [led.prompt] : []).concat(led.before).forEach(function (w) {
      var label = (w.kind === "prompt" ? "Prompt" : w.kind === "reasoning" ? "Reasoning" : "Said") + " · " + w.sequence + (w.model ? " · " + w.model : "");
      var text = el("div", w.cut ? w.text + "\n… " + CX.counted(w.cut, "more character") : w.text, "said-text");
      var item;
      if (w.kind === "reasoning") { item = el("details", null, "said reasoning"); item.appendChild(el("summary", label)); }
      else { item = el("div", null, "said " + w.kind); item.appendChild(el("div", label, "said-label")); }
      item.setAttribute("data-sequence", w.sequence); item.appendChild(text); part.appendChild(item);
    });
    box.appendChild(part);
  }

  // -- diff: its answer, or why there is none, where the diff is --------------------------------------
  function runDiff(how) {
    var a = $("diff-a").value, b = $("diff-b").value;
    S.diff = { a: a, b: b, offset: 0 }; if (how) sessionUrl(false);
    clearDiff(); moreDiff(how);
  }
  function clearDiff() {
    $("diff-result").replaceChildren(); $("diff-result").removeAttribute("data-total");
    $("diff-summary").textContent = ""; $("diff-error").textContent = ""; $("diff-more").hidden = true;
  }
  function moreDiff(how) {
    var d0 = S.diff;
    api("/sessions/" + enc(S.ref) + "/diff", { a: d0.a, b: d0.b, offset: d0.offset, limit: 100 }).then(function (d) {
      if (d0 !== S.diff) return;
      var table = $("diff-result"); if (!d0.offset) table.replaceChildren(CX.head(["invocation", "tool", "at " + d.a, "at " + d.b]));
      d.changes.forEach(function (c) { table.appendChild(row([link(c.invocation_id, c.ref), word(c.after.tool_name), word(c.before ? c.before.status : "(new)"), word(c.after.status)], "change")); });
      d0.offset += d.changes.length; table.setAttribute("data-total", d.total);
      $("diff-summary").textContent = fmtNum(d.total) + " invocations added or changed from " + fmtNum(d.a) + " to " + fmtNum(d.b);
      $("diff-more").hidden = d0.offset >= d.total;
    }).catch(function (error) {
      if (d0 !== S.diff) return;
      clearDiff(); $("diff-error").textContent = CX.txt(error.message || error);
      if (how) $("diff-error").scrollIntoView({ block: "nearest" });
    });
  }

  // -- search: at the scrubbed sequence, its question in the address --------------------------------
  var found = null;  // the search shown: the sequence it ran at, and where its next page starts
  function searchOf(value) { var s = {}; SEARCH_KEYS.forEach(function (k) { s[k] = value(k); }); return s; }
  var FIELDS = { q: "search-text", tool: "search-tool", status: "search-status", id: "search-id" };
  function showSearchFields() { SEARCH_KEYS.forEach(function (k) { $(FIELDS[k]).value = S.search ? S.search[k] : ""; }); }
  function runSearch() {
    S.search = searchOf(function (k) { return $(FIELDS[k]).value; });
    sessionUrl(false); searchAt();
  }
  function searchAt() {
    found = { at: S.shown == null ? S.at : S.shown, after: -1, count: 0, scanned: 0 };
    $("search-error").textContent = ""; $("search-more").hidden = true;
    $("search-results").replaceChildren(CX.head(["invocation", "tool", "status", "requested at seq", "found in"])); moreSearch(); searchSaid();
  }
  // What was said (prompts, the assistant's words and reasoning) is looked in for the text too,
  // when no filter only a call has (tool, status, id) is given; a hit scrubs to its event.
  var saidFound = null;
  function searchSaid() {
    var s = S.search, on = !!(s && s.q && !s.tool && !s.status && !s.id);
    saidFound = on ? { at: found.at, after: 0, count: 0 } : null;
    $("said-title").hidden = !on; $("said-more").hidden = true; $("said-summary").textContent = "";
    $("said-results").replaceChildren(); if (on) { $("said-results").appendChild(CX.head(["at seq", "said", "text"])); moreSaid(); }
  }
  function saidRow(m, where) {
    var kind = el("span", m.kind === "prompt" ? "prompt" : m.kind === "reasoning" ? "reasoning" : "said", "said-kind");
    if (m.model) kind.title = CX.txt(m.model);
    return row([where, kind, el("span", m.snippet, "said-snippet")], "said-match");
  }
  function moreSaid() {
    var s = S.search, f = saidFound;
    api("/sessions/" + enc(S.ref) + "/said", { q: s.q, at: f.at, after: f.after, limit: 50 }).then(function (d) {
      if (f !== saidFound) return;
      var table = $("said-results");
      d.matches.forEach(function (m) { table.appendChild(saidRow(m, seqLink(m.sequence))); });
      f.count += d.matches.length; f.after = d.next;
      table.setAttribute("data-found", f.count);
      $("said-summary").textContent = fmtNum(f.count) + " found" + (d.next == null ? "" : " so far, through sequence " + fmtNum(d.next));
      $("said-more").hidden = d.next == null;
    }).catch(function (error) { if (f === saidFound) $("said-summary").textContent = CX.txt(error.message || error); });
  }
  function moreSearch() {
    var s = S.search, f = found;
    api("/sessions/" + enc(S.ref) + "/search", { q: s.q, tool: s.tool, status: s.status, id: s.id, at: f.at, after: f.after, limit: 50 }).then(function (d) {
      if (f !== found) return;
      var table = $("search-results");
      d.matches.forEach(function (m) { table.appendChild(row([link(m.invocation_id, m.ref), word(m.tool_name), word(m.status), m.requested_seq, m.where.join(", ")], "match")); });
      f.count += d.matches.length; f.scanned += d.scanned; f.after = d.next;
      table.setAttribute("data-found", f.count); table.setAttribute("data-at", d.at);
      $("search-summary").textContent = fmtNum(f.count) + " found at sequence " + fmtNum(d.at) + (d.next == null ? " · every invocation requested by then searched" : " · " + fmtNum(f.scanned) + " searched so far");
      $("search-more").hidden = d.next == null;
    }).catch(function (error) { if (f === found) { $("search-error").textContent = CX.txt(error.message || error); $("search-more").hidden = true; } });
  }
  function loadRefused() {
    api("/sessions/" + enc(S.ref) + "/refused", { limit: 200 }).then(function (d) {
      $("refused-title").hidden = false; $("refused-title").textContent = "Refused events: " + fmtNum(d.total) + (d.total > d.refused.length ? " (the first " + d.refused.length + " shown)" : "");
      fill($("refused"), ["seq", "invocation", "why", "error"], d.refused.map(function (r) { return row([seqLink(r.sequence), r.ref ? link(r.invocation_id, r.ref) : "", CX.term(r.kind), r.error]); }));
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
    if (!redraw) redraw = setTimeout(function () { redraw = null; loadTimeline(); loadTurns(); loadAudit(); api("/sessions/" + enc(S.ref)).then(showOverview).catch(showError); }, 300);
  }

  // -- the keyboard: listed on the page (?) and in docs/serve.md; never while typing in a field ------
  var KEYS = [
    [["j", "→"], "one event on", function () { step(1); }],
    [["k", "←"], "one event back", function () { step(-1); }],
    [["n", "]"], "the next failure: failed, rejected or exited non-zero (its call opened)", function () { seek("next"); }],
    [["p", "["], "the previous failure", function () { seek("previous"); }],
    [["t", "}"], "the next prompt: the start of a turn (its mark above the timeline is also reached with Tab)", function () { seekPrompt(1); }],
    [["T", "{"], "the previous prompt", function () { seekPrompt(-1); }],
    [["o", "Enter"], "open the call of the event at the scrubber", function () { if (S.current) pick(S.current); }],
    [["/"], "search (the list's filter on the sessions page)", function () { var box = $(S.ref ? "search-text" : "filter"); box.focus(); box.select(); }],
    [["?"], "show or hide these keys and what the page's words mean", function () { help(); }],
    [["Esc"], "close this panel; in a field, leave it", function () { help(false); }]
  ];
  var NAMES = { "→": "ArrowRight", "←": "ArrowLeft", Esc: "Escape" }, ONLY_HERE = { j: 1, k: 1, n: 1, p: 1, o: 1, t: 1, T: 1 };
  // From where the scrubber is going (a key held down runs ahead of the answers).
  function step(by) { if (S.ref) scrubTo((S.at == null ? S.last : S.at) + by, "push"); }
  function keyed(ev) {
    if (ev.ctrlKey || ev.metaKey || ev.altKey || ev.defaultPrevented) return;
    var t = ev.target, tag = t && t.tagName ? t.tagName : "", type = tag === "INPUT" ? String(t.type) : "";
    var typing = tag === "TEXTAREA" || tag === "SELECT" || (t && t.isContentEditable) || (tag === "INPUT" && !/^(range|checkbox|radio|button|submit|reset)$/.test(type));
    if (typing) { if (ev.key === "Escape") t.blur(); return; }
    if (type === "range" && /^Arrow/.test(ev.key)) return;  // the scrubber moves itself
    if (ev.key === "Enter" && (tag === "A" || tag === "BUTTON" || tag === "SUMMARY")) return;  // it activates them
    for (var i = 0; i < KEYS.length; i++) {
      var names = KEYS[i][0].map(function (name) { return NAMES[name] || name; });
      if (names.indexOf(ev.key) < 0) continue;
      if (!S.ref && ONLY_HERE[KEYS[i][0][0]]) return;
      ev.preventDefault(); KEYS[i][2](); return;
    }
  }
  function help(show) {
    var panel = $("help"); if (show == null) show = panel.hidden;
    panel.hidden = !show; $("help-button").setAttribute("aria-expanded", String(show));
    if (show) panel.scrollIntoView({ block: "nearest" });
  }
  function keysAndWords() {
    fill($("help-keys"), ["key", "does"], KEYS.map(function (k) {
      var keys = el("td", null, "keys"); k[0].forEach(function (name, n) { if (n) keys.appendChild(document.createTextNode(" or ")); keys.appendChild(el("kbd", name)); });
      var tr = el("tr"); tr.appendChild(keys); tr.appendChild(el("td", k[1])); return tr;
    }));
    document.querySelectorAll("[data-term]").forEach(function (e) { e.title = CX.means(e.getAttribute("data-term")) || ""; });
    var words = $("help-words"); words.replaceChildren();
    CX.GLOSSARY.forEach(function (g) { words.appendChild(el("dt", g[0])); words.appendChild(el("dd", g[1])); });
    $("keys-hint").textContent = "keys: j / k an event · n / p a failure · t / T a prompt · o open · / search · ? all keys and words";
    $("help-button").onclick = function () { help(); };
    $("help-close").onclick = function () { help(false); };
    document.addEventListener("keydown", keyed);
  }
  keysAndWords();

  function start() {
    var parts = location.pathname.split("/");
    if (parts[1] === "sessions" && parts[2]) sessionView(decodeURIComponent(parts[2]));
    else if (parts[1] === "compare") CXCompare({ api: api, showError: showError });
    else sessionsView();
  }
  signIn().then(start, function (error) { if (credential) start(); else showError(error); });
})();
