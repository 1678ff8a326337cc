// The turn timer: how long the player to move has left, counted down on the page.
//
// The server keeps the deadline (a state's `timer.deadline`, an absolute time) and plays
// the turn with the table's bot when it passes; this page only shows it. It counts against
// the server's clock (the welcome's `now`), so a computer whose clock is off still shows
// the right time left.

import { _, levelName, ngettext } from "./i18n.js";

let offset = 0; // the server's clock minus this computer's, in ms
let shown = null; // {el, timer, seat, names}
let ticker = null;

/** The server's time at the welcome (ISO text): the clock the countdown uses. */
export function setServerClock(iso) {
  const server = Date.parse(iso || "");
  if (!Number.isNaN(server)) offset = server - Date.now();
}

/** A duration for people: "0:42", "12:05", "3 h 20 min", "2 d 4 h". */
export function formatLeft(seconds) {
  const s = Math.max(0, Math.ceil(seconds));
  if (s < 3600) return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
  const hours = Math.floor(s / 3600);
  if (hours < 24) return _("{h} h {m} min", { h: hours, m: Math.floor((s % 3600) / 60) });
  return _("{d} d {h} h", { d: Math.floor(hours / 24), h: hours % 24 });
}

/** A timer's length per turn, for people: "30 s", "2 min", "24 h". */
export function formatTurn(seconds) {
  if (seconds < 60) return _("{n} s", { n: seconds });
  if (seconds < 3600) return _("{n} min", { n: Math.round(seconds / 60) });
  if (seconds < 3 * 86400 && seconds % 86400) return _("{n} h", { n: Math.round(seconds / 3600) });
  const days = Math.round(seconds / 86400);
  return ngettext("{n} day", "{n} days", days);
}

function render() {
  if (!shown) return;
  const { el, timer, seat, names } = shown;
  if (!timer) {
    el.hidden = true;
    return;
  }
  el.hidden = false;
  const per = formatTurn(timer.seconds);
  if (!timer.deadline || timer.seat === null || timer.seat === undefined) {
    el.textContent = _("Turn timer: {time} per turn", { time: per });
    el.dataset.left = "";
    el.classList.remove("timer-low");
    return;
  }
  const left = (Date.parse(timer.deadline) - (Date.now() + offset)) / 1000;
  const name = names[timer.seat] ?? "";
  const mine = seat !== null && timer.seat === seat;
  el.dataset.left = String(Math.max(0, Math.ceil(left)));
  el.classList.toggle("timer-low", left < Math.min(10, timer.seconds / 4));
  if (left <= 0) {
    el.textContent = mine
      ? _("Your time is up: a {level} bot plays this turn for you…", { level: levelName(timer.level) })
      : _("{name}'s time is up: a {level} bot plays this turn…", { name, level: levelName(timer.level) });
    return;
  }
  el.textContent = mine
    ? _("Your time: {left} left (then a {level} bot plays this turn for you)",
      { left: formatLeft(left), level: levelName(timer.level) })
    : _("{name}'s time: {left} left", { name, left: formatLeft(left) });
}

/** Show the state's `timer` in `el` (hidden without one) for the reader's `seat` (null: a
 * spectator), and keep counting it down. */
export function showTimer(el, timer, seat, names) {
  shown = { el, timer: timer || null, seat, names: names || [] };
  render();
  if (!ticker) ticker = setInterval(render, 250);
}
