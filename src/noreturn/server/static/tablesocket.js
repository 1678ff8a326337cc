// The table page's connection: the WebSocket to the server, kept open.
//
// Opens the socket with the hello, says how it stands in the status line at the top,
// reconnects by itself when it drops (waiting longer each time, up to 8 s), and gives up
// only when the server refuses the table, the seat link or the hello. What the messages mean
// is tablemessages.js's: this module only hands them over (`onSocket`).

import { _, lang } from "./i18n.js";
import { $, S, mode, showError, tableId, token } from "./tablestate.js";

let ws = null;
let attempt = 0;
let retryTimer = null;
let pingTimer = null;
let fatal = false;
// where the socket's news goes: every message read, and a close (the page redraws)
let handlers = { message: () => {}, closed: () => {} };

/** Hand each message read to `message(msg)`, and call `closed()` after the socket closed. */
export function onSocket(handle) {
  handlers = handle;
}

function wsUrl() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  return `${scheme}://${location.host}/ws/tables/${encodeURIComponent(tableId)}`;
}

/** The status line at the top: `kind` (connecting, on, retry, off) and its words. */
export function setConn(kind, text) {
  const el = $("conn");
  el.className = `conn conn-${kind}`;
  el.textContent = text;
  $("reconnect").hidden = kind !== "retry" && kind !== "off";
  document.body.dataset.conn = kind;
}

/** Open the socket (unless the page gave up), and reconnect when it drops. */
export function connect() {
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
    handlers.message(msg);
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
      handlers.closed();
      return;
    }
    attempt += 1;
    const delay = Math.min(8000, 500 * 2 ** Math.min(attempt - 1, 4));
    setConn("retry", _("connection lost · reconnecting in {n} s", { n: Math.max(1, Math.round(delay / 1000)) }));
    retryTimer = setTimeout(connect, delay);
    handlers.closed();
  };
}

/** Drop the socket (if any) and connect again at once. */
export function reopen() {
  fatal = false;
  attempt = 0;
  const old = ws;
  ws = null;
  if (old) old.close();
  connect();
}

/** Send a protocol message; false (and the reason shown) when not connected. */
export function sendMsg(msg) {
  if (!ws || ws.readyState !== WebSocket.OPEN) {
    showError(_("Not connected right now: wait for the reconnection (see the status at the top)."),
      null, null, "offline");
    return false;
  }
  ws.send(JSON.stringify(msg));
  return true;
}

/** The server welcomed this socket: the status line says so, and pings keep it open. */
export function welcomed() {
  attempt = 0;
  setConn("on", _("connected"));
  clearInterval(pingTimer);
  pingTimer = setInterval(() => sendMsg({ type: "ping" }), 20000);
}

/** No more reconnecting (the seat link was refused): only "Reconnect now" tries again. */
export function giveUp() {
  fatal = true;
}

/** Whether a socket is open or opening. */
export function connected() {
  return ws !== null;
}

/** Whether the page gave up reconnecting. */
export function isFatal() {
  return fatal;
}

/** Close the socket as a lost connection would (for tests and curious players). */
export function dropSocket() {
  return ws && ws.close();
}
