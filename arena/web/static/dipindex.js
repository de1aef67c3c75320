"use strict";
// The landing page's Diplomacy part: the new-game form and the game list.
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

  function renderPowers() {
    const box = $("dip-models");
    const old = {};
    for (const s of box.querySelectorAll("select")) old[s.id] = s.value;
    box.textContent = "";
    const person = $("dip-mode").value === "participate" ? $("dip-power").value : "";
    for (const p of options.powers) {
      const l = el("label", {}, p + " ");
      if (p === person) {
        l.appendChild(el("b", {}, "you"));
      } else {
        const s = modelSelect("dip-model-" + p);
        s.value = old["dip-model-" + p] || $("dip-all-models").value;
        l.appendChild(s);
      }
      box.appendChild(l);
    }
  }

  async function startGame(ev) {
    ev.preventDefault();
    $("dip-error").textContent = "";
    try {
      const participate = $("dip-mode").value === "participate";
      const req = { models: options.powers.map((p) => { const s = $("dip-model-" + p); return s ? s.value : ""; }), delay_ms: +$("dip-delay").value || 0 };
      if (participate) req.person_power = $("dip-power").value;
      // A person game's seed is drawn by the server.
      if (!participate && $("dip-seed").value !== "") req.seed = +$("dip-seed").value;
      if ($("dip-phases").value !== "") req.max_phases = +$("dip-phases").value;
      if ($("dip-rounds").value !== "") req.negotiation_rounds = +$("dip-rounds").value;
      const resp = await fetch("/api/diplomacy/games", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(req) });
      const body = await resp.json();
      if (!resp.ok) { $("dip-error").textContent = body.error || resp.statusText; return; }
      location.href = body.url;
    } catch (e) { $("dip-error").textContent = String(e); }
  }

  async function refresh() {
    try {
      const games = await (await fetch("/api/diplomacy/games")).json();
      const tb = document.querySelector("#dip-games tbody");
      tb.textContent = "";
      for (const g of games) {
        const tr = el("tr");
        tr.appendChild(el("td", {}, g.id));
        tr.appendChild(el("td", {}, g.person_power ? "participate (" + g.person_power + ")" : "observe"));
        tr.appendChild(el("td", {}, g.powers.map((p, i) => p.slice(0, 3) + " " + g.models[i]).join(", ")));
        tr.appendChild(el("td", {}, g.phase));
        tr.appendChild(el("td", {}, g.status));
        tr.appendChild(el("td", {}, g.winner || ""));
        const td = el("td");
        td.appendChild(el("a", { href: "/diplomacy/" + g.id }, "watch"));
        if (g.log) { td.appendChild(document.createTextNode(" ")); td.appendChild(el("a", { href: "/api/diplomacy/games/" + g.id + "/log" }, "log")); }
        tr.appendChild(td);
        tb.appendChild(tr);
      }
    } catch (e) { /* refreshed again shortly */ }
  }

  async function init() {
    options = await (await fetch("/api/diplomacy/options")).json();
    const all = $("dip-all-models");
    for (const m of options.models) all.appendChild(el("option", { value: m }, m));
    if (options.models.includes("greedy")) all.value = "greedy";
    all.addEventListener("change", () => { for (const s of $("dip-models").querySelectorAll("select")) s.value = all.value; });
    for (const p of options.powers) $("dip-power").appendChild(el("option", { value: p }, p));
    $("dip-phases").placeholder = String(options.max_phases);
    $("dip-phases").max = String(options.max_max_phases);
    $("dip-rounds").placeholder = String(options.negotiation_rounds);
    $("dip-rounds").max = String(options.max_negotiation_rounds);
    $("dip-power").addEventListener("change", renderPowers);
    $("dip-mode").addEventListener("change", () => {
      const participate = $("dip-mode").value === "participate";
      $("dip-power-label").hidden = !participate;
      $("dip-seed").disabled = participate;
      renderPowers();
    });
    $("dip-form").addEventListener("submit", startGame);
    renderPowers();
    refresh();
    setInterval(refresh, 3000);
  }
  init();
})();
