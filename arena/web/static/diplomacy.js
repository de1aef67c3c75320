"use strict";
// A Diplomacy game's page: follows the game's socket, draws the board as
// an SVG map from the server's map (GET /api/diplomacy/map) with units,
// supply centres and the orders of a phase, keeps a list of phases to
// step back through, and in participate mode asks the person for orders
// and messages.
(function () {
  const $ = (id) => document.getElementById(id);
  const SVG = "http://www.w3.org/2000/svg";
  const gameID = decodeURIComponent(location.pathname.split("/").pop());
  const token = new URLSearchParams(location.search).get("token") || "";
  const COLORS = { AUSTRIA: "#c0392b", ENGLAND: "#1f3c88", FRANCE: "#3fa7e0", GERMANY: "#4d4d4d", ITALY: "#2e8b57", RUSSIA: "#8e44ad", TURKEY: "#d4a017" };
  const st = {
    map: null, prov: {}, info: null, power: "", all: false, maxBytes: 8192,
    phases: [],          // processed phases: {name, board, orders, rejected, centers, rounds}
    current: null,       // {name, board, rounds}: the board of the phase being played (or the final board)
    selected: -1,        // index into entries(); -1 follows the game
    question: null, draft: [], ended: false,
  };
  let ws = null;
  let pending = [];      // messages that arrived before the map

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function svg(tag, attrs, parent) {
    const e = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
    if (parent) parent.appendChild(e);
    return e;
  }

  // point returns a location's point: a coast's own, else its province's.
  function point(loc) {
    const code = loc.split("/")[0];
    const p = st.prov[code];
    if (!p) return null;
    if (loc.includes("/") && p.coasts && p.coasts[loc]) return p.coasts[loc];
    return p.at;
  }

  function buildMap() {
    const holder = $("map-holder");
    holder.textContent = "";
    const m = st.map;
    const root = svg("svg", { id: "map", viewBox: "0 0 " + m.width + " " + m.height, role: "img", "aria-label": "Diplomacy map" }, holder);
    const defs = svg("defs", {}, root);
    for (const [id, color] of [["arrow", "#111"], ["arrow-failed", "#b03a2e"], ["arrow-draft", "#6c5ce7"]]) {
      const mk = svg("marker", { id: id, viewBox: "0 0 10 10", refX: "8", refY: "5", markerWidth: "6", markerHeight: "6", orient: "auto-start-reverse" }, defs);
      svg("path", { d: "M0,0 L10,5 L0,10 z", fill: color }, mk);
    }
    const edges = svg("g", { id: "edges" }, root);
    for (const e of m.edges) {
      const a = st.prov[e.a].at, b = st.prov[e.b].at;
      svg("line", { class: "edge" + (e.army ? "" : " fleet-only"), x1: a.x, y1: a.y, x2: b.x, y2: b.y, "data-a": e.a, "data-b": e.b }, edges);
    }
    const provs = svg("g", { id: "provinces" }, root);
    for (const p of m.provinces) {
      for (const [loc, c] of Object.entries(p.coasts || {})) {
        svg("line", { class: "coast-link", x1: p.at.x, y1: p.at.y, x2: c.x, y2: c.y }, provs);
        const cp = svg("circle", { class: "coast-pt", cx: c.x, cy: c.y, r: 5, "data-loc": loc }, provs);
        svg("title", {}, cp).textContent = loc;
      }
      const c = svg("circle", { class: "prov " + p.kind, cx: p.at.x, cy: p.at.y, r: 17, "data-code": p.code }, provs);
      svg("title", {}, c).textContent = p.name + " (" + p.code + ")" + (p.sc ? ", supply centre" : "") + (p.home ? ", home of " + p.home : "");
      const t = svg("text", { class: "label", x: p.at.x, y: p.at.y + 29 }, provs);
      t.textContent = p.code;
    }
    svg("g", { id: "centers" }, root);
    svg("g", { id: "orders-layer" }, root);
    svg("g", { id: "units" }, root);
    const legend = $("powers");
    legend.textContent = "";
    for (const pw of m.powers) {
      const chip = el("span", "power-chip" + (pw === st.power ? " you" : ""));
      chip.dataset.power = pw;
      const sw = el("i"); sw.style.background = COLORS[pw];
      chip.appendChild(sw);
      chip.appendChild(el("span", "", pw + " "));
      chip.appendChild(el("b", "count", ""));
      chip.appendChild(el("span", "model", st.info ? " (" + st.info.models[m.powers.indexOf(pw)] + ")" : ""));
      legend.appendChild(chip);
    }
  }

  function drawBoard(board) {
    const centers = $("centers");
    const units = $("units");
    centers.textContent = ""; units.textContent = "";
    const counts = {};
    for (const p of st.map.provinces) {
      if (!p.sc) continue;
      const owner = board.centers[p.code] || "";
      if (owner) counts[owner] = (counts[owner] || 0) + 1;
      const c = svg("circle", { class: "sc", cx: p.at.x + 14, cy: p.at.y - 14, r: 6, fill: owner ? COLORS[owner] : "#fff", "data-loc": p.code, "data-owner": owner }, centers);
      svg("title", {}, c).textContent = p.code + (owner ? " owned by " + owner : " unowned");
    }
    for (const u of board.units) {
      const pt = point(u.loc);
      if (!pt) continue;
      const dx = u.dislodged ? 12 : 0, dy = u.dislodged ? 10 : 0;
      const g = svg("g", { class: "unit" + (u.dislodged ? " dislodged" : ""), "data-loc": u.loc, "data-power": u.power, "data-type": u.type, transform: "translate(" + (pt.x + dx) + "," + (pt.y + dy) + ")" }, units);
      if (u.type === "F") svg("path", { class: "unit-shape", d: "M-12,4 L12,4 L8,10 L-8,10 z M-10,2 L0,-11 L10,2 z", fill: COLORS[u.power] }, g);
      else svg("rect", { class: "unit-shape", x: -9, y: -9, width: 18, height: 18, rx: 3, fill: COLORS[u.power] }, g);
      svg("text", { class: "unit-letter", x: 0, y: u.type === "F" ? 0 : 0 }, g).textContent = u.type;
      svg("title", {}, g).textContent = u.power + " " + u.type + " " + u.loc + (u.dislodged ? " (dislodged; may retreat to " + ((u.retreats || []).join(", ") || "nowhere") + ")" : "");
    }
    for (const chip of document.querySelectorAll(".power-chip")) {
      chip.querySelector(".count").textContent = String(counts[chip.dataset.power] || 0);
    }
  }

  // drawOrders draws a phase's orders: moves and retreats as arrows,
  // supports as dashed lines, convoys dotted, holds as rings, builds and
  // disbands marked; failed orders in red. cls adds a class to each.
  function drawOrders(orders, cls) {
    const layer = $("orders-layer");
    for (const o of orders) {
      const from = o.loc ? point(o.loc) : null;
      if (!from) continue;
      const failed = o.result && o.result.length > 0 && !(o.result.length === 1 && o.result[0] === "dislodged" && o.type !== "move");
      const c = "order " + o.type + (failed ? " failed" : "") + (cls ? " " + cls : "");
      const attrs = { class: c, "data-loc": o.loc, "data-type": o.type, "data-text": o.text };
      switch (o.type) {
        case "move":
        case "retreat": {
          const to = point(o.dest);
          if (!to) break;
          line(layer, from, to, attrs, cls === "draft" ? "arrow-draft" : (failed ? "arrow-failed" : "arrow"));
          break;
        }
        case "support":
        case "convoy": {
          const target = point(o.dest || o.aux_loc);
          const aux = point(o.aux_loc);
          if (!target || !aux) break;
          if (o.dest) {
            // to the middle of the supported (or convoyed) move
            const mid = { x: (aux.x + target.x) / 2, y: (aux.y + target.y) / 2 };
            line(layer, from, mid, attrs, null);
            svg("circle", { class: c, cx: mid.x, cy: mid.y, r: 3 }, layer);
          } else {
            line(layer, from, target, attrs, null);
            svg("circle", { class: c, cx: target.x, cy: target.y, r: 13 }, layer);
          }
          break;
        }
        case "hold":
          svg("circle", Object.assign({ cx: from.x, cy: from.y, r: 15 }, attrs), layer);
          break;
        case "build":
          svg("circle", Object.assign({ cx: from.x, cy: from.y, r: 15 }, attrs), layer);
          break;
        case "disband":
          svg("path", Object.assign({ d: "M" + (from.x - 10) + "," + (from.y - 10) + " L" + (from.x + 10) + "," + (from.y + 10) + " M" + (from.x + 10) + "," + (from.y - 10) + " L" + (from.x - 10) + "," + (from.y + 10) }, attrs), layer);
          break;
      }
    }
  }

  function line(layer, a, b, attrs, marker) {
    const dx = b.x - a.x, dy = b.y - a.y, len = Math.hypot(dx, dy) || 1;
    const cut = marker ? 14 : 0;
    const e = svg("line", Object.assign({ x1: a.x, y1: a.y, x2: b.x - dx / len * cut, y2: b.y - dy / len * cut }, attrs), layer);
    if (marker) e.setAttribute("marker-end", "url(#" + marker + ")");
    return e;
  }

  // entries are the processed phases, then the current board.
  function entries() {
    const out = st.phases.map((p) => ({ kind: "phase", p: p }));
    if (st.current) out.push({ kind: "current", p: st.current });
    return out;
  }

  function render() {
    if (!st.map) return;
    const es = entries();
    const list = $("phases");
    list.textContent = "";
    const sel = st.selected >= 0 && st.selected < es.length ? st.selected : es.length - 1;
    es.forEach((e, i) => {
      const li = el("li", i === sel ? "selected" : "", e.p.name + (e.kind === "current" ? (st.ended ? " (final board)" : " (now)") : ""));
      li.dataset.phase = e.p.name;
      li.dataset.index = i;
      li.dataset.kind = e.kind;
      li.addEventListener("click", () => { st.selected = i; render(); });
      list.appendChild(li);
    });
    const liSel = list.querySelector("li.selected");
    if (liSel && st.selected < 0) liSel.scrollIntoView({ block: "nearest" });
    $("live").disabled = st.selected < 0;
    $("orders-layer").textContent = "";
    const e = es[sel];
    if (!e) return;
    drawBoard(e.p.board);
    const prev = e.kind === "current" ? st.phases[st.phases.length - 1] : null;
    if (e.kind === "phase") {
      drawOrders(e.p.orders, "");
      $("map-caption").textContent = "Orders of " + e.p.name;
    } else {
      if (prev) drawOrders(prev.orders, "trail");
      $("map-caption").textContent = "Board of " + e.p.name + (prev ? " (faint: the orders of " + prev.name + ")" : "");
      if (st.question && st.question.kind === "orders") drawOrders(st.draft, "draft");
    }
    $("map-holder").dataset.phase = e.p.name;
    $("map-holder").dataset.kind = e.kind;
    renderOrders(e.kind === "phase" ? e.p : null);
    renderMessages(e.p);
  }

  function renderOrders(p) {
    const box = $("orders");
    box.textContent = "";
    if (!p) { box.appendChild(el("div", "muted", "Orders are shown once the phase is adjudicated; pick a past phase to see its orders.")); return; }
    const by = {};
    for (const o of p.orders) (by[o.power || "—"] = by[o.power || "—"] || []).push(o);
    for (const [pw, os] of Object.entries(by)) {
      const d = el("div", "power-orders");
      d.appendChild(el("b", "", pw + ": "));
      os.forEach((o, i) => {
        const failed = o.result && o.result.length;
        d.appendChild(el("span", failed ? "failed" : "", o.text + (failed ? " (" + o.result.join(", ") + ")" : "") + (o.illegal ? " [" + o.illegal + "]" : "") + (i < os.length - 1 ? ", " : "")));
      });
      box.appendChild(d);
    }
    for (const [pw, rs] of Object.entries(p.rejected || {})) {
      box.appendChild(el("div", "failed", pw + " refused: " + rs.map((r) => r.text + " (" + r.reason + ")").join("; ")));
    }
  }

  function renderMessages(p) {
    const box = $("messages");
    box.textContent = "";
    if (!p.rounds.length) { box.appendChild(el("div", "round", "No negotiation in " + p.name + ".")); return; }
    for (const r of p.rounds) {
      box.appendChild(el("div", "round", p.name + ", round " + r.round + (r.messages.length ? "" : ": no messages")));
      for (const m of r.messages) {
        const d = el("div", "msg" + (m.recipient === "GLOBAL" ? "" : " private"), m.sender + " → " + m.recipient + ": " + m.content);
        d.dataset.sender = m.sender; d.dataset.recipient = m.recipient;
        box.appendChild(d);
      }
    }
  }

  function onEvent(e) {
    switch (e.type) {
      case "position":
        st.current = { name: e.phase, board: e.board, rounds: [] };
        $("phase").textContent = e.phase;
        break;
      case "negotiation":
        if (st.current && st.current.name === e.phase) st.current.rounds.push({ round: e.round, messages: e.messages || [] });
        break;
      case "phase": {
        const rounds = st.current && st.current.name === e.phase ? st.current.rounds : [];
        st.phases.push({ name: e.phase, board: e.board, orders: e.orders || [], rejected: e.rejected || {}, centers: e.centers || {}, rounds: rounds });
        break;
      }
    }
    render();
  }

  // --- the person's questions ---
  function send(m) {
    $("qerror").textContent = "";
    const text = JSON.stringify(m);
    if (new TextEncoder().encode(text).length > st.maxBytes) { $("qerror").textContent = "Too long: at most " + st.maxBytes + " bytes in all."; return; }
    ws.send(text);
  }

  function button(id, text, onclick) {
    const b = el("button", "", text);
    b.id = id; b.type = "button";
    b.addEventListener("click", onclick);
    return b;
  }

  function parseDraft(text, loc) {
    // Enough of an order's parts to draw it: "A PAR - BUR", "A MUN S A BER - SIL", "F NTH C A LON - NWY", "A PAR H", "A PAR B".
    const t = text.split(" ");
    if (t.length < 3) return null;
    const o = { loc: t[1], text: text, power: st.power };
    switch (t[2]) {
      case "-": o.type = "move"; o.dest = t[3]; break;
      case "R": o.type = "retreat"; o.dest = t[3]; break;
      case "H": o.type = "hold"; break;
      case "B": o.type = "build"; break;
      case "D": o.type = "disband"; break;
      case "S": o.type = "support"; o.aux_loc = t[4]; o.dest = t[5] === "-" ? t[6] : ""; break;
      case "C": o.type = "convoy"; o.aux_loc = t[4]; o.dest = t[6]; break;
      default: return null;
    }
    if (!o.loc) o.loc = loc;
    return o;
  }

  function updateDraft() {
    st.draft = [];
    for (const s of document.querySelectorAll("#controls select[data-loc]")) {
      if (s.value) { const o = parseDraft(s.value, s.dataset.loc); if (o) st.draft.push(o); }
    }
    render();
  }

  function msgRow(q) {
    const row = el("div", "msg-row");
    const to = el("select", "recipient");
    for (const r of q.recipients) to.appendChild(el("option", "", r)).value = r;
    to.value = "GLOBAL";
    const text = el("input", "content"); text.type = "text"; text.maxLength = 1000; text.placeholder = "message";
    row.appendChild(to); row.appendChild(text);
    row.appendChild(button("", "✕", () => row.remove()));
    return row;
  }

  function showQuestion(q) {
    st.question = q;
    const box = $("question");
    box.hidden = false;
    box.dataset.qid = q.id;
    box.dataset.kind = q.kind;
    $("prompt").textContent = q.prompt.map((m) => "[" + m.role + "]\n" + m.content).join("\n\n");
    const c = $("controls");
    c.textContent = "";
    if (q.kind === "negotiation") {
      $("qinfo").textContent = q.power + ", " + q.phase + ": write messages to the other powers (private) or to everyone (GLOBAL), or send none.";
      const rows = el("div"); rows.id = "msg-rows";
      rows.appendChild(msgRow(q));
      c.appendChild(rows);
      c.appendChild(button("add-message", "Add message", () => rows.appendChild(msgRow(q))));
      c.appendChild(button("submit-messages", "Send", () => {
        const msgs = [];
        for (const r of rows.querySelectorAll(".msg-row")) {
          const content = r.querySelector(".content").value.trim();
          if (content) msgs.push({ recipient: r.querySelector(".recipient").value, content: content });
        }
        send({ type: "messages", id: q.id, power: q.power, messages: msgs });
      }));
    } else {
      let info = q.power + ", " + q.phase + ": one order per location (units without one hold, or in a retreat disband).";
      if (q.adjustment > 0) info = q.power + ", " + q.phase + ": you may build " + q.adjustment + " unit(s) (or WAIVE).";
      if (q.adjustment < 0) info = q.power + ", " + q.phase + ": you must disband " + (-q.adjustment) + " unit(s).";
      $("qinfo").textContent = info;
      for (const lo of q.possible) {
        const row = el("div", "loc-row");
        row.appendChild(el("b", "", lo.loc));
        const s = el("select"); s.dataset.loc = lo.loc;
        s.appendChild(el("option", "", "(no order)")).value = "";
        for (const o of lo.orders) s.appendChild(el("option", "", o)).value = o;
        const hold = lo.orders.find((o) => o.endsWith(" H"));
        s.value = hold || "";
        s.addEventListener("change", updateDraft);
        row.appendChild(s);
        c.appendChild(row);
      }
      c.appendChild(button("submit-orders", "Submit orders", () => {
        const orders = [];
        for (const s of c.querySelectorAll("select[data-loc]")) if (s.value) orders.push(s.value);
        send({ type: "orders", id: q.id, power: q.power, orders: orders });
      }));
      st.selected = -1;
      updateDraft();
    }
    box.scrollIntoView({ block: "nearest" });
  }

  function closeQuestion(id) {
    if (st.question && st.question.id === id) {
      st.question = null; st.draft = [];
      const box = $("question");
      box.hidden = true;
      delete box.dataset.qid;
      delete box.dataset.kind;
      render();
    }
  }

  function setStatus(info) {
    st.info = info;
    $("status").textContent = info.status + (info.error ? ": " + info.error : "");
    document.body.dataset.status = info.status;
    $("stop").hidden = info.status !== "running" || (!!info.person_power && !token);
    if (info.status !== "running") {
      st.ended = true;
      closeQuestion(st.question ? st.question.id : -1);
      const r = $("result");
      r.hidden = false;
      const cs = Object.entries(info.centers || {}).sort((a, b) => b[1] - a[1]).map(([p, n]) => p + " " + n).join(", ");
      r.textContent = (info.status === "finished" ? (info.winner ? info.winner + " wins" : "Game over, no winner") : "Game " + info.status) + " after " + info.phases + " phase" + (info.phases === 1 ? "" : "s") + ". Supply centres: " + cs + "." + (info.seed !== undefined ? " Seed " + info.seed + "." : "");
      r.dataset.winner = info.winner || "";
      if (info.log) {
        const a = $("log-link");
        a.hidden = false;
        a.href = "/api/diplomacy/games/" + encodeURIComponent(info.id) + "/log";
        a.setAttribute("download", "diplomacy-" + info.id + ".json");
      }
      render();
    }
  }

  function onMessage(ev) {
    let m;
    try { m = JSON.parse(ev.data); } catch (e) { return; }
    if (!st.map) { pending.push(m); return; }
    handle(m);
  }

  function handle(m) {
    switch (m.type) {
      case "hello":
        st.power = m.power || ""; st.all = !!m.all; st.maxBytes = m.max_message_bytes || st.maxBytes;
        st.info = m.game;
        $("game-id").textContent = m.game.id;
        $("mode").textContent = m.game.person_power ? (st.power ? "participate (you are " + st.power + ")" : "watching a person's game") : "observe";
        buildMap();
        setStatus(m.game);
        break;
      case "event": onEvent(m.event); break;
      case "question": showQuestion(m.question); break;
      case "question_closed": closeQuestion(m.id); break;
      case "status": setStatus(m.game); break;
      case "error": $("qerror").textContent = m.message; break;
    }
  }

  async function start() {
    const resp = await fetch("/api/diplomacy/map");
    st.map = await resp.json();
    for (const p of st.map.provinces) st.prov[p.code] = p;
    for (const m of pending) handle(m);
    pending = [];
  }

  function connect() {
    const url = (location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/ws/diplomacy/" + encodeURIComponent(gameID) + (token ? "?token=" + encodeURIComponent(token) : "");
    ws = new WebSocket(url);
    ws.addEventListener("message", onMessage);
    ws.addEventListener("close", () => { if (!st.ended) $("status").textContent += " (disconnected)"; });
  }

  $("live").addEventListener("click", () => { st.selected = -1; render(); });
  $("stop").addEventListener("click", () => fetch("/api/diplomacy/games/" + encodeURIComponent(gameID) + "/stop" + (token ? "?token=" + encodeURIComponent(token) : ""), { method: "POST" }));
  start().then(connect, (e) => { $("status").textContent = "cannot load the map: " + e; });
})();
