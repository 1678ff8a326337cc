// The table page drawn from its state: the seat badge, the board (every other player's
// rows), the side panels (bag, scores, turn log, tile tracker) and, from there, the
// waiting room, this seat's panel, the moves and the end of the game.
//
// `renderAll` is the one call that redraws everything after a state or a connection
// change; the parts that change with the selection alone are tablemoves.js's.

import { countUnseen, playerPanel, scoresTable, stageText, trackerEl, turnNumber } from "./board.js";
import { _, ngettext } from "./i18n.js";
import { h, richText } from "./tiles.js";
import { showTimer } from "./timer.js";
import { renderEnd } from "./tableend.js";
import { renderLobby } from "./tablelobby.js";
import { renderActions, renderFlags, renderMine } from "./tablemoves.js";
import { $, S, keepFocus, names, view } from "./tablestate.js";

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

export function renderAll() {
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

function renderBoard() {
  const v = view();
  const n = names();
  $("info").replaceChildren(h("b", { text: stageText(v, n) }), " · " + _("turn {n}", { n: turnNumber(v) }));
  const order = [];
  for (let k = 0; k < v.players.length; k++) {
    const seat = S.seat === null ? k : (S.seat + 1 + k) % v.players.length;
    if (seat !== S.seat) order.push(seat);
  }
  $("others").replaceChildren(...order.map((seat) => playerPanel(v, seat, n)));
  $("others").setAttribute("aria-label", S.seat === null ? _("Players") : _("Other players"));
}

function renderSide() {
  const v = view();
  $("bag").textContent = String(v.bag_count);
  $("bag-word").textContent = ngettext("tile", "tiles", v.bag_count);
  const last = _("last round");
  $("turns").textContent = "· " + _("turn {n}", { n: turnNumber(v) }) + (v.ending ? " · " + last : "");
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
