"use strict";
// The run viewer's page: metric curves, comparisons across runs and the
// recorded episodes with their token view. Everything the server sends is
// written with textContent or SVG attributes, never parsed as HTML.

const SVG = "http://www.w3.org/2000/svg";
const COLORS = ["#2563eb", "#dc2626", "#059669", "#d97706", "#7c3aed", "#0891b2", "#be185d", "#4d7c0f", "#9333ea", "#475569"];
const SECTIONS = [
  ["Reward and success", (n) => n.startsWith("reward/") || n.startsWith("episode/")],
  ["Validation", (n) => n.startsWith("val/")],
  ["KL and losses (actor/)", (n) => n.startsWith("actor/")],
  ["Self-attributing (prm/)", (n) => n.startsWith("prm/")],
  ["Self-navigating (exp/)", (n) => n.startsWith("exp/")],
  ["Timings (time/)", (n) => n.startsWith("time/")],
  ["Rollouts and batches", (n) => n.startsWith("rollout/") || n.startsWith("batch/") || n.startsWith("response/")],
  ["Other", () => true],
];

const state = { runs: [], run: "", tab: "curves", metrics: {}, selected: null, episodes: null, timer: 0 };

function $(id) { return document.getElementById(id); }

function el(tag, attrs, text) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

function svg(tag, attrs, text) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, String(v));
  if (text !== undefined) e.textContent = text;
  return e;
}

function setStatus(msg, error) {
  const s = $("status");
  s.textContent = msg;
  s.className = error ? "error" : "";
}

async function getJSON(url) {
  const resp = await fetch(url, { headers: { Accept: "application/json" } });
  const body = await resp.json().catch(() => ({ error: "bad answer from the server" }));
  if (!resp.ok) throw new Error(body.error || resp.statusText);
  return body;
}

function fmt(v) {
  if (v === null || v === undefined) return "–";
  const a = Math.abs(v);
  if (a !== 0 && (a >= 1e5 || a < 1e-3)) return v.toExponential(2);
  return String(Math.round(v * 1000) / 1000);
}

// lineChart draws series [{name, color, width, points: [[x, y]...]}].
function lineChart(title, series, w, h) {
  const box = el("div", { class: "chart" });
  const s = svg("svg", { width: w, height: h, viewBox: `0 0 ${w} ${h}`, role: "img" });
  s.dataset.metric = title;
  box.appendChild(s);
  s.appendChild(svg("text", { x: 6, y: 14, class: "title" }, title));
  const pts = series.flatMap((se) => se.points);
  if (pts.length === 0) {
    s.appendChild(svg("text", { x: 6, y: h / 2, class: "axis" }, "no finite values"));
    return box;
  }
  let [x0, x1] = [Math.min(...pts.map((p) => p[0])), Math.max(...pts.map((p) => p[0]))];
  let [y0, y1] = [Math.min(...pts.map((p) => p[1])), Math.max(...pts.map((p) => p[1]))];
  if (x0 === x1) { x0 -= 1; x1 += 1; }
  if (y0 === y1) { const d = Math.abs(y0) * 0.1 || 1; y0 -= d; y1 += d; }
  const L = 46, R = 8, T = 22, B = 18;
  const X = (x) => L + ((x - x0) / (x1 - x0)) * (w - L - R);
  const Y = (y) => h - B - ((y - y0) / (y1 - y0)) * (h - T - B);
  for (const gy of [y0, (y0 + y1) / 2, y1]) {
    s.appendChild(svg("line", { x1: L, x2: w - R, y1: Y(gy), y2: Y(gy), class: "grid-line" }));
    s.appendChild(svg("text", { x: L - 4, y: Y(gy) + 3, "text-anchor": "end", class: "axis" }, fmt(gy)));
  }
  s.appendChild(svg("text", { x: L, y: h - 4, class: "axis" }, "step " + fmt(x0)));
  s.appendChild(svg("text", { x: w - R, y: h - 4, "text-anchor": "end", class: "axis" }, fmt(x1)));
  for (const se of series) {
    if (se.points.length === 0) continue;
    const d = se.points.map((p, i) => (i ? "L" : "M") + X(p[0]).toFixed(1) + " " + Y(p[1]).toFixed(1)).join(" ");
    const path = svg("path", { d, fill: "none", stroke: se.color, "stroke-width": se.width || 1.5 });
    path.dataset.series = se.name;
    path.appendChild(svg("title", {}, se.name));
    s.appendChild(path);
    if (se.points.length <= 200) {
      for (const p of se.points) {
        const c = svg("circle", { cx: X(p[0]), cy: Y(p[1]), r: se.width > 2 ? 2.5 : 2, fill: se.color });
        c.appendChild(svg("title", {}, `${se.name}\nstep ${p[0]}: ${fmt(p[1])}`));
        s.appendChild(c);
      }
    }
  }
  return box;
}

function pointsOf(records, name) {
  const out = [];
  for (const r of records) {
    const v = r.values[name];
    if (typeof v === "number" && Number.isFinite(v)) out.push([r.step, v]);
  }
  return out;
}

async function loadMetrics(id) {
  const m = await getJSON("/api/metrics?run=" + encodeURIComponent(id));
  state.metrics[id] = m;
  return m;
}

// ---- Curves ----

async function showCurves() {
  const m = await loadMetrics(state.run);
  const charts = $("charts");
  charts.replaceChildren();
  $("curves-empty").hidden = m.records.length > 0;
  const left = new Set(m.names);
  for (const [title, pick] of SECTIONS) {
    const names = [...left].filter(pick);
    if (names.length === 0) continue;
    names.forEach((n) => left.delete(n));
    const sec = el("div", { class: "section" });
    sec.appendChild(el("h2", {}, title));
    const grid = el("div", { class: "grid" });
    for (const n of names) grid.appendChild(lineChart(n, [{ name: n, color: COLORS[0], points: pointsOf(m.records, n) }], 300, 150));
    sec.appendChild(grid);
    charts.appendChild(sec);
  }
  const skipped = m.skipped ? ` (${m.skipped} malformed lines skipped)` : "";
  setStatus(`${m.records.length} metric records${skipped}`);
}

// ---- Compare ----

function groupColor(groups, g) {
  return COLORS[groups.indexOf(g) % COLORS.length];
}

async function showCompare() {
  const runs = state.runs.filter((r) => r.metrics);
  const list = $("cmp-runs");
  const checked = new Set([...list.querySelectorAll("input:checked")].map((i) => i.value));
  const first = list.childElementCount === 0;
  await Promise.all(runs.map((r) => loadMetrics(r.id).catch(() => null)));
  const groups = [...new Set(runs.map((r) => r.group))];
  list.replaceChildren();
  for (const r of runs) {
    const lab = el("label");
    const box = el("input", { type: "checkbox", value: r.id });
    box.checked = first || checked.has(r.id);
    box.addEventListener("change", drawCompare);
    lab.appendChild(box);
    const sw = el("span", { class: "swatch" });
    sw.style.background = groupColor(groups, r.group);
    lab.appendChild(document.createTextNode(" "));
    lab.appendChild(sw);
    lab.appendChild(document.createTextNode(`${r.group === r.path ? r.label : r.group + " / " + r.label}`));
    list.appendChild(lab);
  }
  const names = new Set();
  for (const r of runs) for (const n of (state.metrics[r.id] || { names: [] }).names) names.add(n);
  const sel = $("cmp-metric");
  const cur = sel.value;
  sel.replaceChildren();
  for (const n of [...names].sort()) sel.appendChild(el("option", { value: n }, n));
  sel.value = names.has(cur) ? cur : names.has("val/success") ? "val/success" : [...names][0] || "";
  drawCompare();
}

function drawCompare() {
  const metric = $("cmp-metric").value;
  const runs = state.runs.filter((r) => r.metrics);
  const groups = [...new Set(runs.map((r) => r.group))];
  const chosen = new Set([...$("cmp-runs").querySelectorAll("input:checked")].map((i) => i.value));
  const series = [];
  const byGroup = new Map();
  for (const r of runs) {
    if (!chosen.has(r.id) || !state.metrics[r.id]) continue;
    const pts = pointsOf(state.metrics[r.id].records, metric);
    series.push({ name: r.group === r.path ? r.label : `${r.group} / ${r.label}`, color: groupColor(groups, r.group), width: 1, points: pts });
    if (!byGroup.has(r.group)) byGroup.set(r.group, []);
    byGroup.get(r.group).push(pts);
  }
  const legend = el("div", { class: "legend" });
  if ($("cmp-mean").checked) {
    for (const [g, all] of byGroup) {
      if (all.length < 2) continue;
      const sums = new Map();
      for (const pts of all) for (const [x, y] of pts) {
        const a = sums.get(x) || [0, 0];
        sums.set(x, [a[0] + y, a[1] + 1]);
      }
      const mean = [...sums.entries()].sort((a, b) => a[0] - b[0]).map(([x, [s, n]]) => [x, s / n]);
      series.push({ name: `${g} (mean of ${all.length})`, color: groupColor(groups, g), width: 3, points: mean });
    }
  }
  for (const g of byGroup.keys()) {
    const item = el("span");
    const sw = el("span", { class: "swatch" });
    sw.style.background = groupColor(groups, g);
    item.appendChild(sw);
    item.appendChild(document.createTextNode(g === "." ? "(run)" : g));
    legend.appendChild(item);
  }
  const chart = $("cmp-chart");
  chart.replaceChildren(lineChart(metric || "no metric", series, 760, 320), legend);
  setStatus(`${series.length} curves of ${metric}`);
}

// ---- Episodes ----

function episodeQuery() {
  const q = new URLSearchParams({ run: state.run, limit: "500" });
  for (const [k, id] of [["phase", "f-phase"], ["task", "f-task"], ["outcome", "f-outcome"], ["cause", "f-cause"], ["step", "f-step"]]) {
    const v = $(id).value.trim();
    if (v !== "") q.set(k, v);
  }
  return q;
}

function fillSelect(sel, values) {
  const cur = sel.value;
  const keep = sel.options[0];
  sel.replaceChildren(keep);
  for (const v of values) sel.appendChild(el("option", { value: v }, v));
  sel.value = values.includes(cur) ? cur : "";
}

async function showEpisodes() {
  const eps = await getJSON("/api/episodes?" + episodeQuery());
  state.episodes = eps;
  fillSelect($("f-phase"), eps.phases);
  fillSelect($("f-cause"), eps.causes);
  const dl = $("f-tasks");
  dl.replaceChildren(...eps.tasks.slice(0, 500).map((t) => el("option", { value: t })));
  const body = $("ep-list").tBodies[0];
  body.replaceChildren();
  for (const e of eps.items) {
    const tr = el("tr");
    tr.dataset.at = String(e.at);
    if (state.selected === e.at) tr.classList.add("selected");
    let outcome;
    if (e.cause) outcome = el("td", { class: "failed" }, "failed: " + e.cause);
    else outcome = el("td", { class: e.success ? "ok" : "bad" }, (e.success ? "✓ " : "✗ ") + fmt(e.outcome));
    tr.append(el("td", {}, String(e.step)), el("td", {}, e.phase), el("td", {}, e.task_id), el("td", {}, `${e.data_id}/${e.rollout_id}`),
      outcome, el("td", {}, String(e.turns)), el("td", {}, String(e.tokens)));
    tr.addEventListener("click", () => openEpisode(e.at));
    body.appendChild(tr);
  }
  const more = eps.matched > eps.items.length ? ` (first ${eps.items.length} shown)` : "";
  $("ep-count").textContent = `${eps.matched} of ${eps.total} episodes${more}`;
  setStatus(eps.skipped ? `${eps.skipped} malformed episode lines skipped` : "");
}

async function openEpisode(at) {
  state.selected = at;
  for (const tr of $("ep-list").tBodies[0].rows) tr.classList.toggle("selected", tr.dataset.at === String(at));
  const ep = await getJSON(`/api/episode?run=${encodeURIComponent(state.run)}&at=${at}`);
  const d = $("ep-detail");
  d.replaceChildren();
  const phase = ep.phase === "train" ? "Training" : ep.phase === "validation" ? "Validation" : ep.phase;
  const head = ep.cause ? `${phase} task ${ep.task_id} (failed: ${ep.cause})` : `${phase} task ${ep.task_id} (Final Reward ${fmt(ep.outcome)})`;
  d.appendChild(el("h3", {}, head));
  const meta = [`step ${ep.step}`, `rollout ${ep.data_id}/${ep.rollout_id}`];
  if (!ep.cause) meta.push(ep.success ? "success" : "no success", ep.terminated ? "ended by the environment" : "cut by a limit");
  if (ep.experience) meta.push("with experience");
  d.appendChild(el("div", { class: "meta" }, meta.join(" · ")));
  if (ep.error) d.appendChild(el("div", { class: "msg tool" }, ep.error));
  if (ep.reason) d.appendChild(el("div", { class: "meta" }, "grader: " + ep.reason));
  if (ep.query) d.appendChild(el("div", { class: "meta" }, "query: " + ep.query));
  if ((ep.messages || []).length) {
    d.appendChild(el("h3", {}, "Conversation"));
    for (const m of ep.messages) {
      const box = el("div", { class: "msg " + m.role });
      box.appendChild(el("span", { class: "role" }, m.role + (m.name ? ` (${m.name})` : "")));
      box.appendChild(document.createTextNode(m.content));
      for (const c of m.tool_calls || []) box.appendChild(document.createTextNode(`\n→ ${c.function.name}(${c.function.arguments})`));
      d.appendChild(box);
    }
  }
  (ep.samples || []).forEach((s, i) => {
    const trained = [...s.mask].filter((c) => c === "1").length;
    d.appendChild(el("h3", {}, `Tokens of sample ${i + 1}: ${s.ids.length} tokens, ${trained} trained`));
    const key = el("div", { class: "meta key" });
    key.append(el("span", { class: "t1" }, "■ trained (loss mask 1)"), document.createTextNode("  "), el("span", { class: "t0" }, "■ context (loss mask 0)"));
    d.appendChild(key);
    const info = el("div", { id: i === 0 ? "tok-info" : "" }, "hover a token for its id");
    if (i > 0) info.className = "meta";
    d.appendChild(info);
    const box = el("div", { class: "tokens" });
    s.ids.forEach((id, j) => {
      const m = s.mask[j] === "1";
      const t = el("span", { class: "tok " + (m ? "t1" : "t0"), title: `id ${id}${m ? " · trained" : ""}` }, s.text[j]);
      t.dataset.id = String(id);
      t.addEventListener("mouseenter", () => { info.textContent = `token ${j}: id ${id} ${JSON.stringify(s.text[j])} ${m ? "trained" : "context"}${j < s.prompt_len ? " (prompt)" : ""}`; });
      box.appendChild(t);
    });
    d.appendChild(box);
  });
}

// ---- Shell ----

async function refresh() {
  try {
    if (state.tab === "curves") await showCurves();
    else if (state.tab === "compare") await showCompare();
    else await showEpisodes();
    document.body.dataset.ready = "1";
  } catch (e) {
    setStatus(e.message, true);
  }
}

async function loadRuns() {
  state.runs = await getJSON("/api/runs");
  const sel = $("run");
  sel.replaceChildren();
  for (const r of state.runs) {
    const name = r.path === "." ? r.label : r.path;
    sel.appendChild(el("option", { value: r.id }, `${name} — ${r.root}`));
  }
  if (!state.runs.some((r) => r.id === state.run)) state.run = state.runs.length ? state.runs[0].id : "";
  sel.value = state.run;
}

function showTab(tab) {
  state.tab = tab;
  for (const b of document.querySelectorAll(".tab")) b.classList.toggle("active", b.dataset.tab === tab);
  for (const t of ["curves", "compare", "episodes"]) $("tab-" + t).hidden = t !== tab;
  refresh();
}

function schedule() {
  clearTimeout(state.timer);
  state.timer = setTimeout(async () => {
    if ($("live").checked && document.visibilityState === "visible") {
      try { await loadRuns(); } catch (e) { setStatus(e.message, true); }
      await refresh();
    }
    schedule();
  }, 5000);
}

async function start() {
  for (const b of document.querySelectorAll(".tab")) b.addEventListener("click", () => showTab(b.dataset.tab));
  $("run").addEventListener("change", () => { state.run = $("run").value; state.selected = null; $("ep-detail").replaceChildren(el("p", { class: "empty" }, "Choose an episode.")); refresh(); });
  $("cmp-metric").addEventListener("change", drawCompare);
  $("cmp-mean").addEventListener("change", drawCompare);
  for (const id of ["f-phase", "f-outcome", "f-cause"]) $(id).addEventListener("change", refresh);
  for (const id of ["f-task", "f-step"]) $(id).addEventListener("input", refresh);
  try {
    await loadRuns();
  } catch (e) {
    setStatus(e.message, true);
    return;
  }
  if (state.runs.length === 0) setStatus("no runs found under the directories given", true);
  const tab = new URLSearchParams(location.search).get("tab");
  showTab(["curves", "compare", "episodes"].includes(tab) ? tab : "curves");
  schedule();
}

start();
