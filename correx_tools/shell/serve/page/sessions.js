// correx-tools serve: the sessions page's two views of the sessions its filters pick, as the
// commands pick them (agent, project, model, since, until, with failures, machine, user):
//  * the list (/?FILTERS&q=&sort=&offset=): `sessions --json`'s rows, the most recent first, a page
//    at a time, or sorted by a column (the project's groups them under their project);
//  * the usage (/usage?FILTERS&stack=project|model|user|machine): `usage --by day --json`'s rows as a table, and
//    each day's tokens and cost drawn as bars stacked by project, model, user or machine (uPlot, shipped with the
//    package: nothing is fetched from elsewhere).
// The filters, order and page live in the address, so a link or a reload shows the same list. Dates
// are read, and days counted, in the address's zone (tz=), else the viewer's own. Every value from
// a session is set as text (CX.el, CX.row), never as markup; the charts draw on a canvas.
"use strict";
var CXSessions = function (tools) {
  var $ = CX.$, el = CX.el, row = CX.row, fmtNum = CX.fmtNum, enc = encodeURIComponent;
  var TEXTS = { project: "f-project", agent: "f-agent", model: "f-model", since: "f-since", until: "f-until", machine: "f-machine", user: "f-user" };
  var ZONE = "";
  try { ZONE = Intl.DateTimeFormat().resolvedOptions().timeZone || ""; } catch (e) { /* the server's zone then */ }
  var usage = location.pathname === "/usage", typing = null;
  $("sessions-view").hidden = false; $(usage ? "usage-part" : "list-part").hidden = false;
  document.title = (usage ? "usage" : "sessions") + " · correx-tools serve";

  // -- the address: the filters, and each view's own keys ----------------------------------------
  function address() { return new URLSearchParams(location.search); }
  // Change some keys of the address; the others (the search over every session's) stay as they are.
  function readdress(changes, push) {
    var q = address();
    Object.keys(changes).forEach(function (k) { var v = changes[k]; if (v == null || v === "" || v === false) q.delete(k); else q.set(k, v === true ? "1" : v); });
    var url = location.pathname + (String(q) ? "?" + q : "");
    if (push) history.pushState(null, "", url); else history.replaceState(null, "", url);
    views();
  }
  function filterKeys() { return Object.keys(TEXTS).concat(["failed", "tz"]); }
  // The filters as the API takes them.
  function filters() {
    var q = address(), f = {};
    Object.keys(TEXTS).forEach(function (k) { f[k] = q.get(k) || ""; });
    f.failed = q.get("failed") ? "1" : ""; f.tz = q.get("tz") || ZONE;
    return f;
  }
  // Each view's link keeps the filters, so the other view shows the same sessions.
  function views() {
    var q = address(), kept = new URLSearchParams();
    filterKeys().forEach(function (k) { if (q.get(k)) kept.set(k, q.get(k)); });
    var f = String(kept) ? "?" + kept : "";
    $("view-sessions").href = "/" + f; $("view-usage").href = "/usage" + f;
    $("view-sessions").className = usage ? "" : "current"; $("view-usage").className = usage ? "current" : "";
  }
  function showFilters() {
    var q = address();
    Object.keys(TEXTS).forEach(function (k) { $(TEXTS[k]).value = q.get(k) || ""; });
    $("f-failed").checked = !!q.get("failed"); $("filter").value = q.get("q") || "";
    var zone = q.get("tz") || ZONE;
    $("f-zone").textContent = zone ? "dates and days in " + zone : "";
  }
  function wire(reload) {
    Object.keys(TEXTS).forEach(function (k) {
      $(TEXTS[k]).oninput = function () {
        var value = this.value.trim(); clearTimeout(typing);
        typing = setTimeout(function () { var c = { offset: null }; c[k] = value; readdress(c); reload(); }, 300);
      };
    });
    $("f-failed").onchange = function () { readdress({ failed: this.checked, offset: null }); reload(); };
    $("f-clear").onclick = function () {
      var c = { failed: null, offset: null, q: null }; Object.keys(TEXTS).forEach(function (k) { c[k] = null; });
      readdress(c, true); showFilters(); reload();
    };
    window.addEventListener("popstate", function () { showFilters(); reload(); });
    showFilters(); views();
  }
  function ready() { document.body.setAttribute("data-ready", "1"); }

  // What tokens cost: the server's dollars, or that a model has no price (never a guess).
  function dollars(usd) { return "$" + (usd >= 1 ? usd.toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 }) : usd.toFixed(4)); }
  function shortCount(n) {
    var units = [[1e9, "B"], [1e6, "M"], [1e3, "k"]];
    for (var i = 0; i < units.length; i++) if (n >= units[i][0]) { var v = n / units[i][0]; return (v < 100 ? v.toFixed(1) : v.toFixed(0)) + units[i][1]; }
    return String(n);
  }
  function tokensTitle(t) { return t ? "input " + fmtNum(t.input) + " · output " + fmtNum(t.output) + " · cache read " + fmtNum(t.cache_read) + " · cache write " + fmtNum(t.cache_write) : ""; }

  // -- the list ----------------------------------------------------------------------------------
  var LIMIT = 50;
  // [sort key, heading, class]; under project headings (sort=project) the project column is left out.
  var COLUMNS = [["session", "session", "sid"], ["recent", "last moved", "when"], ["agent", "agent", "agent"], ["project", "project", "project"],
    ["title", "title", "title"], ["model", "model", "models"], ["invocations", "calls", "num"], ["failures", "failures", "num"],
    ["tokens", "tokens", "num tokens"], ["cost", "cost", "num cost"]];
  function sortOf() { return address().get("sort") || "recent"; }
  function pad2(n) { return (n < 10 ? "0" : "") + n; }
  function minute(iso) { var d = new Date(Date.parse(iso)); return d.getFullYear() + "-" + pad2(d.getMonth() + 1) + "-" + pad2(d.getDate()) + " " + pad2(d.getHours()) + ":" + pad2(d.getMinutes()); }
  function utc(iso) { return iso.replace("T", " ").replace("Z", " UTC"); }
  // When it last moved, in the viewer's zone; its first and last times in UTC on hover.
  function when(s) {
    if (!s.last_time) return el("span", s.transcript && s.transcript.times_recorded === false ? "no times recorded" : "–", "muted");
    var t = el("span", minute(s.last_time), "time"); t.title = (s.first_time ? "first " + utc(s.first_time) + " · " : "") + "last " + utc(s.last_time); return t;
  }
  // A project by the last part of its path, the whole path on hover.
  function project(path) {
    if (!path) return el("span", "–", "muted");
    var parts = path.replace(/[\\/]+$/, "").split(/[\\/]/), p = el("span", parts[parts.length - 1] || path); p.title = CX.txt(path); return p;
  }
  function titleCell(s) { var t = el("span", s.title || "", "title"); if (s.title_from) t.title = s.title_from === "agent" ? "the agent's own title" : "the first prompt"; return t; }
  // Its calls; how many are still open (requested or started), its events and refused ones on hover.
  function calls(s) {
    var st = s.statuses, open = st.requested + st.started, c = el("span", fmtNum(s.invocations), open ? "calls open" : "calls");
    c.title = fmtNum(s.events) + " events · " + fmtNum(open) + " open · " + fmtNum(s.refused_events) + " refused"; return c;
  }
  // A failure is a call that failed, was rejected or exited non-zero (as n and p find them).
  function failures(s) {
    var st = s.statuses, n = st.failed + st.rejected + s.exited_nonzero, c = el("span", fmtNum(n), n ? "failures nonzero" : "failures");
    c.title = fmtNum(st.failed) + " failed · " + fmtNum(st.rejected) + " rejected · " + fmtNum(s.exited_nonzero) + " exited non-zero"; return c;
  }
  function tokens(s) {
    var t = s.tokens, c = el("span", t ? fmtNum(t.total) : !s.transcript ? "" : s.said ? "none recorded" : "none in the store", "tokens");
    c.title = tokensTitle(t); return c;
  }
  function cost(s) {
    if (s.cost != null) return el("span", dollars(s.cost), "cost");
    if (!s.unpriced_models.length) return el("span", "–", "cost muted");
    var c = el("span", "?", "cost unpriced"); c.title = "no price for " + s.unpriced_models.join(", "); return c;
  }
  function loadList() {
    var q = address(), sort = sortOf(), grouped = sort.replace("-", "") === "project", offset = +(q.get("offset") || 0);
    var asked = filters(); asked.q = q.get("q") || ""; asked.sort = sort; asked.offset = offset; asked.limit = LIMIT;
    tools.api("/sessions", asked).then(function (d) {
      tools.showError(null); $("source").textContent = CX.txt(d.source);
      var table = $("sessions"), columns = COLUMNS.filter(function (c) { return !grouped || c[0] !== "project"; }), tr = el("tr");
      columns.forEach(function (c) {
        var key = c[0], th = el("th", c[1] + (sort === key ? " ▲" : sort === "-" + key ? " ▼" : ""), c[2] + (sort.replace("-", "") === key ? " sorted" : ""));
        th.onclick = function () { var next = sort === key ? "-" + key : key; readdress({ sort: next === "recent" ? null : next, offset: null }); loadList(); };
        tr.appendChild(th);
      });
      table.replaceChildren(tr); table.className = "sortable" + (grouped ? " grouped" : "");
      var group;
      d.sessions.forEach(function (s) {
        var a = el("a", d.short_ids[s.ref] || s.session_id, "sid"); a.href = "/sessions/" + enc(s.ref); a.title = CX.txt(s.session_id);
        if (grouped && (group === undefined || (s.project || null) !== group)) {  // a project's heading row
          group = s.project || null;
          var head = el("tr", null, "group"), cell = el("td", group || "no project recorded", group ? "project" : "project muted");
          cell.colSpan = columns.length; head.appendChild(cell); head.setAttribute("data-project", group || ""); table.appendChild(head);
        }
        if (s.damaged) {  // its events do not hold together: no counts, and why
          var bad = el("tr", null, "session damaged"), id = el("td"), why = el("td", "damaged: " + s.damaged, "damaged");
          id.appendChild(a); why.colSpan = columns.length - 1; bad.appendChild(id); bad.appendChild(why); table.appendChild(bad);
          return;
        }
        var cells = { session: a, recent: when(s), agent: s.agent || "recorded", project: project(s.project), title: titleCell(s), model: s.models.join(", "),
          invocations: calls(s), failures: failures(s), tokens: tokens(s), cost: cost(s) };
        var tr = row(columns.map(function (c) { return cells[c[0]]; }), "session");
        columns.forEach(function (c, k) { tr.children[k].className = c[2]; });
        table.appendChild(tr);
      });
      table.setAttribute("data-total", d.total);
      $("sessions-count").textContent = d.total ? fmtNum(d.offset + 1) + "–" + fmtNum(d.offset + d.sessions.length) + " of " + fmtNum(d.total) : "no session matches";
      $("sessions-prev").disabled = d.offset === 0; $("sessions-next").disabled = d.offset + d.sessions.length >= d.total;
      ready(); if (tools.listed) tools.listed(d);
    }).catch(function (error) { tools.showError(error); ready(); if (tools.listed) tools.listed({}); });
  }
  function list() {
    wire(loadList);
    $("filter").oninput = function () {
      var value = this.value; clearTimeout(typing);
      typing = setTimeout(function () { readdress({ q: value, offset: null }); loadList(); }, 300);
    };
    function page(by) { var offset = Math.max(0, +(address().get("offset") || 0) + by); readdress({ offset: offset || null }); loadList(); }
    $("sessions-prev").onclick = function () { page(-LIMIT); };
    $("sessions-next").onclick = function () { page(LIMIT); };
    loadList();
    setInterval(loadList, 5000);
  }

  // -- the usage ---------------------------------------------------------------------------------
  // Colours told apart by most eyes (Tableau 10), one a layer; the eighth is "other" where more were folded.
  var PALETTE = ["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#9c755f"];
  var charts = {};
  // Every day from the first to the last, so a day without usage is an empty place on the axis.
  function everyDay(keys) {
    var days = [], first = Date.parse(keys[0] + "T00:00:00Z"), last = Date.parse(keys[keys.length - 1] + "T00:00:00Z");
    for (var t = first; t <= last && days.length < 3700; t += 864e5) days.push(new Date(t).toISOString().slice(0, 10));
    return days;
  }
  // A layer's name: a project by the last part of its path (its whole path where two share that),
  // what none is recorded for, or the others folded into one.
  function layerNames(layers, stack) {
    var last = layers.map(function (l) { var parts = l.key.replace(/[\\/]+$/, "").split(/[\\/]/); return parts[parts.length - 1] || l.key; });
    return layers.map(function (l, k) {
      if (l.rest.length) return "other " + (stack === "project" ? "projects" : stack + "s") + " (" + fmtNum(l.rest.length) + ")";
      if (l.key === "-") return stack === "project" ? "no project recorded" : stack === "model" ? "model not recorded" : "no " + stack + " named";
      if (stack !== "project") return l.key;
      return last.filter(function (n) { return n === last[k]; }).length > 1 ? l.key : last[k];
    });
  }
  // Bars stacked by layer: each series is its layer plus those under it, the top one drawn first and
  // each lower one over it; the legend and the hover say each layer's own value.
  function chart(id, days, layers, names, value, shown, axis) {
    var box = $(id), at = {};
    if (charts[id]) { charts[id].destroy(); delete charts[id]; }
    box.replaceChildren();
    if (!days.length) { box.appendChild(el("p", "no usage with a recorded time", "muted")); box.setAttribute("data-drawn", "[]"); return; }
    days.forEach(function (day, i) { at[day] = i; });
    var own = layers.map(function (layer) {
      var v = days.map(function () { return 0; });
      layer.days.forEach(function (r) { if (at[r.key] != null) v[at[r.key]] = value(r); });
      return v;
    });
    var sums = [], under = days.map(function () { return 0; });
    own.forEach(function (v) { under = under.map(function (a, i) { return a + v[i]; }); sums.push(under); });
    var top = own.map(function (_, k) { return own.length - 1 - k; });
    var series = [{ label: "day", value: function (u, i) { return i == null ? "" : days[i] || ""; } }];
    top.forEach(function (k) {
      var colour = PALETTE[k % PALETTE.length];
      series.push({ label: CX.txt(names[k]), stroke: colour, fill: colour, width: 0, points: { show: false },
        paths: uPlot.paths.bars({ size: [0.7, 40] }), value: function (u, v, s, i) { return i == null ? "" : shown(own[k][i]); } });
    });
    var opts = {
      width: Math.max(320, box.clientWidth), height: 240, series: series,
      scales: { x: { time: false, range: [-0.6, days.length - 0.4] } },
      axes: [{ incrs: [1, 2, 7, 14, 28, 56, 91, 182, 364], values: function (u, splits) { return splits.map(function (i) { return days[i] ? days[i].slice(5) : ""; }); } },
        { size: 64, values: function (u, splits) { return splits.map(axis); } }],
      cursor: { drag: { x: false, y: false } }, legend: { live: true }
    };
    charts[id] = new uPlot(opts, [days.map(function (_, i) { return i; })].concat(top.map(function (k) { return sums[k]; })), box);
    // What the bars add up to on each day, for a script (and the tests) to read.
    box.setAttribute("data-drawn", JSON.stringify(days.map(function (day, i) { return [day, sums[sums.length - 1][i]]; })));
  }
  function usageCost(r) { return r.cost == null ? (r.unpriced_tokens ? "?" : "–") : dollars(r.cost) + (r.unpriced_tokens ? "+" : ""); }
  function usageTable(d) {
    var names = ["day", "sessions", "calls", "input", "output", "cache read", "cache write", "tokens", "cost"];
    var rows = d.rows.concat([d.total]).map(function (r, n) {
      var t = r.tokens, last = n === d.rows.length;
      var tr = row([last ? "total" : r.key === "-" ? "no time recorded" : r.key, fmtNum(r.sessions), fmtNum(r.calls), fmtNum(t.input), fmtNum(t.output),
        fmtNum(t.cache_read), fmtNum(t.cache_write), fmtNum(t.total), usageCost(r)], last ? "total" : "day");
      for (var k = 1; k < names.length; k++) tr.children[k].className = "num";
      return tr;
    });
    CX.fill($("usage-days"), names, rows);
    $("usage-days").querySelectorAll("th").forEach(function (th, k) { if (k) th.className = "num"; });
  }
  function drawUsage(d) {
    var keys = d.rows.map(function (r) { return r.key; }).filter(function (k) { return k !== "-"; });
    var days = keys.length ? everyDay(keys) : [], t = d.total;
    $("usage-summary").textContent = fmtNum(t.tokens.total) + " tokens · " + usageCost(t) + " · " + CX.counted(t.sessions, "session") + " · " + CX.counted(t.calls, "call") +
      (t.unpriced_tokens ? " · " + fmtNum(t.unpriced_tokens) + " tokens of models with no price are not in the cost" : "");
    var names = layerNames(d.layers, d.stack);
    chart("usage-tokens", days, d.layers, names, function (r) { return r.tokens.total; }, fmtNum, shortCount);
    chart("usage-cost", days, d.layers, names, function (r) { return r.cost || 0; }, dollars, function (v) { return "$" + (v >= 10 ? v.toFixed(0) : v.toFixed(2)); });
    usageTable(d);
  }
  function loadUsage() {
    var asked = filters(); asked.stack = address().get("stack") || "project"; $("usage-stack").value = asked.stack;
    tools.api("/usage", asked).then(function (d) {
      tools.showError(null); $("source").textContent = CX.txt(d.source); drawUsage(d); ready();
    }).catch(function (error) { tools.showError(error); ready(); });
  }
  function usageView() {
    wire(loadUsage);
    $("usage-stack").onchange = function () { readdress({ stack: this.value === "project" ? null : this.value }); loadUsage(); };
    window.addEventListener("resize", function () { Object.keys(charts).forEach(function (id) { charts[id].setSize({ width: Math.max(320, $(id).clientWidth), height: 240 }); }); });
    loadUsage();
  }

  if (usage) usageView(); else list();
  return { filters: filters };
};
