"use strict";
// A game's page: follows the game's socket and draws the table; in
// participate mode it also shows the person's questions and sends answers.
(function () {
  const $ = (id) => document.getElementById(id);
  const gameID = decodeURIComponent(location.pathname.split("/").pop());
  const token = new URLSearchParams(location.search).get("token") || "";
  const st = {
    info: null, seat: -1, secrets: false, n: 0, roles: [], public: false,
    quest: 0, proposal: 0, leader: -1, known: null, announced: "", team: [], votes: null, results: [], question: null, ended: false,
  };
  let ws = null;

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }
  const name = (i) => "Player " + i;
  const list = (t) => "[" + (t || []).join(", ") + "]";
  const isEvil = (r) => ["Assassin", "Minion", "Morgana", "Mordred", "Oberon"].includes(r);

  function chat(text, cls, who) {
    const box = $("chat");
    const line = el("div", "line " + (cls || ""));
    if (who !== undefined) { line.appendChild(el("span", "who", who + ": ")); }
    line.appendChild(document.createTextNode(text));
    box.appendChild(line);
    box.scrollTop = box.scrollHeight;
  }

  function buildBoard() {
    const seats = $("seats");
    seats.textContent = "";
    for (let i = 0; i < st.n; i++) {
      const d = el("div", "seat");
      d.id = "seat-" + i;
      d.dataset.seat = i;
      d.appendChild(el("div", "name", name(i) + (i === st.seat ? " (you)" : "")));
      d.appendChild(el("div", "model", st.info.models[i]));
      d.appendChild(el("div", "role"));
      d.appendChild(el("div", "vote"));
      if (i === st.seat) d.classList.add("you");
      seats.appendChild(d);
    }
    const qs = $("quests");
    qs.textContent = "";
    for (let q = 0; q < 5; q++) {
      const d = el("div", "quest");
      d.id = "quest-" + q;
      d.appendChild(el("b", "", "Q" + (q + 1)));
      d.appendChild(el("span", "", st.info.team_sizes[q] + (st.info.fails_needed[q] > 1 ? " (2 fails)" : "")));
      qs.appendChild(d);
    }
    const head = document.querySelector("#votes thead");
    head.textContent = "";
    const tr = el("tr");
    for (const h of ["quest", "prop.", "leader", "team"]) tr.appendChild(el("th", "", h));
    for (let i = 0; i < st.n; i++) tr.appendChild(el("th", "", "P" + i));
    tr.appendChild(el("th", "", "result"));
    head.appendChild(tr);
  }

  function drawBoard() {
    for (let i = 0; i < st.n; i++) {
      const d = $("seat-" + i);
      if (!d) continue;
      d.classList.toggle("leader", i === st.leader);
      d.classList.toggle("team", st.team.includes(i));
      const r = d.querySelector(".role");
      const role = st.roles[i];
      const known = !role && st.known && st.known[i];
      r.textContent = role ? role : (known || "");
      r.className = "role" + (role ? (isEvil(role) ? " evil" : " good") : (known ? (known.startsWith("evil") ? " evil" : " good") : ""));
      if (role && !st.public && i !== st.seat) r.classList.add("secret");
      const v = d.querySelector(".vote");
      if (st.votes) { v.textContent = st.votes[i] ? "✓" : "✗"; v.className = "vote " + (st.votes[i] ? "yes" : "no"); }
      else { v.textContent = ""; v.className = "vote"; }
    }
    for (let q = 0; q < 5; q++) {
      const d = $("quest-" + q);
      if (!d) continue;
      if (q < st.results.length) d.dataset.result = st.results[q] ? "success" : "fail";
      d.classList.toggle("current", q === st.quest && !st.ended);
    }
    const p = $("proposals");
    p.textContent = "Proposal: ";
    for (let k = 0; k < 5; k++) { const s = el("span", k <= st.proposal && !st.ended ? "used" : ""); p.appendChild(s); }
  }

  function seen(k) { return name(k.seat) + (k.as === "evil" ? " (evil)" : " (Merlin or Morgana)"); }

  function onEvent(e) {
    switch (e.type) {
      case "game_start":
        if (e.leader !== undefined) st.leader = e.leader;
        chat("A new game begins with " + e.players + " players. " + name(e.leader) + " leads first.", "mod");
        if (e.roles) { st.roles = e.roles.slice(); chat("Deal: " + e.roles.map((r, i) => name(i) + " " + r).join(", "), "mod secret"); }
        break;
      case "role": {
        st.roles[e.seat] = e.role;
        const know = (e.knowledge || []).map(seen).join(", ") || "nothing";
        if (e.seat === st.seat) {
          st.known = {};
          for (const k of e.knowledge || []) st.known[k.seat] = k.as === "evil" ? "evil (you know)" : "Merlin or Morgana";
          $("you-box").hidden = false;
          $("you").textContent = "You are " + name(e.seat) + ", " + e.role + " (" + (isEvil(e.role) ? "Evil" : "Good") + "). You know: " + know + ".";
          $("you").dataset.role = e.role;
        } else {
          chat(name(e.seat) + " is " + e.role + "; knows: " + know, "mod secret");
        }
        break;
      }
      case "discussion":
        if (st.announced !== e.quest + ":" + e.proposal) {
          st.announced = e.quest + ":" + e.proposal;
          st.quest = e.quest; st.proposal = e.proposal; st.leader = e.seat; st.team = []; st.votes = null;
          chat("Quest " + (e.quest + 1) + ", proposal " + (e.proposal + 1) + ": " + name(e.seat) + " leads.", "mod");
        }
        chat(e.text, e.seat === st.seat ? "you" : "", name(e.seat));
        break;
      case "team_proposed":
        st.leader = e.seat; st.team = e.team.slice(); st.votes = null;
        chat(name(e.seat) + " proposes the team " + list(e.team) + ".", "mod");
        break;
      case "team_vote": {
        st.votes = e.votes.slice();
        const yes = e.votes.filter(Boolean).length;
        chat("Team " + list(e.team) + " " + (e.approved ? "approved" : "rejected") + (e.forced ? " (fifth proposal)" : "") + ": " + yes + " approve, " + (e.votes.length - yes) + " reject.", "mod");
        const tr = el("tr");
        tr.appendChild(el("td", "", String(e.quest + 1)));
        tr.appendChild(el("td", "", String(e.proposal + 1)));
        tr.appendChild(el("td", "", String(st.leader)));
        tr.appendChild(el("td", "", list(e.team)));
        for (const v of e.votes) tr.appendChild(el("td", v ? "yes" : "no", v ? "✓" : "✗"));
        tr.appendChild(el("td", e.approved ? "yes" : "no", e.approved ? "approved" : "rejected"));
        document.querySelector("#votes tbody").appendChild(tr);
        break;
      }
      case "quest":
        st.results.push(e.succeeded);
        chat("Quest " + (e.quest + 1) + " " + (e.succeeded ? "succeeded" : "failed") + " with " + e.fails + " fail" + (e.fails === 1 ? "" : "s") + " (team " + list(e.team) + ").", "mod");
        if (e.votes) chat("Quest cards: " + e.team.map((s, k) => name(s) + " " + (e.votes[k] ? "success" : "fail")).join(", "), "mod secret");
        st.quest = e.quest + 1; st.proposal = 0; st.team = []; st.votes = null;
        break;
      case "assassination":
        chat("The Assassin, " + name(e.seat) + ", names " + name(e.target) + (e.target_role ? " (" + e.target_role + ")" : "") + ".", "mod");
        break;
      case "parse_failure":
        chat(name(e.seat) + "'s " + e.action + " answer could not be read: " + e.error, "mod secret");
        break;
      case "fallback":
        chat(name(e.seat) + "'s " + e.action + " was decided by fallback: " + e.value, "mod secret");
        break;
      case "coerced":
        chat(name(e.seat) + " (Good) tried to fail the quest; it counts as " + e.value, "mod secret");
        break;
      case "game_end": {
        st.ended = true; st.public = true;
        if (e.roles) st.roles = e.roles.slice();
        const w = $("winner");
        w.hidden = false;
        w.className = e.good_wins ? "good" : "evil";
        w.textContent = (e.good_wins ? "Good wins" : "Evil wins") + ": " + e.reason + ".";
        w.dataset.goodWins = String(e.good_wins);
        chat("Game over. " + w.textContent + " Roles: " + (e.roles || []).map((r, i) => name(i) + " " + r).join(", "), "mod");
        break;
      }
    }
    drawBoard();
  }

  function send(m) {
    $("qerror").textContent = "";
    ws.send(JSON.stringify(m));
  }

  function button(id, text, onclick) {
    const b = el("button", "", text);
    b.id = id; b.type = "button";
    b.addEventListener("click", onclick);
    return b;
  }

  function showQuestion(q) {
    st.question = q;
    const box = $("question");
    box.hidden = false;
    box.dataset.qid = q.id;
    box.dataset.action = q.action;
    $("instruction").textContent = q.instruction;
    $("reask").textContent = q.reask || "";
    $("prompt").textContent = q.prompt.map((m) => "[" + m.role + "]\n" + m.content).join("\n\n");
    const c = $("controls");
    c.textContent = "";
    const answer = (extra) => send(Object.assign({ type: "answer", id: q.id }, extra));
    switch (q.action) {
      case "team": {
        const box2 = el("div"); box2.id = "team-choices"; box2.dataset.teamSize = q.team_size;
        const submit = button("submit-team", "Propose team", () => {
          const team = Array.from(box2.querySelectorAll("input:checked")).map((i) => +i.dataset.seat);
          answer({ team: team });
        });
        const update = () => { submit.disabled = box2.querySelectorAll("input:checked").length !== q.team_size; };
        for (let i = 0; i < q.players; i++) {
          const l = el("label", "", " " + name(i));
          const cb = el("input"); cb.type = "checkbox"; cb.dataset.seat = i;
          cb.addEventListener("change", update);
          l.prepend(cb); box2.appendChild(l);
        }
        c.appendChild(el("div", "", "Choose " + q.team_size + " players:"));
        c.appendChild(box2); c.appendChild(submit); update();
        break;
      }
      case "team_vote":
        c.appendChild(el("div", "", "Team " + list(q.team) + ":"));
        c.appendChild(button("approve", "Approve", () => answer({ vote: true })));
        c.appendChild(button("reject", "Reject", () => answer({ vote: false })));
        break;
      case "quest_vote":
        c.appendChild(button("success", "Play success", () => answer({ vote: true })));
        c.appendChild(button("fail", "Play fail", () => answer({ vote: false })));
        break;
      case "assassinate": {
        const box2 = el("div"); box2.id = "target-choices";
        for (let i = 0; i < q.players; i++) {
          if (i === q.seat) continue;
          const l = el("label", "", " " + name(i));
          const r = el("input"); r.type = "radio"; r.name = "target"; r.dataset.seat = i;
          l.prepend(r); box2.appendChild(l);
        }
        c.appendChild(box2);
        c.appendChild(button("submit-target", "Assassinate", () => {
          const r = box2.querySelector("input:checked");
          if (!r) { $("qerror").textContent = "Choose a player."; return; }
          answer({ target: +r.dataset.seat });
        }));
        break;
      }
      case "discuss": {
        const t = el("textarea"); t.id = "speech"; t.maxLength = 1000;
        t.placeholder = "What the others hear";
        c.appendChild(t);
        c.appendChild(button("submit-speech", "Speak", () => answer({ text: t.value })));
        break;
      }
    }
    box.scrollIntoView({ block: "nearest" });
  }

  function closeQuestion(id) {
    if (st.question && st.question.id === id) {
      st.question = null;
      const box = $("question");
      box.hidden = true;
      delete box.dataset.qid;
      delete box.dataset.action;
    }
  }

  function setStatus(info) {
    st.info = info;
    $("status").textContent = info.status + (info.error ? ": " + info.error : "");
    document.body.dataset.status = info.status;
    // Only the person may stop a person's game (the server asks for the token).
    $("stop").hidden = info.status !== "running" || (info.person_seat >= 0 && !token);
    if (info.status !== "running") closeQuestion(st.question ? st.question.id : -1);
  }

  function onMessage(ev) {
    let m;
    try { m = JSON.parse(ev.data); } catch (e) { return; }
    switch (m.type) {
      case "hello":
        st.seat = m.seat; st.secrets = !!m.secrets; st.n = m.game.players;
        $("game-id").textContent = m.game.id;
        $("mode").textContent = m.game.person_seat >= 0 ? (st.seat >= 0 ? "participate (you are " + name(st.seat) + ")" : "watching a person's game") : "observe";
        $("reveal-label").hidden = !st.secrets;
        setStatus(m.game);
        buildBoard(); drawBoard();
        break;
      case "event": onEvent(m.event); break;
      case "question": showQuestion(m.question); break;
      case "question_closed": closeQuestion(m.id); break;
      case "status": setStatus(m.game); break;
      case "error": $("qerror").textContent = m.message; break;
    }
  }

  function connect() {
    const url = (location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/ws/" + encodeURIComponent(gameID) + (token ? "?token=" + encodeURIComponent(token) : "");
    ws = new WebSocket(url);
    ws.addEventListener("message", onMessage);
    ws.addEventListener("close", () => { if (!st.ended) $("status").textContent += " (disconnected)"; });
  }

  $("reveal").addEventListener("change", () => document.body.classList.toggle("hide-secrets", !$("reveal").checked));
  $("stop").addEventListener("click", () => fetch("/api/games/" + encodeURIComponent(gameID) + "/stop" + (token ? "?token=" + encodeURIComponent(token) : ""), { method: "POST" }));
  connect();
})();
