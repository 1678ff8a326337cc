// The table page's answers to the server's messages (welcome, state, chat, check, hint,
// switch, error), each folded into the page's state and shown.
//
// Apart from the socket (tablesocket.js) so that the connection knows nothing of the game,
// and every message passes the tutorial's lessons (tutorial.js) after the page took it.

import { addChat, chatAccess, chatRefused, refusesChat } from "./chat.js";
import { _ } from "./i18n.js";
import { canonicalAction } from "./tiles.js";
import { setServerClock } from "./timer.js";
import { tutor } from "./tutorial.js";
import { renderActions } from "./tablemoves.js";
import { giveUp, sendMsg, welcomed } from "./tablesocket.js";
import {
  $, S, hashParams, keptChoice, myTurn, restoreChoice, showError, showHand, tableId,
} from "./tablestate.js";
import { renderAll } from "./tableview.js";

// a tutorial table's link adds tutorial=1: lessons at their moments (tutorial.js)
const lessons = tutor(hashParams, tableId, sendMsg);

/** Take one message of the server (tablesocket.js hands each over as it is read). */
export function onMessage(msg) {
  switch (msg.type) {
    case "welcome":
      welcomed();
      S.seat = msg.seat ?? null;
      S.table = msg.table ?? S.table;
      setServerClock(msg.now);
      chatAccess(S.seat, S.table ? S.table.status : "lobby");
      $("chat").hidden = false;
      S.online = true;
      for (const old of $("errors").querySelectorAll(".error[data-kind=offline]")) old.remove();
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
    case "hint": // for the version it names: an answer overtaken by a move is not shown
      S.hint = msg.version === S.version ? { action: msg.action, reason: msg.reason } : null;
      S.hintPending = false;
      renderActions();
      break;
    case "switch": // weighed for the version it names: shown only while it is current
      S.switchPending = false;
      S.switchAdvice = msg.version === S.version ? msg : null;
      renderActions();
      break;
    case "error":
      S.pending = false;
      S.hintPending = false;
      S.switchPending = false;
      showError(msg.message || _("The server refused that."), msg.code);
      if (refusesChat(msg.code)) chatRefused(); // not on a refused move: the chat goes on
      if (msg.code === "bad_token") giveUp();
      renderActions();
      break;
    case "pong":
      break;
    default:
      break;
  }
  lessons(msg);
}
