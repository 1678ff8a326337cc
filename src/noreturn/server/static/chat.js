// The table's chat: plain text between the seated players; spectators read along.
//
// A message is only ever shown as text (`textContent`), never parsed as HTML, whatever it
// holds: `<img src=x onerror=...>` reads as those characters. The server keeps the chat
// with the table, so a reconnect (or another server process) shows the same messages; it
// also judges every message (length, pace): this page only keeps the box within 300
// characters and shows the server's refusal when there is one.

import { _, ngettext } from "./i18n.js";

const LIMIT = 300;
const $ = (id) => document.getElementById(id);
const chat = { seen: new Set(), seat: null, sending: null, send: null };

function line(m) {
  const li = document.createElement("li");
  li.className = m.seat === chat.seat ? "chat-line mine" : "chat-line";
  li.dataset.id = String(m.id);
  const who = document.createElement("b");
  who.textContent = m.seat === chat.seat ? _("{name} (you): ", { name: m.name }) : `${m.name}: `;
  const text = document.createElement("span");
  text.className = "chat-text";
  text.textContent = m.text; // text, never HTML
  const at = document.createElement("time");
  at.dateTime = m.at;
  at.className = "muted";
  const when = new Date(m.at);
  at.textContent = Number.isNaN(when.getTime()) ? ""
    : ` ${when.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" })}`;
  li.append(who, text, at);
  return li;
}

function renderCount() {
  const left = LIMIT - $("chat-input").value.length;
  $("chat-count").textContent = ngettext("{n} character left", "{n} characters left", left);
}

/** Add the messages of a `chat` message (ids already shown are skipped). */
export function addChat(messages) {
  const list = $("chat-list");
  const atEnd = list.scrollTop + list.clientHeight >= list.scrollHeight - 4;
  for (const m of messages || []) {
    if (chat.seen.has(m.id)) continue;
    chat.seen.add(m.id);
    list.append(line(m));
    if (chat.sending !== null && m.seat === chat.seat && m.text === chat.sending) {
      $("chat-input").value = ""; // ours arrived: the box is free again
      chat.sending = null;
      renderCount();
    }
  }
  $("chat-empty").hidden = chat.seen.size > 0;
  if (atEnd) list.scrollTop = list.scrollHeight;
}

/** Who reads this chat: `seat` (null: a spectator, who reads only) at a table of `status`. */
export function chatAccess(seat, status) {
  chat.seat = seat;
  const open = status !== "closed" && status !== "abandoned";
  const writes = seat !== null && open;
  $("chat-form").hidden = !writes;
  $("chat-readonly").hidden = writes;
  $("chat-readonly").textContent = seat === null
    ? _("Spectators read the chat; the players write in it.")
    : _("This table is closed: its chat takes no more messages.");
}

// The error codes the server refuses a chat message with (docs/server-protocol.md, the
// `chat` message). An error does not say which message it answers: `too_long` and
// `chat_full` answer only a chat message, the others may answer other messages too, and
// while a chat message is on its way they are taken as its refusal. Any other error (a
// stale or illegal move, a hint off turn, ...) leaves the message on its way.
const REFUSALS = new Set(["too_long", "chat_full", "rate_limited", "malformed", "closed", "spectator"]);

/** Whether an error of this code may be the refusal of a chat message. */
export function refusesChat(code) {
  return REFUSALS.has(code);
}

/** A refusal of the last message (too long, too fast, ...): the box keeps the text. */
export function chatRefused() {
  chat.sending = null;
}

/** Wire the chat's form; `send(message)` sends a protocol message (false: not connected). */
export function setupChat(send) {
  chat.send = send;
  $("chat-input").maxLength = LIMIT;
  $("chat-input").addEventListener("input", renderCount);
  $("chat-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const text = $("chat-input").value.trim();
    if (!text) return;
    if (chat.send({ type: "chat", text })) chat.sending = text.split(/\s+/).join(" ");
  });
  renderCount();
}
