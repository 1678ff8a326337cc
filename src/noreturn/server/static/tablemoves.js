// The move builder: this seat's panel (its rows to aim a score at, its hand to select
// from), the moves the selection can mean with their buttons, the server's checks of
// them, the hint and the switch advice, and sending the move.
//
// The page never judges a move: a button is enabled when its text is in the state's
// `legal` list or the server's `check` said yes; otherwise the server's reason is shown.

import { phaseText, rowsEl, scoreWhy } from "./board.js";
import { _, ngettext } from "./i18n.js";
import { turnAlert } from "./notify.js";
import {
  actionText, canonicalAction, colourName, h, richText, tileEl, tilesCount, tilesIn, valueSum,
} from "./tiles.js";
import { sendMsg } from "./tablesocket.js";
import {
  $, S, clearErrors, confirmBox, keepFocus, myTurn, names, selectedCodes, showHand, shownHand,
  tableId, view,
} from "./tablestate.js";

let turnShown = false;

/** Whose turn it is, on the page: the hand scrolled into view and the tab's alert when
 * ours comes, and the body's flags (tests and styles read them). */
export function renderFlags() {
  const turn = myTurn();
  if (turn && !turnShown) showHand();
  turnShown = turn;
  turnAlert(turn, S.st && S.st.view && S.st.view.stage === "mulligan"
    ? _("Your mulligan at table {id}: keep your hand or set tiles aside.", { id: tableId })
    : _("Your turn at table {id}.", { id: tableId }));
  document.body.dataset.myTurn = turn ? "1" : "0";
  document.body.dataset.pending = S.pending ? "1" : "0";
}

/** This seat's panel: its badges, rows (aimed at in phase 2) and hand (selected). */
export function renderMine() {
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

/** Select or unselect the hand's tile at position `i`. */
export function toggle(i) {
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
      const aim = ngettext("Score {n} tile of your {colour} row ({sum})", "Score the last {n} tiles of your {colour} row ({sum})", t.count, { colour: colourName(t.row), sum: valueSum(tail) });
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

/** The moves the selection means, their checks, and the turn's tools. */
export function renderActions() {
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
    : h("span", { class: "muted", text: turn ? _("Tap tiles in your hand to select them.") : "" }));
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
  const someone = _("another player");
  return _("{name}'s turn", { name: names()[v.to_move] ?? someone });
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
      : h("span", { class: "why ok-why", text: _("✓ legal") }));
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

/** Send the move `text` (asking first for a declaration: there is no return). */
export async function play(text) {
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
