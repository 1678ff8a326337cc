// The game table: one seat's view (or the public view for a spectator) over a WebSocket.
//
// The server is the only judge. This page never decides whether a move is legal: it builds
// the text of the move the selection means, enables its button when that text is in the
// state's `legal` list, and otherwise asks the server (`check`) why not and shows the reason.

import { api } from "./api.js";
import { playerKey, rememberSeat } from "./player.js";
import {
  countUnseen, letters, phaseText, playerPanel, rowsEl, scoresTable, stageText, trackerEl,
  scoreWhy,
} from "./board.js";
import {
  actionText, canonicalAction, colourName, h, handOrder, richText, tileEl, tilesCount, tilesIn, valueSum,
} from "./tiles.js";
import { addChat, chatAccess, chatRefused, refusesChat, setupChat } from "./chat.js";
import { _, lang, ngettext } from "./i18n.js";
import { setBaseTitle, setupTurnAlerts, turnAlert } from "./notify.js";
import { setServerClock, showTimer } from "./timer.js";
import { tutor } from "./tutorial.js";

const $ = (id) => document.getElementById(id);
const parts = location.pathname.split("/").filter(Boolean);
const mode = parts[0] === "play" ? "play" : "watch";
const tableId = decodeURIComponent(parts[1] || "");
const hashParams = new URLSearchParams(location.hash.slice(1));
const token = hashParams.get("token");
// "Take this seat" in the lobby adds join=1: opening the link takes the seat in one click
const joinOnOpen = hashParams.get("join") === "1";
// a tutorial table's link adds tutorial=1: lessons at their moments (tutorial.js)
const lessons = tutor(hashParams, tableId, sendMsg);

const S = {
  seat: null, // our seat number, null for a spectator
  table: null, // the Table of the lobby API
  st: null, // the last `state` message
  version: null,
  selected: new Set(), // positions in the shown hand
  target: null, // {row: "R", count: 2}: the row tail a SCORE aims at
  checks: new Map(), // canonical action text -> {legal, reason} for this version
  asked: new Set(), // actions whose check is on its way
  hint: null, // {action, reason}
  hintPending: false,
  switchAdvice: null, // the `switch` answer, while its version is the state's
  switchPending: false, // a `switch` is on its way (asked at version switchFor)
  switchFor: null,
  pending: false, // an action is on its way
  online: false, // welcomed on an open socket: moves can be sent
  logShown: 0,
  endShown: false,
  joinNameSet: false,
};

// ------------------------------------------------------------------ connection
let ws = null;
let attempt = 0;
let retryTimer = null;
let pingTimer = null;
let fatal = false;

function wsUrl() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  return `${scheme}://${location.host}/ws/tables/${encodeURIComponent(tableId)}`;
}

function setConn(kind, text) {
  const el = $("conn");
  el.className = `conn conn-${kind}`;
  el.textContent = text;
  $("reconnect").hidden = kind !== "retry" && kind !== "off";
  document.body.dataset.conn = kind;
}

function connect() {
  clearTimeout(retryTimer);
  if (fatal) return;
  setConn("connecting", attempt ? _("reconnecting (attempt {n})…", { n: attempt }) : _("connecting…"));
  const sock = new WebSocket(wsUrl());
  ws = sock;
  sock.onopen = () => {
    sock.send(JSON.stringify(token && mode === "play" ? { type: "hello", token, lang } : { type: "hello", lang }));
  };
  sock.onmessage = (ev) => {
    if (sock !== ws) return;
    let msg;
    try {
      msg = JSON.parse(ev.data);
    } catch {
      showError(_("The server sent a message this page cannot read."));
      return;
    }
    onMessage(msg);
  };
  sock.onclose = (ev) => {
    if (sock !== ws) return;
    ws = null;
    S.online = false;
    clearInterval(pingTimer);
    S.pending = false;
    S.hintPending = false;
    S.switchPending = false;
    S.asked.clear();
    if (ev.code === 4403 || ev.code === 4404 || ev.code === 4400) {
      fatal = true;
      setConn("off", _("disconnected"));
      showError(ev.code === 4404
        ? _("There is no table \"{id}\". Check the link, or create a table in the lobby.", { id: tableId })
        : ev.code === 4400 ? _("The server refused the connection ({why}).", { why: ev.reason || "malformed hello" })
        : _("This seat link is not valid: its token is wrong or missing. Ask for the link again, or watch as a spectator."),
        null, ev.code === 4403 ? { href: `/watch/${encodeURIComponent(tableId)}`, text: _("Watch instead") } : null);
      renderAll();
      return;
    }
    attempt += 1;
    const delay = Math.min(8000, 500 * 2 ** Math.min(attempt - 1, 4));
    setConn("retry", _("connection lost · reconnecting in {n} s", { n: Math.max(1, Math.round(delay / 1000)) }));
    retryTimer = setTimeout(connect, delay);
    renderAll();
  };
}

/** Drop the socket (if any) and connect again at once. */
function reopen() {
  fatal = false;
  attempt = 0;
  const old = ws;
  ws = null;
  if (old) old.close();
  connect();
}

function sendMsg(msg) {
  if (!ws || ws.readyState !== WebSocket.OPEN) {
    showError(_("Not connected right now: wait for the reconnection (see the status at the top)."),
      null, null, "offline");
    return false;
  }
  ws.send(JSON.stringify(msg));
  return true;
}

// -------------------------------------------------------------------- messages
function onMessage(msg) {
  switch (msg.type) {
    case "welcome":
      attempt = 0;
      S.seat = msg.seat ?? null;
      S.table = msg.table ?? S.table;
      setConn("on", _("connected"));
      setServerClock(msg.now);
      chatAccess(S.seat, S.table ? S.table.status : "lobby");
      $("chat").hidden = false;
      S.online = true;
      for (const old of $("errors").querySelectorAll(".error[data-kind=offline]")) old.remove();
      clearInterval(pingTimer);
      pingTimer = setInterval(() => sendMsg({ type: "ping" }), 20000);
      renderAll();
      break;
    case "state": {
      const keep = msg.version !== S.version ? keptChoice() : undefined;
      if (msg.version !== S.version) {
        S.selected.clear();
        S.target = null;
        S.checks.clear();
        S.asked.clear();
        S.hint = null;
        S.hintPending = false;
        S.switchAdvice = null;
      }
      S.version = msg.version;
      S.st = msg;
      S.pending = false;
      if (keep) restoreChoice(keep);
      if (msg.table) S.table = msg.table;
      else if (S.table && msg.status && S.table.status !== msg.status) S.table.status = msg.status;
      renderAll();
      if (keep !== undefined && myTurn()) showHand(); // a new turn of ours: the hand in view
      chatAccess(S.seat, msg.status);
      break;
    }
    case "chat":
      addChat(msg.messages);
      break;
    case "check":
      S.checks.set(canonicalAction(msg.action), { legal: msg.legal, reason: msg.reason });
      S.asked.delete(canonicalAction(msg.action));
      renderActions();
      break;
    case "hint":
      S.hint = { action: msg.action, reason: msg.reason };
      S.hintPending = false;
      renderActions();
      break;
    case "switch": // weighed for the version it was asked at: shown only while it is current
      S.switchPending = false;
      S.switchAdvice = S.switchFor === S.version ? msg : null;
      renderActions();
      break;
    case "error":
      S.pending = false;
      S.hintPending = false;
      S.switchPending = false;
      showError(msg.message || _("The server refused that."), msg.code);
      if (refusesChat(msg.code)) chatRefused(); // not on a refused move: the chat goes on
      if (msg.code === "bad_token") fatal = true;
      renderActions();
      break;
    case "pong":
      break;
    default:
      break;
  }
  lessons(msg);
}

// ---------------------------------------------------------------------- errors
function showError(text, code = null, link = null, kind = "") {
  const box = $("errors");
  const item = h("div", { class: "error", dataset: { code: code || "", kind } },
    h("span", { class: "error-text" }, code ? h("b", { text: `${code}: ` }) : null, text),
    link ? h("a", { class: "button", href: link.href, text: link.text }) : null,
    h("button", { type: "button", class: "dismiss", "aria-label": "Dismiss this message",
      onclick: () => item.remove() }, "×"));
  box.replaceChildren(item);
}

function clearErrors() {
  $("errors").replaceChildren();
}

// ----------------------------------------------------------------------- state
function view() {
  return S.st && S.st.view;
}

function names() {
  return (S.st && S.st.names) || (S.table ? S.table.seats.map((s) => s.name) : []);
}

function myTurn() {
  const st = S.st;
  return Boolean(st && st.view && st.status === "playing" && S.seat !== null && S.online
    && st.view.stage !== "over" && st.view.to_move === S.seat && st.legal.length > 0);
}

function shownHand() {
  const v = view();
  return v && v.hand ? handOrder(v.hand) : [];
}

function selectedCodes() {
  const hand = shownHand();
  return [...S.selected].sort((a, b) => a - b).map((i) => hand[i]).filter(Boolean);
}

/** The selection (tile codes) and score aim to carry into the next state: only while
 * another seat was moving (after our own move the choice is spent). */
function keptChoice() {
  const v = view();
  if (!v || S.seat === null || v.to_move === S.seat || v.stage === "over") return null;
  if (!S.selected.size && !S.target) return null;
  return { codes: selectedCodes(), target: S.target };
}

/** Select again the kept tiles still in the hand, and the aim if its row still reaches. */
function restoreChoice(keep) {
  const v = view();
  if (!v || !v.hand) return;
  const hand = shownHand();
  for (const code of keep.codes) {
    const i = hand.findIndex((c, k) => c === code && !S.selected.has(k));
    if (i >= 0) S.selected.add(i);
  }
  const row = keep.target && v.players[S.seat].rows[keep.target.row];
  if (row && row.length >= keep.target.count) S.target = keep.target;
}

/** Keep keyboard focus on "the same" control across a re-render; when that control is
 * gone or off (a move button after the move), the hand takes the focus, so the keys and
 * Tab go on from there instead of from the top of the page. */
function keepFocus(fn) {
  const active = document.activeElement;
  const key = active && active.dataset ? active.dataset.fkey : undefined;
  const inMine = Boolean(active && active !== document.body && $("mine").contains(active));
  fn();
  if (key) {
    const el = document.querySelector(`[data-fkey="${CSS.escape(key)}"]`);
    if (el && !el.disabled) el.focus();
  }
  refocus(inMine);
}

/** Give the hand the focus if it was in this seat's panel and got lost. */
function refocus(wasInMine) {
  const now = document.activeElement;
  const lost = !now || now === document.body || !now.isConnected || now.disabled
    || now.closest("[hidden]");
  if (wasInMine && lost && !$("mine").hidden) $("hand").focus({ preventScroll: true });
}

// ---------------------------------------------------------------------- render
function renderRole() {
  const role = $("role");
  if (S.seat === null) {
    role.textContent = _("spectator");
    role.className = "badge spectator";
  } else {
    role.textContent = _("seat {n}", { n: S.seat + 1 }) + (names()[S.seat] ? ` · ${names()[S.seat]}` : "");
    role.className = "badge seat";
  }
}

/** On the turn's arrival: scroll the hand and the moves into view when the hand is off
 * screen (a phone with two opponents above it). */
function showHand() {
  const hand = $("hand");
  if ($("game").hidden || $("mine").hidden) return;
  const box = hand.getBoundingClientRect();
  if (box.top >= 0 && box.bottom <= window.innerHeight) return;
  $("hand-title").scrollIntoView({ block: "start" });
}

function renderAll() {
  const st = S.st;
  document.body.dataset.status = st ? st.status : "connecting";
  document.body.dataset.version = S.version ?? "";
  renderRole();
  const inLobby = !st || st.status === "lobby" || !st.view;
  $("lobby").hidden = !inLobby || !S.table;
  $("game").hidden = inLobby;
  if (inLobby) {
    renderLobby();
    renderFlags();
    return;
  }
  keepFocus(() => {
    renderBoard();
    renderMine();
    renderActions();
  });
  renderSide();
  renderEnd();
  showTimer($("timer"), st.status === "playing" ? st.timer : null, S.seat, names());
}

let turnShown = false;

function renderFlags() {
  const turn = myTurn();
  if (turn && !turnShown) showHand();
  turnShown = turn;
  turnAlert(turn, S.st && S.st.view && S.st.view.stage === "mulligan"
    ? _("Your mulligan at table {id}: keep your hand or set tiles aside.", { id: tableId })
    : _("Your turn at table {id}.", { id: tableId }));
  document.body.dataset.myTurn = turn ? "1" : "0";
  document.body.dataset.pending = S.pending ? "1" : "0";
}

function renderLobby() {
  const t = S.table;
  if (!t) return;
  $("lobby-seats").replaceChildren(...t.seats.map((s) => h("li", { class: s.joined ? "joined" : "" },
    h("b", { text: _("Seat {n}: ", { n: s.seat + 1 }) }),
    s.kind === "bot" ? _("{name} · bot ({level})", { name: s.name, level: s.level }) : s.name,
    s.kind === "human" ? h("span", { class: `badge ${s.joined ? "ok" : "wait"}`,
      text: s.joined ? _("joined") : _("not joined yet") }) : null,
    s.seat === S.seat ? h("span", { class: "badge seat", text: _("you") }) : null)));
  const mine = S.seat !== null;
  $("lobby-mine").hidden = !mine;
  $("lobby-spectator").hidden = mine;
  if (mine) {
    const seat = t.seats[S.seat];
    if (!S.joinNameSet && seat) {
      $("join-name").value = seat.name;
      S.joinNameSet = true;
    }
    $("join").textContent = seat && seat.joined ? _("Change name") : _("Join");
    // starting joins this seat; every other person must have joined first
    const missing = t.seats.filter((s) => s.kind === "human" && !s.joined && s.seat !== S.seat)
      .map((s) => s.name);
    $("start").disabled = missing.length > 0;
    $("start-why").textContent = missing.length
      ? _("Start waits for {names} to join: send them their seat links.", { names: missing.join(_(" and ")) })
      : seat && seat.joined ? _("Everyone is here: start when you are ready.") : _("Start the game to take your seat and begin.");
  }
}

function renderBoard() {
  const v = view();
  const n = names();
  $("info").replaceChildren(h("b", { text: stageText(v, n) }), " · " + _("turn {n}", { n: v.turns }));
  const order = [];
  for (let k = 0; k < v.players.length; k++) {
    const seat = S.seat === null ? k : (S.seat + 1 + k) % v.players.length;
    if (seat !== S.seat) order.push(seat);
  }
  $("others").replaceChildren(...order.map((seat) => playerPanel(v, seat, n)));
  $("others").setAttribute("aria-label", S.seat === null ? _("Players") : _("Other players"));
}

function renderMine() {
  const v = view();
  const mine = $("mine");
  mine.hidden = S.seat === null;
  if (S.seat === null) return;
  const me = v.players[S.seat];
  const moving = v.stage !== "over" && v.to_move === S.seat;
  const myName = names()[S.seat];  // "You (you)" says it twice (the tutorial's seat)
  $("mine-title").textContent = myName && myName !== _("You") ? _("{name} (you)", { name: myName }) : _("You");
  $("my-badges").replaceChildren(...[
    moving && S.online ? h("span", { class: "badge moving-badge", text: _("▶ your turn") }) : null,
    moving && !S.online ? h("span", { class: "badge wait", text: _("your turn · not connected") }) : null,
    h("span", { class: `badge phase phase${me.phase}`, text: phaseText(me.phase) }),
    h("span", { class: "badge", id: "my-score", title: scoreWhy(), text: _("score now {score}", { score: me.score }) }),
  ].filter(Boolean));
  mine.classList.toggle("moving", moving);
  const scoring = me.phase === 2 && v.stage === "play";
  $("rows-help").textContent = scoring
    ? _("To score, tap a tile of one of your rows: it and every tile after it (the lowest) go to your pile.")
    : me.score < 0 && v.stage !== "over"
      ? _("Score now {score}: your rows count against you until scored (score = pile − rows).", { score: me.score })
      : "";
  $("my-rows").replaceChildren(rowsEl(v, S.seat, {
    showEmpty: true,
    sums: true,
    target: S.target,
    onTile: scoring ? aimAt : null,
  }));
  const pile = me.pile.length
    ? h("p", { class: "muted" }, _("Your pile: {tiles} = {sum}", { tiles: tilesCount(me.pile.length), sum: valueSum(me.pile) })) : null;
  if (pile) $("my-rows").append(pile);
  const hand = shownHand();
  $("hand").replaceChildren(...hand.map((code, i) => tileEl(code, {
    selected: S.selected.has(i),
    onClick: () => toggle(i),
    fkey: `hand-${i}`,
  })));
  if (!hand.length) $("hand").append(h("p", { class: "muted", text: _("no tiles in your hand") }));
}

function toggle(i) {
  if (S.selected.has(i)) S.selected.delete(i);
  else S.selected.add(i);
  keepFocus(() => {
    renderMine();
    renderActions();
  });
}

function aimAt(letter, index) {
  const row = view().players[S.seat].rows[letter];
  const count = row.length - index;
  if (S.target && S.target.row === letter && S.target.count === count) S.target = null;
  else S.target = { row: letter, count };
  keepFocus(() => {
    renderMine();
    renderActions();
  });
}

/** The moves the selection could mean, each {text|null, label, tiles, reason?, kind}. */
function candidates() {
  const v = view();
  const me = v.players[S.seat];
  const sel = selectedCodes();
  const legal = S.st.legal.map(canonicalAction);
  const list = [];
  if (v.stage === "mulligan") {
    list.push({ kind: "keep", text: "mulligan", label: _("Keep my whole hand") });
    list.push(sel.length
      ? { kind: "mulligan", text: actionText("mulligan", sel), label: _("Set aside and draw {n}:", { n: sel.length }), tiles: sel }
      : { kind: "mulligan", text: null, label: _("Set aside tiles"), reason: _("select the tiles to set aside, or keep your hand") });
  } else if (me.phase === 1) {
    list.push(sel.length
      ? { kind: "place", text: actionText("place", sel), label: _("Place"), tiles: sel }
      : { kind: "place", text: null, label: _("Place"), reason: _("select tiles of one colour to place them in a row") });
    list.push(exchangeCandidate(sel));
  } else {
    const t = S.target;
    if (!t) {
      list.push({ kind: "score", text: null, label: _("Score"), reason: _("tap a tile of one of your rows to aim a score at it") });
    } else {
      const row = me.rows[t.row];
      const tail = row.slice(row.length - t.count);
      const base = `score ${t.row} x${t.count} pay`;
      const aim = _("Score the last {n} of your {colour} row ({sum})", { n: t.count, colour: colourName(t.row), sum: valueSum(tail) });
      list.push(sel.length
        ? { kind: "score", text: canonicalAction(`${base} ${sel.join(" ")}`), label: _("{aim}, paying", { aim }), tiles: sel }
        : { kind: "score", text: null, label: aim,
          reason: _("select hand tiles to pay at least {sum}, or take a payment below", { sum: valueSum(tail) }) });
      const mineText = sel.length ? canonicalAction(`${base} ${sel.join(" ")}`) : null;
      const pays = legal.filter((a) => a.startsWith(`${base} `) && a !== mineText)
        .map((a) => ({ a, pay: tilesIn(a) }))
        .sort((x, y) => valueSum(x.pay) - valueSum(y.pay) || x.pay.length - y.pay.length)
        .slice(0, 4);
      for (const p of pays) {
        list.push({ kind: "pay", text: p.a, label: _("{aim}, paying {sum}:", { aim, sum: valueSum(p.pay) }), tiles: p.pay });
      }
      if (!pays.length && !sel.length) {
        list[list.length - 1].reason = _("no payment in one colour reaches {sum}: aim at fewer tiles or exchange", { sum: valueSum(tail) });
      }
    }
    list.push(exchangeCandidate(sel));
  }
  if (legal.includes("pass")) list.push({ kind: "pass", text: "pass", label: _("Pass (you have no other move)") });
  return list;
}

function exchangeCandidate(sel) {
  return sel.length
    ? { kind: "exchange", text: actionText("exchange", sel), label: _("Exchange"), tiles: sel }
    : { kind: "exchange", text: null, label: _("Exchange"), reason: _("select 1 or more tiles to exchange") };
}

function renderActions() {
  renderFlags();
  const v = view();
  if (!v || S.seat === null) return;
  const over = v.stage === "over" || S.st.status === "finished";
  const turn = myTurn();
  const n = names();
  $("actions").hidden = over;
  if (over) return;
  $("turn-note").replaceChildren(turn
    ? h("b", { text: v.stage === "mulligan" ? _("Your mulligan: keep your hand or set tiles aside.") : _("Your turn.") })
    : waitingText(v, n));
  if (S.pending) $("turn-note").append(" " + _("Sending…"));
  const legal = new Set(S.st.legal.map(canonicalAction));
  const moves = candidates();
  const box = $("moves");
  keepFocus(() => {
    box.replaceChildren(...moves.map((m, i) => moveEl(m, i, legal, turn)));
  });
  const sel = selectedCodes();
  $("feedback").replaceChildren(sel.length
    ? h("span", {}, _("Selected {n}: ", { n: sel.length }), richText(sel.join(" ")), _(" (sum {sum})", { sum: valueSum(sel) }))
    : h("span", { class: "muted", text: turn ? "Tap tiles in your hand to select them." : "" }));
  $("declare").hidden = !legal.has("declare");
  $("declare").disabled = !turn || S.pending;
  $("undo").hidden = !S.st.can_undo;
  $("undo").disabled = S.pending || !S.online;
  $("hint").disabled = !turn || S.hintPending;
  $("hint").textContent = S.hintPending ? _("Thinking…") : _("Hint");
  $("clear").disabled = !S.selected.size && !S.target;
  renderHint(turn);
  renderSwitch(turn && v.stage === "play" && v.players[S.seat].phase === 1);
  askChecks(moves, legal, turn);
}

/** Whom the table waits on: a bot "is thinking", a person is waited for. */
function waitingText(v, n) {
  if (!S.online && v.to_move === S.seat) return _("Not connected: your move waits for the reconnection.");
  const name = n[v.to_move] ?? _("the next player");
  const seat = S.table && S.table.seats ? S.table.seats[v.to_move] : null;
  return seat && seat.kind === "bot" ? _("{name} (bot) is thinking…", { name }) : _("{name}'s turn: waiting for their move…", { name });
}

/** Why a move cannot be sent now, when it is not this seat's turn (neutral words). */
function whoseTurn() {
  const v = view();
  if (!S.online) return _("not connected");
  if (v.stage === "over") return _("the game is over");
  return _("{name}'s turn", { name: names()[v.to_move] ?? _("another player") });
}

/** The "When to switch?" button (phase-1 turns only) and the advisor's answer under the
 * actions, as plain text. While it is weighed the button says so but keeps its focus. */
function renderSwitch(weigh) {
  const btn = $("switch");
  btn.hidden = !weigh;
  btn.setAttribute("aria-busy", S.switchPending ? "true" : "false");
  btn.textContent = S.switchPending ? _("Weighing…") : _("When to switch?");
  const box = $("switch-box");
  const advice = weigh ? S.switchAdvice : null;
  box.hidden = !advice;
  box.textContent = advice ? _("When to switch: {advice}", { advice: advice.text }) : "";
  if (advice) box.dataset.better = advice.better;
  else delete box.dataset.better;
}

function moveEl(m, i, legal, turn) {
  const canonical = m.text ? canonicalAction(m.text) : null;
  const answer = canonical ? S.checks.get(canonical) : undefined;
  const ok = Boolean(canonical && (legal.has(canonical) || (turn && answer && answer.legal)));
  // guidance (nothing selected yet, someone else's turn, a check on its way) is neutral;
  // only the server's reason why the selected move is not legal is shown as an error
  let reason = m.reason || null;
  let refused = false;
  if (!turn) reason = whoseTurn();
  else if (canonical && !ok) {
    refused = Boolean(answer);
    reason = answer ? (answer.reason || _("not allowed now")) : _("checking…");
  }
  const why = `why-${i}`;
  const btn = h("button", {
    type: "button",
    class: `move-btn${ok ? " ok" : ""}${m.kind === "pay" ? " pay" : ""}`,
    disabled: !ok || !turn || S.pending,
    "aria-describedby": reason ? why : null,
    dataset: { action: canonical || "", kind: m.kind, fkey: `move-${m.kind}-${canonical || i}` },
    onclick: () => play(canonical),
  }, m.label, m.tiles ? " " : "", m.tiles ? richText(m.tiles.join(" ")) : "");
  return h("div", { class: `move${ok ? " legal" : " illegal"}` }, btn,
    reason ? h("span", { id: why, class: `why${refused ? " refused" : " guide"}`, text: `${refused ? "✗ " : ""}${reason}` })
      : h("span", { class: "why ok-why", text: "✓ legal" }));
}

function askChecks(moves, legal, turn) {
  if (!turn) return;
  for (const m of moves) {
    if (!m.text) continue;
    const c = canonicalAction(m.text);
    if (legal.has(c) || S.checks.has(c) || S.asked.has(c)) continue;
    if (sendMsg({ type: "check", action: c })) S.asked.add(c);
  }
}

function renderHint(turn) {
  const box = $("hint-box");
  if (!S.hint || !turn) {
    box.hidden = true;
    box.replaceChildren();
    delete box.dataset.action;
    return;
  }
  box.hidden = false;
  box.dataset.action = canonicalAction(S.hint.action);
  box.replaceChildren(
    h("p", {}, h("b", { text: _("Suggestion: ") }), richText(S.hint.action),
      S.hint.reason ? h("span", { class: "muted" }, ` — ${S.hint.reason}`) : null),
    h("div", { class: "inline" },
      h("button", { type: "button", id: "hint-select", dataset: { fkey: "hint-select" }, onclick: selectHint },
        _("Select it")),
      h("button", { type: "button", id: "hint-play", class: "primary", dataset: { fkey: "hint-play" },
        disabled: S.pending, onclick: () => play(canonicalAction(S.hint.action)) }, _("Play it"))));
}

/** Select the hinted move's tiles (and aim at its row tail for a score). */
function selectHint() {
  if (!S.hint) return;
  const words = S.hint.action.trim().split(/\s+/);
  const hand = shownHand();
  S.selected.clear();
  for (const code of tilesIn(S.hint.action)) {
    const i = hand.findIndex((c, k) => c === code && !S.selected.has(k));
    if (i >= 0) S.selected.add(i);
  }
  if (words[0] === "score") S.target = { row: words[1], count: Number(words[2].slice(1)) };
  keepFocus(() => {
    renderMine();
    renderActions();
  });
}

async function play(text) {
  if (!text || S.pending) return;
  if (text === "declare") {
    const ok = await confirmBox(_("Declare phase 2?"),
      _("There is no return: from now on you can only score and exchange, never place again. You then take a phase-2 action in this same turn."),
      _("Declare"));
    if (!ok) return;
  }
  clearErrors();
  if (sendMsg({ type: "action", action: text, version: S.version })) {
    S.pending = true;
    renderActions();
  }
}

function renderSide() {
  const v = view();
  $("bag").textContent = String(v.bag_count);
  $("bag-word").textContent = ngettext("tile", "tiles", v.bag_count);
  $("turns").textContent = `· ${_("turn {n}", { n: v.turns })}${v.ending ? ` · ${_("last round")}` : ""}`;
  $("scores").replaceChildren(scoresTable(v, names(), S.seat));
  const lines = S.st.log || [];
  const log = $("log");
  if (lines.length < S.logShown) {
    log.replaceChildren();
    S.logShown = 0;
  }
  for (const line of lines.slice(S.logShown)) log.append(h("li", {}, richText(line)));
  S.logShown = lines.length;
  log.scrollTop = log.scrollHeight;
  const unseen = S.st.unseen && typeof S.st.unseen === "object" ? S.st.unseen : countUnseen(v);
  $("tracker").replaceChildren(trackerEl(v, unseen));
  $("leave").hidden = S.seat === null || S.st.status !== "playing";
}

function renderEnd() {
  const st = S.st;
  const end = $("end");
  const over = st.status === "finished" || st.view.stage === "over";
  end.hidden = !over;
  if (!over) return;
  const result = st.result;
  const n = names();
  if (result) {
    const winners = result.ranks.map((r, i) => (r === 1 ? n[i] : null)).filter(Boolean);
    let text = winners.length === 1 ? _("{name} wins!", { name: winners[0] })
      : _("{names} share first place!", { names: winners.join(_(" and ")) });
    if (S.seat !== null && result.ranks[S.seat] === 1) {
      text = winners.length === 1 ? _("You win!") : _("You share first place ({names}).", { names: winners.join(", ") });
    }
    $("end-winner").textContent = text;
    $("end-lines").replaceChildren(...result.lines.map((line) => h("li", { text: line })));
  } else {
    $("end-winner").textContent = _("The game is over.");
  }
  $("end-record").href = `/api/tables/${encodeURIComponent(tableId)}/record`;
  $("end-record").setAttribute("download", `noreturn-${tableId}.json`);
  $("end-replay").href = `/replay/${encodeURIComponent(tableId)}`;
  renderRematch();
  if (!S.endShown) {
    S.endShown = true;
    end.focus();
    end.scrollIntoView({ block: "start" });
  }
}

// -------------------------------------------------------------------- rematch
// After a game a seated person may ask for a rematch: a new table, the same seats, which
// this seat's token holds too. The finished table then points to it (`table.rematch`),
// and every page of it, a spectator's too, offers the way there.
function seated() {
  return S.seat !== null && mode === "play" && Boolean(token);
}

function renderRematch() {
  const next = (S.st && S.st.table && S.st.table.rematch) || (S.table && S.table.rematch);
  const go = $("rematch-go");
  const ask = $("rematch");
  go.hidden = !next;
  ask.hidden = Boolean(next) || !seated() || S.st.status !== "finished";
  ask.textContent = _("Rematch");
  if (!next) return;
  go.textContent = seated() ? _("Play the rematch") : _("Watch the rematch");
  go.href = seated()
    ? `/play/${encodeURIComponent(next)}#token=${encodeURIComponent(token)}&join=1`
    : `/watch/${encodeURIComponent(next)}`;
}

async function askRematch() {
  const ask = $("rematch");
  ask.disabled = true;
  try {
    const made = await api("POST", `/api/tables/${encodeURIComponent(tableId)}/rematch`, { token });
    location.href = `/play/${encodeURIComponent(made.id)}#token=${encodeURIComponent(token)}&join=1`;
  } catch (exc) {
    showError(_("No rematch: {reason}", { reason: exc.message }));
  } finally {
    ask.disabled = false;
  }
}

// --------------------------------------------------------------------- dialogs
function confirmBox(title, text, okLabel) {
  const dlg = $("confirm");
  $("confirm-title").textContent = title;
  $("confirm-text").textContent = text;
  $("confirm-ok").textContent = okLabel;
  return new Promise((resolve) => {
    dlg.addEventListener("close", () => resolve(dlg.returnValue === "ok"), { once: true });
    dlg.returnValue = "cancel";
    dlg.showModal();
    $("confirm-cancel").focus();
  });
}

// ------------------------------------------------------------------ lobby calls
async function lobbyCall(what, body) {
  const key = what === "join" || what === "start" ? playerKey() : null;
  if (key) body = { ...body, player_key: key }; // this seat counts for the person (player.js)
  try {
    S.table = await api("POST", `/api/tables/${encodeURIComponent(tableId)}/${what}`, body);
    clearErrors();
    renderLobby();
    return true;
  } catch (exc) {
    showError(exc.message);
    return false;
  }
}

let lobbyTimer = null;
async function pollLobby() {
  if (S.st && S.st.status !== "lobby") {
    clearInterval(lobbyTimer); // the game is on: states come over the socket
    return;
  }
  try {
    const t = await api("GET", `/api/tables/${encodeURIComponent(tableId)}`);
    S.table = t;
    renderLobby();
    if (t.status !== "lobby" && (!S.st || S.st.status === "lobby") && ws) reopen();
  } catch {
    /* the socket's status line tells about connection trouble */
  }
}

// ------------------------------------------------------------------------ keys
/** The terminal game's keys (the page's "Keys" help and the README list them). */
const MOVE_KEYS = { p: ["place"], e: ["exchange"], s: ["score", "pay"] };

function clickIf(el) {
  if (!el || el.disabled || el.hidden) return false;
  el.click();
  return true;
}

/** The first move button of these kinds that can be sent now. */
function moveButton(kinds) {
  return [...$("moves").querySelectorAll("button.move-btn")]
    .find((b) => kinds.includes(b.dataset.kind) && !b.disabled) || null;
}

/** r: aim a score at the next row with tiles (its last tile); + / −: one tile more or
 * fewer of that row. Phase 2 only, as the terminal game's keys. */
function aimKey(key) {
  const v = view();
  const me = v.players[S.seat];
  if (v.stage !== "play" || me.phase !== 2) return false;
  const rows = letters(v).filter((l) => (me.rows[l] || []).length);
  if (!rows.length) return false;
  const t = S.target && rows.includes(S.target.row) ? S.target : null;
  if (key === "r") {
    S.target = { row: t ? rows[(rows.indexOf(t.row) + 1) % rows.length] : rows[0], count: 1 };
  } else if (t) {
    const length = me.rows[t.row].length;
    S.target = { row: t.row, count: Math.min(Math.max(t.count + (key === "-" ? -1 : 1), 1), length) };
  } else {
    return false;
  }
  keepFocus(() => {
    renderMine();
    renderActions();
  });
  return true;
}

function onKey(ev) {
  const t = ev.target;
  if (ev.ctrlKey || ev.metaKey || ev.altKey || ev.isComposing) return;
  if (t instanceof HTMLInputElement || t instanceof HTMLTextAreaElement || t instanceof HTMLSelectElement) return;
  if (document.querySelector("dialog[open]")) return; // the dialog's own keys
  const key = ev.key.length === 1 ? ev.key.toLowerCase() : ev.key;
  if (key === "Escape") {
    if (S.selected.size || S.target) {
      S.selected.clear();
      S.target = null;
      keepFocus(() => {
        renderMine();
        renderActions();
      });
    }
    return;
  }
  if (key === "t") {
    $("tracker-box").open = !$("tracker-box").open;
    ev.preventDefault();
    return;
  }
  const v = view();
  if (!v || S.seat === null || $("game").hidden || v.stage === "over") return;
  if (key === "?") {
    $("keys-help").open = true;
    $("keys-help").querySelector("summary").focus();
    ev.preventDefault();
    return;
  }
  let done = false;
  if (/^[1-9]$/.test(key)) {
    const i = Number(key) - 1;
    if (i < shownHand().length) {
      toggle(i);
      done = true;
    }
  } else if (MOVE_KEYS[key]) {
    done = clickIf(moveButton(MOVE_KEYS[key]));
  } else if (key === "r" || key === "+" || key === "=" || key === "-") {
    done = aimKey(key);
  } else if (key === "d") {
    done = clickIf($("declare"));
  } else if (key === "u") {
    done = clickIf($("undo"));
  } else if (key === "h") {
    done = clickIf($("hint"));
  } else if (key === "w") {
    done = clickIf($("switch"));
  } else if (key === "Enter") {
    if (t instanceof HTMLButtonElement || t instanceof HTMLAnchorElement || (t && t.closest("summary"))) return;
    // the first move the selection allows (the top green button); keeping the whole hand
    // only when nothing is selected
    const kinds = ["mulligan", "place", "exchange", "score", "pay", "pass"];
    done = clickIf(moveButton(S.selected.size ? kinds : ["keep", ...kinds]));
  }
  if (done) {
    ev.preventDefault();
    refocus(true); // a key pressed with the focus nowhere: from now on it is in the hand
  }
}

// ------------------------------------------------------------------------ wire
function wire() {
  $("table-id").textContent = tableId;
  setBaseTitle(`No Return · ${tableId}`);
  wireOnline();
  $("reconnect").addEventListener("click", reopen);
  $("clear").addEventListener("click", () => {
    S.selected.clear();
    S.target = null;
    renderMine();
    renderActions();
  });
  $("hint").addEventListener("click", () => {
    if (!myTurn()) return;
    if (sendMsg({ type: "hint" })) {
      S.hintPending = true;
      renderActions();
    }
  });
  $("switch").addEventListener("click", () => {
    if (!myTurn() || S.switchPending) return;
    if (sendMsg({ type: "switch" })) {
      S.switchPending = true;
      S.switchFor = S.version;
      renderActions();
    }
  });
  $("declare").addEventListener("click", () => play("declare"));
  $("join").addEventListener("click", () => {
    const name = $("join-name").value.trim();
    lobbyCall("join", name ? { token, name } : { token });
  });
  $("start").addEventListener("click", async () => {
    if (await lobbyCall("start", { token })) setTimeout(() => {
      if (!S.st || S.st.status === "lobby") reopen();
    }, 1500);
  });
  $("leave-lobby").addEventListener("click", () => lobbyCall("leave", { token }));
  $("leave").addEventListener("click", async () => {
    const ok = await confirmBox(_("Leave the table?"),
      _("A bot takes over your seat for the rest of the game. You can keep watching."), _("Leave"));
    if (ok && await lobbyCall("leave", { token })) location.href = `/watch/${encodeURIComponent(tableId)}`;
  });
  document.addEventListener("keydown", onKey);
  window.addEventListener("online", () => {
    if (!ws) reopen();
  });
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible" && !ws && !fatal) reopen();
  });
  // For tests and curious players: drop the connection to see the page reconnect by itself.
  window.noreturn = { drop: () => ws && ws.close(), state: () => S.st };
}

/** The parts of issue 18's "Online together" on this page: take-backs, your-turn alerts
 * and the chat (their words through `_()`). */
function wireOnline() {
  $("undo").textContent = _("Take back my last turn");
  $("undo").title = _("Against bots only: the table goes back to before your last turn.");
  $("undo-key").textContent = _("u take back your last turn (only when every other seat is a bot)");
  $("undo").addEventListener("click", () => {
    if (!S.st || !S.st.can_undo || S.pending) return;
    if (sendMsg({ type: "undo", version: S.version })) {
      S.pending = true;
      renderActions();
    }
  });
  $("alerts-title").textContent = _("Your-turn alerts");
  $("alerts-box").hidden = mode !== "play";
  setupTurnAlerts($("alerts"));
  $("chat-title").textContent = _("Table chat");
  $("chat-empty").textContent = _("No messages yet.");
  $("chat-label").textContent = _("Your message");
  $("chat-input").placeholder = _("Say something to the table…");
  $("chat-send").textContent = _("Send");
  setupChat(sendMsg);
}

async function start() {
  wire();
  if (!tableId) {
    showError(_("This address names no table: open a seat link or a spectator link from the lobby."));
    return;
  }
  if (mode === "play" && !token) {
    showError(_("This seat link has no token (the part after #token=). Ask for the full link again; meanwhile you watch as a spectator."));
  }
  try {
    S.table = await api("GET", `/api/tables/${encodeURIComponent(tableId)}`);
  } catch (exc) {
    if (exc.status === 404) {
      showError(_("There is no table \"{id}\". Check the link, or create a table in the lobby.", { id: tableId }));
      setConn("off", _("no such table"));
      return;
    }
  }
  if (window.matchMedia("(min-width: 960px)").matches) $("tracker-box").open = true;
  if (mode === "play" && token) rememberSeat(tableId, token);
  $("rematch").addEventListener("click", askRematch);
  if (joinOnOpen && token) {
    history.replaceState(null, "", `${location.pathname}${location.search}#token=${encodeURIComponent(token)}`);
    if (S.table && S.table.status === "lobby") await lobbyCall("join", { token });
  }
  renderAll();
  lobbyTimer = setInterval(pollLobby, 2500);
  connect();
}

start();
