// The lobby: create a table (seats, bots, rules), share its links, list the tables.

import { api, forgetTable, myTables, rememberTable } from "./api.js";
import { N_, _, levelName } from "./i18n.js";
import { h } from "./tiles.js";
import { setupTimerChoice, timerChoice, timerSummary } from "./timerchoice.js";
import { wireLearnButtons } from "./tutorial.js";

const $ = (id) => document.getElementById(id);
const LEVELS = [
  ["easy", N_("easy (quick, greedy)")],
  ["medium", N_("medium")],
  ["hard", N_("hard (thinks longer)")],
  ["expert", N_("expert (3 s a move)")],
];
const NAMES = ["Ada", "Bo", "Cy", "Dot"];
/** A table's status as a badge says it (the API's words are the keys). */
const STATUS = { lobby: N_("lobby"), playing: N_("playing"), finished: N_("finished"), closed: N_("closed"), abandoned: N_("abandoned") };
const statusText = (status) => _(STATUS[status] ?? status);
const DEFAULT_RULES = { colors: 6, max_value: 11, copies: 2, hand_size: 8, exchange_limit: 4 };
/** The size parameters as the create form names them (the API's keys are the keys). */
const RULE_WORDS = { colors: N_("Colours"), max_value: N_("Highest value"), copies: N_("Copies of each tile"), hand_size: N_("Hand size"), exchange_limit: N_("Exchange limit") };

let seats = [
  { kind: "human", name: "Ada", level: "medium" },
  { kind: "bot", name: "", level: "medium" },
];

function showError(text) {
  const item = h("div", { class: "error" }, h("span", { class: "error-text", text }),
    h("button", { type: "button", class: "dismiss", "aria-label": _("Dismiss this message"),
      onclick: () => item.remove() }, "×"));
  $("errors").replaceChildren(item);
}

function absolute(link) {
  return new URL(link, location.origin).href;
}

// --------------------------------------------------------------- seat editor
function renderSeats() {
  const list = $("seats");
  list.replaceChildren(...seats.map((s, i) => {
    const kind = h("select", { "aria-label": _("Seat {n}: who plays", { n: i + 1 }), name: `kind-${i}`,
      onchange: (ev) => { s.kind = ev.target.value; renderSeats(); } },
    h("option", { value: "human", selected: s.kind === "human" }, _("Person")),
    h("option", { value: "bot", selected: s.kind === "bot" }, _("Bot")));
    const detail = s.kind === "human"
      ? h("input", { type: "text", name: `name-${i}`, value: s.name, maxlength: "40",
        "aria-label": _("Seat {n}: name", { n: i + 1 }), placeholder: _("name"),
        oninput: (ev) => { s.name = ev.target.value; } })
      : h("select", { name: `level-${i}`, "aria-label": _("Seat {n}: bot level", { n: i + 1 }),
        onchange: (ev) => { s.level = ev.target.value; } },
      ...LEVELS.map(([v, label]) => h("option", { value: v, selected: s.level === v }, _(label))));
    const remove = h("button", { type: "button", class: "icon", disabled: seats.length <= 2,
      "aria-label": _("Remove seat {n}", { n: i + 1 }), onclick: () => { seats.splice(i, 1); renderSeats(); } }, "✕");
    return h("li", { class: "seat-line" }, h("span", { class: "seat-no", text: _("Seat {n}", { n: i + 1 }) }),
      kind, detail, remove);
  }));
  $("add-seat").disabled = seats.length >= 4;
}

function rulesFromForm() {
  const form = $("create-form");
  const rules = {};
  let changed = false;
  for (const key of Object.keys(DEFAULT_RULES)) {
    const raw = form.elements[key].value.trim();
    const value = Number(raw);
    if (!/^\d+$/.test(raw)) throw new Error(_("Rules: {name} must be a whole number (default {value}).", { name: _(RULE_WORDS[key]), value: DEFAULT_RULES[key] }));
    rules[key] = value;
    if (value !== DEFAULT_RULES[key]) changed = true;
  }
  return changed ? rules : null;
}

async function create(ev) {
  ev.preventDefault();
  $("errors").replaceChildren();
  const body = { seats: seats.map((s, i) => (s.kind === "human"
    ? { kind: "human", name: s.name.trim() || NAMES[i] }
    : { kind: "bot", level: s.level })) };
  try {
    const rules = rulesFromForm();
    if (rules) body.rules = rules;
    Object.assign(body, timerChoice());
  } catch (exc) {
    showError(exc.message);
    return;
  }
  const button = $("create");
  button.disabled = true;
  button.textContent = _("Creating…");
  try {
    const made = await api("POST", "/api/tables", body);
    const entry = {
      id: made.table.id,
      created_at: made.table.created_at,
      seats: made.table.seats.map((s) => ({ seat: s.seat, name: s.name, kind: s.kind, level: s.level })),
      links: made.seat_links.map((l) => ({ seat: l.seat, name: l.name, link: l.link })),
      spectator_link: made.spectator_link,
    };
    rememberTable(entry);
    showCreated(entry);
    loadTables();
    renderMine();
  } catch (exc) {
    showError(_("Could not create the table: {reason}", { reason: exc.message }));
  } finally {
    button.disabled = false;
    button.textContent = _("Create the table");
  }
}

function linkLine(label, link, open) {
  const url = absolute(link);
  const input = h("input", { type: "text", readonly: true, value: url, "aria-label": _("{label}: link", { label }),
    class: "link-field", onfocus: (ev) => ev.target.select() });
  const copy = h("button", { type: "button", "aria-label": _("Copy the link of {label}", { label }),
    onclick: async () => {
      try {
        await navigator.clipboard.writeText(url);
        copy.textContent = _("Copied");
      } catch {
        input.focus();
        input.select();
        copy.textContent = _("Press Ctrl+C");
      }
      setTimeout(() => { copy.textContent = _("Copy"); }, 2000);
    } }, _("Copy"));
  return h("li", { class: "link-line" }, h("b", { text: label }),
    h("div", { class: "inline" }, input, copy,
      h("a", { class: `button${open ? " primary" : ""}`, href: open ? `${link}&join=1` : link, dataset: { seatLink: label } }, open ? _("Take this seat") : _("Open"))));
}

function showCreated(entry) {
  const box = $("created");
  box.hidden = false;
  box.replaceChildren(
    h("h3", {}, _("Table") + " ", h("code", { text: entry.id }), " " + _("is ready")),
    h("p", { class: "muted", text: _("Send each person their own seat link (it holds a secret token: whoever has it plays that seat). It is shown only now, and kept in this browser under “Your tables”.") }),
    h("ul", { class: "links" },
      ...entry.links.map((l, i) => linkLine(_("Seat {n} · {name}", { n: l.seat + 1, name: l.name }), l.link, i === 0)),
      linkLine(_("Spectators"), entry.spectator_link, false)));
  box.querySelector("a.primary")?.focus();
}

// ------------------------------------------------------------------- lists
function seatSummary(t) {
  return t.seats.map((s) => (s.kind === "bot" ? _("{name} (bot, {level})", { name: s.name, level: levelName(s.level) })
    : `${s.name}${t.status === "lobby" ? (s.joined ? " ✓" : ` (${_("open")})`) : ""}`)).join(" · ");
}

function rulesSummary(rules) {
  if (!rules) return "";
  const diff = Object.entries(DEFAULT_RULES).filter(([k, v]) => rules[k] !== undefined && rules[k] !== v);
  return diff.map(([k]) => `${_(RULE_WORDS[k])} ${rules[k]}`).join(", ");
}

// Tables whose game will not go on: finished, closed by their creator, or abandoned (idle).
const OVER = new Set(["finished", "closed", "abandoned"]);

function tableItem(t, mine) {
  const id = encodeURIComponent(t.id);
  const actions = [h("a", { class: "button", href: `/watch/${id}` }, OVER.has(t.status) ? _("Final table") : _("Watch"))];
  if (t.status === "finished") {
    actions.push(h("a", { class: "button", href: `/replay/${id}` }, _("Replay")));
    actions.push(h("a", { class: "button", href: `/api/tables/${id}/record`, download: `noreturn-${t.id}.json` }, _("Record")));
  }
  if (t.rematch) { // a finished game played again: its table is one click away
    actions.push(h("a", { class: "button", href: `/watch/${encodeURIComponent(t.rematch)}`, dataset: { rematch: t.rematch } }, _("Watch the rematch")));
  }
  if (mine && !OVER.has(t.status)) {
    for (const l of mine.links) actions.push(h("a", { class: "button primary", href: l.link }, _("Play as {name}", { name: l.name })));
  }
  const result = t.result ? " · " + _("scores {scores}", { scores: t.result.scores.join(" / ") }) : "";
  const rules = rulesSummary(t.rules);
  return h("li", { class: "table-item", dataset: { id: t.id, status: t.status } },
    h("div", { class: "table-line" },
      h("code", { text: t.id }),
      h("span", { class: `badge st-${t.status}`, text: statusText(t.status) }),
      h("span", { class: "muted", text: new Date(t.created_at).toLocaleString() })),
    h("div", { class: "table-seats", text: seatSummary(t) + result }),
    rules ? h("div", { class: "muted", text: _("rules: {rules}", { rules }) }) : null,
    t.timer ? h("div", { class: "muted timer-line", text: timerSummary(t) }) : null,
    h("div", { class: "inline wrap" }, ...actions));
}

let tablesCache = [];

async function loadTables() {
  try {
    tablesCache = await api("GET", "/api/tables");
  } catch (exc) {
    $("tables").replaceChildren(h("li", { class: "muted", text: _("Could not load the tables: {reason}", { reason: exc.message }) }));
    return;
  }
  await lookUpUnlisted();
  const mine = new Map(myTables().map((t) => [t.id, t]));
  const list = $("tables");
  if (!tablesCache.length) {
    list.replaceChildren(h("li", { class: "muted", text: _("No tables yet: create one above.") }));
  } else {
    list.replaceChildren(...tablesCache.map((t) => tableItem(t, mine.get(t.id))));
  }
  renderMine();
}

// The status of this browser's tables that the public list leaves out (a guided first game,
// or one older than the list's newest 50), asked for one by one; a finished one never again.
const unlisted = new Map();

async function lookUpUnlisted() {
  const listed = new Set(tablesCache.map((t) => t.id));
  const asked = myTables().filter((m) => !listed.has(m.id) && !OVER.has(unlisted.get(m.id)));
  await Promise.all(asked.map(async (m) => {
    try {
      unlisted.set(m.id, (await api("GET", `/api/tables/${encodeURIComponent(m.id)}`)).status);
    } catch {
      // gone or out of reach: no badge, as before
    }
  }));
}

function renderMine() {
  const mine = myTables();
  $("mine-box").hidden = !mine.length;
  const status = new Map([...unlisted, ...tablesCache.map((t) => [t.id, t.status])]);
  $("mine").replaceChildren(...mine.map((m) => h("li", { class: "table-item" },
    h("div", { class: "table-line" }, h("code", { text: m.id }),
      status.has(m.id) ? h("span", { class: `badge st-${status.get(m.id)}`, text: statusText(status.get(m.id)) }) : null),
    h("details", {}, h("summary", { text: _("Seat links") }),
      h("ul", { class: "links" }, ...m.links.map((l) => linkLine(_("Seat {n} · {name}", { n: l.seat + 1, name: l.name }), l.link, false)),
        linkLine(_("Spectators"), m.spectator_link, false))),
    h("div", { class: "inline wrap" },
      ...(OVER.has(status.get(m.id)) ? [] : m.links.map((l) => h("a", { class: "button primary", href: l.link }, _("Play as {name}", { name: l.name })))),
      h("button", { type: "button", onclick: () => { forgetTable(m.id); renderMine(); } }, _("Forget"))))));
}

function openLink(ev) {
  ev.preventDefault();
  const raw = $("link-input").value.trim();
  try {
    const url = new URL(raw, location.origin);
    if (!/^\/(play|watch|replay)\/[^/]+$/.test(url.pathname)) throw new Error(_("not a table link"));
    location.href = url.pathname + url.hash;
  } catch {
    showError(_("That is not a table link: it looks like …/play/ID#token=… or …/watch/ID."));
  }
}

// the pages of people across tables (player keys: player.js)
$("people-links").setAttribute("aria-label", _("Players"));
$("people-links").replaceChildren(
  h("a", { class: "button", href: "/me" }, _("My games")),
  h("a", { class: "button", href: "/leaderboard" }, _("Leaderboard")));

$("add-seat").addEventListener("click", () => {
  if (seats.length < 4) seats.push({ kind: "bot", name: "", level: "medium" });
  renderSeats();
});
$("create-form").addEventListener("submit", create);
$("refresh").addEventListener("click", loadTables);
$("link-form").addEventListener("submit", openLink);
wireLearnButtons();
renderSeats();
setupTimerChoice();
renderMine();
loadTables();
setInterval(() => {
  if (document.visibilityState === "visible") loadTables();
}, 5000);
