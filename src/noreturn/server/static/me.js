// My games: this browser's player key, its rating and its tables (no account, no password).

import { api } from "./api.js";
import { _, decimal, ngettext } from "./i18n.js";
import { isPlayerKey, playerKey, seatTokens, usePlayerKey } from "./player.js";
import { h } from "./tiles.js";

const $ = (id) => document.getElementById(id);
const enc = encodeURIComponent;
const OVER = new Set(["finished", "closed", "abandoned"]);

function showError(text) {
  $("errors").replaceChildren(h("div", { class: "error" }, h("span", { class: "error-text", text })));
}

function statusWord(status) {
  return {
    lobby: _("waiting to start"), playing: _("playing"), finished: _("finished"),
    closed: _("closed"), abandoned: _("abandoned"),
  }[status] || status;
}

function fixed(x) {
  return decimal(x, 1);
}

function renderRating(rating) {
  $("rating").replaceChildren(rating
    ? h("p", { class: "rating-line" },
      h("b", { class: "rating-value", text: fixed(rating.ordinal) }), " ",
      h("span", { text: ngettext("{name} · {n} rated game · mean {mu} ± {sigma}",
        "{name} · {n} rated games · mean {mu} ± {sigma}", rating.games,
        { name: rating.name, mu: fixed(rating.mu), sigma: fixed(rating.sigma) }) }))
    : h("p", { class: "muted", text: _("No rated game yet. Join a table from this browser (your seat link) and finish the game: your rating appears here and on the leaderboard.") }));
}

function resultLine(entry) {
  const { table, seat } = entry;
  if (!table.result) return null;
  const parts = [_("place {rank} of {n} · {score} points", {
    rank: table.result.ranks[seat], n: table.seats.length, score: table.result.scores[seat] })];
  if (entry.ordinal_after !== null) parts.push(_("rating after: {rating}", { rating: fixed(entry.ordinal_after) }));
  return h("div", { class: "my-result", text: parts.join(" · ") });
}

function gameItem(entry, tokens) {
  const { table, seat } = entry;
  const id = enc(table.id);
  const token = tokens[table.id];
  const actions = [];
  if (token && !OVER.has(table.status)) {
    actions.push(h("a", { class: "button primary", href: `/play/${id}#token=${enc(token)}` }, _("Play")));
  }
  if (OVER.has(table.status) || !token) {  // an open seat's Play above leads there already
    actions.push(h("a", { class: "button", href: token ? `/play/${id}#token=${enc(token)}` : `/watch/${id}` },
      OVER.has(table.status) ? _("Final table") : _("Watch")));
  }
  if (table.status === "finished") actions.push(h("a", { class: "button", href: `/replay/${id}` }, _("Replay")));
  if (table.rematch) {
    const next = enc(table.rematch);
    actions.push(h("a", { class: "button", href: token ? `/play/${next}#token=${enc(token)}&join=1` : `/watch/${next}` },
      token ? _("Play the rematch") : _("Watch the rematch")));
  }
  const names = table.seats.map((s) => (s.seat === seat
    ? h("b", { text: _("{name} (you)", { name: s.name }) })
    : h("span", { text: s.kind === "bot" ? _("{name} (bot)", { name: s.name }) : s.name })));
  return h("li", { class: "table-item", dataset: { id: table.id, status: table.status } },
    h("div", { class: "table-line" }, h("code", { text: table.id }),
      h("span", { class: `badge st-${table.status}`, text: statusWord(table.status) }),
      h("span", { class: "muted", text: new Date(table.created_at).toLocaleString() })),
    h("div", { class: "table-seats" }, ...names.flatMap((n, i) => (i ? [" · ", n] : [n]))),
    resultLine(entry),
    h("div", { class: "inline wrap" }, ...actions));
}

async function load() {
  const key = playerKey();
  if (!key) {
    showError(_("This browser does not keep data for this site (private mode or blocked storage), so it has no player key: your games are not kept."));
    return;
  }
  let mine;
  try {
    mine = await api("POST", "/api/me", { player_key: key });
  } catch (exc) {
    showError(_("Could not load your games: {reason}", { reason: exc.message }));
    return;
  }
  renderRating(mine.rating);
  const tokens = seatTokens();
  $("games").replaceChildren(...(mine.tables.length
    ? mine.tables.map((entry) => gameItem(entry, tokens))
    : [h("li", { class: "muted", text: _("No games yet: tables you join from this browser are listed here.") })]));
}

function renderKey() {
  const key = playerKey();
  const shown = h("input", { type: "text", readonly: true, class: "link-field", id: "key-field",
    "aria-label": _("Your player key"), value: key || "", onfocus: (ev) => ev.target.select() });
  const copy = h("button", { type: "button", onclick: async () => {
    try {
      await navigator.clipboard.writeText(shown.value);
      copy.textContent = _("Copied");
    } catch {
      shown.focus();
      copy.textContent = _("Press Ctrl+C");
    }
  } }, _("Copy"));
  const other = h("input", { type: "text", id: "key-input", autocomplete: "off",
    "aria-label": _("A player key from another device"), placeholder: _("paste a key") });
  const use = h("button", { type: "submit" }, _("Use this key"));
  const form = h("form", { class: "inline", onsubmit: (ev) => {
    ev.preventDefault();
    const text = other.value.trim();
    if (!isPlayerKey(text)) {
      showError(_("That is not a player key: it is 32 to 128 letters, digits, - and _ (copy it whole from the other device)."));
      return;
    }
    usePlayerKey(text);
    location.reload();
  } }, other, use);
  $("key-box").replaceChildren(
    h("p", { class: "muted", text: _("Instead of a password, this browser keeps a secret player key: the tables you join from here count for your games and your rating. Whoever has the key has your games, so keep it to yourself.") }),
    h("details", {}, h("summary", { text: _("Use your games on another device") }),
      h("p", { text: _("Copy this key into “My games” on the other device:") }),
      h("div", { class: "inline" }, shown, copy),
      h("p", { text: _("Or bring a key here (this browser's games so far stay with its old key):") }),
      form));
}

document.title = _("No Return · my games");
$("back").textContent = _("← Lobby");
$("page-title").textContent = _("My games");
$("board-link").textContent = _("Leaderboard");
$("rating-title").textContent = _("Your rating");
$("games-title").textContent = _("Your tables");
$("key-title").textContent = _("Your player key");
renderKey();
load();
