// The leaderboard: players by rating (openskill's ordinal, mu - 3 sigma), best first.

import { api } from "./api.js";
import { _, decimal, ngettext } from "./i18n.js";
import { playerKey } from "./player.js";
import { h } from "./tiles.js";

const $ = (id) => document.getElementById(id);

function showError(text) {
  $("errors").replaceChildren(h("div", { class: "error" }, h("span", { class: "error-text", text })));
}

function fixed(x) {
  return decimal(x, 1);
}

/** This browser's own line, if it is on the board: its name, rating and games match. */
async function myRating() {
  const key = playerKey();
  if (!key) return null;
  try {
    return (await api("POST", "/api/me", { player_key: key, limit: 1 })).rating;
  } catch {
    return null; // the board is shown all the same
  }
}

function same(line, mine) {
  return mine && line.kind === "human" && line.name === mine.name
    && line.ordinal === mine.ordinal && line.games === mine.games;
}

async function load() {
  const min = Number($("min-games").value);
  $("board-help").textContent = ngettext(
    "Players with at least {n} rated game. A rating is a cautious estimate of skill (openskill: mean minus three deviations); it starts at 0 and settles as you play. Bots are rated by level.",
    "Players with at least {n} rated games. A rating is a cautious estimate of skill (openskill: mean minus three deviations); it starts at 0 and settles as you play. Bots are rated by level.",
    min);
  let lines;
  try {
    lines = await api("GET", `/api/leaderboard?min_games=${min}`);
  } catch (exc) {
    showError(_("Could not load the leaderboard: {reason}", { reason: exc.message }));
    return;
  }
  const mine = await myRating();
  const table = $("board");
  if (!lines.length) {
    table.replaceChildren(h("caption", { class: "muted",
      text: ngettext("Nobody has {n} rated game yet: finish a game at a table you joined to be rated.",
        "Nobody has {n} rated games yet: finish a game at a table you joined to be rated.", min) }));
    return;
  }
  table.replaceChildren(
    h("thead", {}, h("tr", {},
      h("th", { scope: "col", text: _("Rank") }), h("th", { scope: "col", text: _("Player") }),
      h("th", { scope: "col", class: "num", text: _("Rating") }),
      h("th", { scope: "col", class: "num", text: _("Games") }))),
    h("tbody", {}, ...lines.map((line) => h("tr", { class: same(line, mine) ? "me" : null,
      dataset: { kind: line.kind } },
    h("td", { text: String(line.rank) }),
    h("th", { scope: "row" }, h("span", { class: "board-name", text: line.name }),
      line.kind === "bot" ? h("span", { class: "badge", text: _("bot") }) : null,
      same(line, mine) ? h("span", { class: "badge seat", text: _("you") }) : null),
    h("td", { class: "num", title: _("mean {mu} ± {sigma}", { mu: fixed(line.mu), sigma: fixed(line.sigma) }),
      text: fixed(line.ordinal) }),
    h("td", { class: "num", text: String(line.games) })))));
}

document.title = _("No Return · leaderboard");
$("back").textContent = _("← Lobby");
$("page-title").textContent = _("Leaderboard");
$("me-link").textContent = _("My games");
$("board-title").textContent = _("Best players");
$("min-label").textContent = _("At least");
$("min-games").setAttribute("aria-label", _("Rated games at least"));
$("min-games").addEventListener("change", load);
load();
