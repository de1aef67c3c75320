"use strict";
// The landing page: the new-game form and the game list.
(function () {
  const $ = (id) => document.getElementById(id);
  let options = null;

  function el(tag, attrs, text) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function modelSelect(id) {
    const s = el("select", { id: id });
    for (const m of options.models) s.appendChild(el("option", { value: m }, m));
    return s;
  }

  function renderSeats() {
    const n = +$("players").value;
    const box = $("seat-models");
    const old = Array.from(box.querySelectorAll("select")).map((s) => s.value);
    box.textContent = "";
    const person = $("mode").value === "participate" ? +$("person-seat").value : -1;
    for (let i = 0; i < n; i++) {
      const l = el("label", {}, "Player " + i + " ");
      if (i === person) {
        l.appendChild(el("b", {}, "you"));
      } else {
        const s = modelSelect("model-" + i);
        if (old[i]) s.value = old[i]; else s.value = $("all-models").value;
        l.appendChild(s);
      }
      box.appendChild(l);
    }
    const ps = $("person-seat");
    const cur = ps.value;
    ps.textContent = "";
    for (let i = 0; i < n; i++) ps.appendChild(el("option", { value: i }, "Player " + i));
    ps.value = cur && +cur < n ? cur : "0";
  }

  async function start(ev) {
    ev.preventDefault();
    try { await startGame(); } catch (e) { $("form-error").textContent = String(e); }
  }

  async function startGame() {
    $("form-error").textContent = "";
    const n = +$("players").value;
    const participate = $("mode").value === "participate";
    const person = participate ? +$("person-seat").value : -1;
    const models = [];
    for (let i = 0; i < n; i++) {
      const s = $("model-" + i);
      models.push(s ? s.value : "");
    }
    const req = { players: n, models: models, delay_ms: +$("delay").value || 0, roles: [] };
    if (participate) req.person_seat = person;
    // A person game's seed is drawn by the server: a chosen one would
    // reveal the deal.
    if (!participate && $("seed").value !== "") req.seed = +$("seed").value;
    for (const r of options.roles) if ($("role-" + r).checked) req.roles.push(r);
    const resp = await fetch("/api/games", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(req) });
    const body = await resp.json();
    if (!resp.ok) { $("form-error").textContent = body.error || resp.statusText; return; }
    location.href = body.url;
  }

  async function refresh() {
    try {
      const resp = await fetch("/api/games");
      const games = await resp.json();
      const tb = document.querySelector("#games tbody");
      tb.textContent = "";
      for (const g of games) {
        const tr = el("tr");
        tr.appendChild(el("td", {}, g.id));
        tr.appendChild(el("td", {}, String(g.players)));
        tr.appendChild(el("td", {}, g.person_seat >= 0 ? "participate (Player " + g.person_seat + ")" : "observe"));
        tr.appendChild(el("td", {}, g.models.join(", ")));
        tr.appendChild(el("td", {}, g.status));
        tr.appendChild(el("td", {}, g.good_wins === undefined || g.good_wins === null ? "" : (g.good_wins ? "Good" : "Evil")));
        const td = el("td");
        td.appendChild(el("a", { href: "/game/" + g.id }, "watch"));
        tr.appendChild(td);
        tb.appendChild(tr);
      }
    } catch (e) { /* the list is refreshed again shortly */ }
  }

  async function init() {
    options = await (await fetch("/api/options")).json();
    for (let n = options.min_players; n <= options.max_players; n++) $("players").appendChild(el("option", { value: n }, String(n)));
    const all = $("all-models");
    for (const m of options.models) all.appendChild(el("option", { value: m }, m));
    all.addEventListener("change", () => { for (const s of $("seat-models").querySelectorAll("select")) s.value = all.value; });
    for (const r of options.roles) {
      const l = el("label", {}, " " + r);
      l.prepend(el("input", { type: "checkbox", id: "role-" + r }));
      $("role-options").appendChild(l);
    }
    $("players").addEventListener("change", renderSeats);
    $("person-seat").addEventListener("change", renderSeats);
    $("mode").addEventListener("change", () => {
      const participate = $("mode").value === "participate";
      $("seat-label").hidden = !participate;
      $("seed").disabled = participate;
      $("seed").title = participate ? "a person game's seed is drawn by the server" : "";
      renderSeats();
    });
    $("new-game").addEventListener("submit", start);
    renderSeats();
    refresh();
    setInterval(refresh, 3000);
  }
  init();
})();
