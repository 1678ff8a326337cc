// The table page's shared state, and what the other table modules read from it.
//
// The page (table.js and its modules) keeps one record of what it knows: the seat, the
// last state, the selection and what is on its way to the server (`S`). Reading it (whose
// turn, which hand is shown, which tiles are selected), the error box, the focus kept
// across a redraw and the confirmation dialog live here, so every module uses one copy.

import { _ } from "./i18n.js";
import { h, handOrder } from "./tiles.js";

export const $ = (id) => document.getElementById(id);
const parts = location.pathname.split("/").filter(Boolean);
export const mode = parts[0] === "play" ? "play" : "watch";
export const tableId = decodeURIComponent(parts[1] || "");
export const hashParams = new URLSearchParams(location.hash.slice(1));
export const token = hashParams.get("token");
// "Take this seat" in the lobby adds join=1: opening the link takes the seat in one click
export const joinOnOpen = hashParams.get("join") === "1";

export const S = {
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
  switchPending: false, // a `switch` is on its way (its answer names the version it is for)
  pending: false, // an action is on its way
  online: false, // welcomed on an open socket: moves can be sent
  logShown: 0,
  endShown: false,
  joinNameSet: false,
};

// ---------------------------------------------------------------------- errors
export function showError(text, code = null, link = null, kind = "") {
  const box = $("errors");
  const item = h("div", { class: "error", dataset: { code: code || "", kind } },
    h("span", { class: "error-text" }, code ? h("b", { text: `${code}: ` }) : null, text),
    link ? h("a", { class: "button", href: link.href, text: link.text }) : null,
    h("button", { type: "button", class: "dismiss", "aria-label": _("Dismiss this message"),
      onclick: () => item.remove() }, "×"));
  box.replaceChildren(item);
}

export function clearErrors() {
  $("errors").replaceChildren();
}

// ----------------------------------------------------------------------- state
export function view() {
  return S.st && S.st.view;
}

export function names() {
  return (S.st && S.st.names) || (S.table ? S.table.seats.map((s) => s.name) : []);
}

export function myTurn() {
  const st = S.st;
  return Boolean(st && st.view && st.status === "playing" && S.seat !== null && S.online
    && st.view.stage !== "over" && st.view.to_move === S.seat && st.legal.length > 0);
}

export function shownHand() {
  const v = view();
  return v && v.hand ? handOrder(v.hand) : [];
}

export function selectedCodes() {
  const hand = shownHand();
  return [...S.selected].sort((a, b) => a - b).map((i) => hand[i]).filter(Boolean);
}

/** The selection (tile codes) and score aim to carry into the next state: only while
 * another seat was moving (after our own move the choice is spent). */
export function keptChoice() {
  const v = view();
  if (!v || S.seat === null || v.to_move === S.seat || v.stage === "over") return null;
  if (!S.selected.size && !S.target) return null;
  return { codes: selectedCodes(), target: S.target };
}

/** Select again the kept tiles still in the hand, and the aim if its row still reaches. */
export function restoreChoice(keep) {
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
export function keepFocus(fn) {
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
export function refocus(wasInMine) {
  const now = document.activeElement;
  const lost = !now || now === document.body || !now.isConnected || now.disabled
    || now.closest("[hidden]");
  if (wasInMine && lost && !$("mine").hidden) $("hand").focus({ preventScroll: true });
}

/** On the turn's arrival: scroll the hand and the moves into view when the hand is off
 * screen (a phone with two opponents above it). */
export function showHand() {
  const hand = $("hand");
  if ($("game").hidden || $("mine").hidden) return;
  const box = hand.getBoundingClientRect();
  if (box.top >= 0 && box.bottom <= window.innerHeight) return;
  $("hand-title").scrollIntoView({ block: "start" });
}

// --------------------------------------------------------------------- dialogs
export function confirmBox(title, text, okLabel) {
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
