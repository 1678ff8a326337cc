// The game table: one seat's view (or the public view for a spectator) over a WebSocket.
//
// The server is the only judge. This page never decides whether a move is legal: it builds
// the text of the move the selection means, enables its button when that text is in the
// state's `legal` list, and otherwise asks the server (`check`) why not and shows the reason.
//
// This module starts the page and wires its controls; the rest is in modules of their own,
// each small enough to read at once: the shared state (tablestate.js), the socket
// (tablesocket.js), the server's messages (tablemessages.js), the drawing (tableview.js),
// the move builder (tablemoves.js), the waiting room (tablelobby.js), the end of the game
// and the rematch (tableend.js) and the keys (tablekeys.js).

import { api } from "./api.js";
import { setupChat } from "./chat.js";
import { _ } from "./i18n.js";
import { setBaseTitle, setupTurnAlerts } from "./notify.js";
import { rememberSeat } from "./player.js";
import { askRematch } from "./tableend.js";
import { onKey } from "./tablekeys.js";
import { lobbyCall, startPolling } from "./tablelobby.js";
import { onMessage } from "./tablemessages.js";
import { play, renderActions, renderMine } from "./tablemoves.js";
import {
  connect, connected, dropSocket, isFatal, onSocket, reopen, sendMsg, setConn,
} from "./tablesocket.js";
import {
  $, S, confirmBox, joinOnOpen, mode, myTurn, showError, tableId, token,
} from "./tablestate.js";
import { renderAll } from "./tableview.js";

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
    if (!connected()) reopen();
  });
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible" && !connected() && !isFatal()) reopen();
  });
  // For tests and curious players: drop the connection to see the page reconnect by itself.
  window.noreturn = { drop: dropSocket, state: () => S.st };
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
  startPolling();
  onSocket({ message: onMessage, closed: renderAll });
  connect();
}

start();
