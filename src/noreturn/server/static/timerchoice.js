// The lobby's choice of a turn timer for a new table (none by default), and its line in
// the list of tables.
//
// A timer keeps an absent player from blocking a table: when a person's time runs out, a
// bot of the chosen level plays that one turn for them (the log says so). Minutes suit a
// game played at once; hours per move suit a slow table played over days.

import { api } from "./api.js";
import { _, levelName } from "./i18n.js";
import { formatTurn } from "./timer.js";

const $ = (id) => document.getElementById(id);
const LEVELS = ["easy", "medium", "hard"];

function option(value, text, selected = false) {
  const el = document.createElement("option");
  el.value = value;
  el.textContent = text;
  el.selected = selected;
  return el;
}

/** Fill the timer's two selects (in the create form) with the times this server offers
 * (GET /api/turn-times: one list, the server's; unreachable, only "no timer"). */
export async function setupTimerChoice() {
  const box = $("timer-choice");
  if (!box) return;
  $("turn-seconds-label").textContent = _("Turn timer");
  $("timeout-level-label").textContent = _("When time runs out, this bot plays the turn");
  $("timer-help").textContent = _("Without a timer a table waits for each player as long as it takes. With one, a player who runs out of time has that turn played by a bot; slow tables give hours per move.");
  const times = $("turn-seconds");
  let offered = []; // the server unreachable: only "no timer", and the form still works
  try {
    offered = (await api("GET", "/api/turn-times")).turn_times;
  } catch {
    // nothing to add: a table without a timer can still be made
  }
  times.replaceChildren(option("", _("no timer"), true), ...offered.map((s) => option(String(s),
    s < 3600 ? _("{time} per turn", { time: formatTurn(s) })
      : _("{time} per move (slow table)", { time: formatTurn(s) }))));
  $("timeout-level").replaceChildren(...LEVELS.map((l) => option(l, levelName(l), l === "medium")));
  const sync = () => { $("timeout-level").disabled = !times.value; };
  times.addEventListener("change", sync);
  sync();
}

/** The new table's timer fields for the create request ({} without a timer). */
export function timerChoice() {
  const times = $("turn-seconds");
  if (!times || !times.value) return {};
  return { turn_seconds: Number(times.value), timeout_level: $("timeout-level").value };
}

/** A table's timer in the list of tables ("" without one). */
export function timerSummary(t) {
  if (!t.timer) return "";
  return _("timer: {time} per turn, then {level} plays", { time: formatTurn(t.timer.seconds), level: levelName(t.timer.level) });
}
