// The waiting room: the seats of a table not started yet, and this seat's join, start and
// leave calls (HTTP, not the socket). Until the game starts the table's page is polled
// every 2.5 s; then the states come over the socket.

import { api } from "./api.js";
import { _, levelName } from "./i18n.js";
import { playerKey } from "./player.js";
import { h } from "./tiles.js";
import { connected, reopen } from "./tablesocket.js";
import { $, S, clearErrors, showError, tableId } from "./tablestate.js";

/** The waiting room's seats, and this seat's name, start and the reason start waits. */
export function renderLobby() {
  const t = S.table;
  if (!t) return;
  $("lobby-seats").replaceChildren(...t.seats.map((s) => h("li", { class: s.joined ? "joined" : "" },
    h("b", { text: _("Seat {n}: ", { n: s.seat + 1 }) }),
    s.kind === "bot" ? _("{name} · bot ({level})", { name: s.name, level: levelName(s.level) }) : s.name,
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
    const and = _(" and ");
    $("start-why").textContent = missing.length
      ? _("Start waits for {names} to join: send them their seat links.", { names: missing.join(and) })
      : seat && seat.joined ? _("Everyone is here: start when you are ready.") : _("Start the game to take your seat and begin.");
  }
}

/** `join`, `start` or `leave` for this seat; whether the server took it (else the
 * reason is shown). */
export async function lobbyCall(what, body) {
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
    if (t.status !== "lobby" && (!S.st || S.st.status === "lobby") && connected()) reopen();
  } catch {
    /* the socket's status line tells about connection trouble */
  }
}

/** Watch the waiting room until the game starts. */
export function startPolling() {
  lobbyTimer = setInterval(pollLobby, 2500);
}
