// The table itself, drawn from a view (the JSON of docs/server-protocol.md): players with
// their rows, piles, phases, hand counts and scores. Shared by the table and the replay page.

import { _, ngettext } from "./i18n.js";
import { colourName, COLOURS, colourTag, h, tileEl, tilesCount, valueSum } from "./tiles.js";

/** The letters of the variant's colours, in order. */
export function letters(view) {
  return COLOURS.slice(0, view.rules.colors).map((c) => c.letter);
}

/** "phase 1 · placing" / "phase 2 · scoring". */
export function phaseText(phase) {
  return phase === 2 ? _("phase 2 · scoring") : _("phase 1 · placing");
}

/** Why a score is what it is (a tooltip): tiles in rows count against their owner. */
export function scoreWhy() {
  return _("score now = pile − rows: tiles still in your rows count against you until you score them");
}

/** What an empty row means: never started (phase 1), scored away, or never placed. */
function emptyRowText(p, letter) {
  if (p.pile.some((code) => code.startsWith(letter))) return _("row scored");
  return p.phase === 2 ? _("no row (none placed)") : _("no row yet");
}

/** What the table is doing, in words. */
export function stageText(view, names) {
  const who = names[view.to_move] ?? _("seat {n}", { n: view.to_move + 1 });
  switch (view.stage) {
    case "deal":
      return _("dealing");
    case "mulligan":
      return _("mulligan: {name} chooses", { name: who });
    case "over":
      return _("game over");
    default:
      return view.ending ? _("{name} to move · last round", { name: who })
        : _("{name} to move", { name: who });
  }
}

/**
 * The rows of one seat. opts.onTile(letter, index) makes tiles tappable (to aim a SCORE);
 * opts.target = {row, count} marks the row tail aimed at; opts.showEmpty lists empty rows.
 */
export function rowsEl(view, seat, opts = {}) {
  const p = view.players[seat];
  const wrap = h("div", { class: "rows" });
  let any = false;
  for (const letter of letters(view)) {
    const row = p.rows[letter] || [];
    if (!row.length && !opts.showEmpty) continue;
    any = any || row.length > 0;
    const line = h("div", { class: `row${row.length ? "" : " empty"}`, dataset: { row: letter } });
    const tag = colourTag(letter);
    const said = row.length ? `${tilesCount(row.length)} = ${valueSum(row)}` : emptyRowText(p, letter);
    tag.setAttribute("role", "img");
    tag.setAttribute("aria-label", row.length
      ? _("{colour} row: {said}", { colour: colourName(letter), said })
      : _("{colour} row: empty, {said}", { colour: colourName(letter), said }));
    line.append(tag);
    const tiles = h("div", { class: "row-tiles" });
    row.forEach((code, i) => {
      const aimed = opts.target && opts.target.row === letter && i >= row.length - opts.target.count;
      const tileOpts = { size: opts.onTile ? "big" : "mini", target: aimed };
      if (opts.onTile) {
        tileOpts.onClick = () => opts.onTile(letter, i);
        tileOpts.fkey = `row-${letter}-${i}`;
        tileOpts.selected = aimed;
        tileOpts.extraLabel = _("score the last {n} of this row", { n: row.length - i });
      }
      tiles.append(tileEl(code, tileOpts));
    });
    if (!row.length) tiles.append(h("span", { class: "muted", "aria-hidden": "true", text: said }));
    else if (opts.sums) tiles.append(h("span", { class: "rowsum", "aria-hidden": "true", text: `= ${valueSum(row)}` }));
    line.append(tiles);
    wrap.append(line);
  }
  if (!any && !opts.showEmpty) {
    const none = p.phase === 2 ? (p.pile.length ? _("all rows scored") : _("no rows")) : _("no rows yet");
    wrap.append(h("p", { class: "muted", text: none }));
  }
  return wrap;
}

/** A pile or the paid tiles: "pile 3 tiles = 17" with the tiles in a details element. */
function tileHeap(label, codes) {
  if (!codes.length) return h("span", { class: "heap muted", text: _("{label}: none", { label }) });
  const d = h("details", { class: "heap" });
  d.append(h("summary", { text: `${label}: ${tilesCount(codes.length)} = ${valueSum(codes)}` }));
  const list = h("div", { class: "heap-tiles" });
  for (const c of codes) list.append(tileEl(c, { size: "mini" }));
  d.append(list);
  return d;
}

/** One player's panel: name, badges (to move, phase), counts, score, rows, pile, paid. */
export function playerPanel(view, seat, names, opts = {}) {
  const p = view.players[seat];
  const moving = view.stage !== "over" && view.to_move === seat;
  const panel = h("section", {
    class: `player${moving ? " moving" : ""}${opts.me ? " me" : ""}`,
    "aria-label": opts.me ? _("{name} (you)", { name: names[seat] }) : names[seat],
    dataset: { seat: String(seat) },
  });
  const head = h("div", { class: "player-head" },
    h("h3", { class: "pname" }, opts.me ? _("{name} (you)", { name: names[seat] ?? _("seat {n}", { n: seat + 1 }) })
      : names[seat] ?? _("seat {n}", { n: seat + 1 })),
    moving ? h("span", { class: "badge moving-badge", text: _("▶ to move") }) : null,
    h("span", { class: `badge phase phase${p.phase}`, text: phaseText(p.phase) }),
  );
  const facts = h("div", { class: "facts" },
    h("span", { class: "fact" }, _("hand") + " ", h("b", { text: String(p.hand_count) })),
    h("span", { class: "fact", title: scoreWhy() }, _("score now") + " ", h("b", { class: "score", text: String(p.score) })),
    h("span", { class: "fact" }, _("exchanged") + " ", h("b", { text: String(p.exchanged_count) })),
    p.mulligan_count === null ? null
      : h("span", { class: "fact" }, _("mulligan") + " ", h("b", { text: String(p.mulligan_count) })),
  );
  panel.append(head, facts);
  if (!opts.noRows) panel.append(rowsEl(view, seat, { sums: true }));
  panel.append(h("div", { class: "heaps" }, tileHeap(_("pile"), p.pile), tileHeap(_("paid"), p.paid)));
  return panel;
}

/** The scores so far (the final ones once the game is over), as a small table (rank order
 * is the server's business: seat order). */
export function scoresTable(view, names, me) {
  const t = h("table", { class: "scores" });
  t.append(h("caption", { text: view.stage === "over" ? _("Final scores (pile − rows)")
    : _("Scores so far (pile − rows: tiles in rows count against you until scored)") }));
  t.append(h("thead", {}, h("tr", {},
    h("th", { scope: "col", text: _("player") }), h("th", { scope: "col", text: _("phase") }),
    h("th", { scope: "col", text: _("pile") }), h("th", { scope: "col", text: _("points") }))));
  const body = h("tbody");
  view.players.forEach((p, seat) => {
    body.append(h("tr", { class: seat === me ? "me" : null },
      h("th", { scope: "row", text: names[seat] ?? _("seat {n}", { n: seat + 1 }) }),
      h("td", { text: String(p.phase) }),
      h("td", { text: String(valueSum(p.pile)) }),
      h("td", { class: "score", text: String(p.score) })));
  });
  t.append(body);
  return t;
}

/** The tile tracker: how many of each tile are unseen (from the server's `unseen` counts). */
export function trackerEl(view, unseen) {
  const wrap = h("div", { class: "tracker" });
  const total = Object.values(unseen).reduce((a, b) => a + b, 0);
  wrap.append(h("p", { class: "tracker-total" }, ngettext(
    "{n} tile unseen (in the bag, in other hands or exchanged face down), {bag} in the bag",
    "{n} tiles unseen (in the bag, in other hands or exchanged face down), {bag} in the bag",
    total, { bag: view.bag_count })));
  const t = h("table", { class: "tracker-grid" });
  const head = h("tr", {}, h("th", { scope: "col" }, h("span", { class: "sr", text: _("colour") })));
  for (let v = 1; v <= view.rules.max_value; v++) {
    head.append(h("th", { scope: "col", class: v === 6 || v === 9 ? "u69" : null, text: String(v) }));
  }
  t.append(h("thead", {}, head));
  const body = h("tbody");
  for (const letter of letters(view)) {
    const tr = h("tr", {}, h("th", { scope: "row" }, colourTag(letter)));
    for (let v = 1; v <= view.rules.max_value; v++) {
      const n = unseen[`${letter}${v}`] || 0;
      tr.append(h("td", {
        class: n ? `t-${letter} n${Math.min(n, 3)}` : "zero",
        "aria-label": _("{colour} {value}: {n} unseen", { colour: colourName(letter), value: v, n }),
        text: n ? String(n) : "·",
      }));
    }
    body.append(tr);
  }
  t.append(body);
  wrap.append(t);
  return wrap;
}

/**
 * Unseen tiles by code when the server sent none: every tile of the set minus the tiles this
 * view shows (own hand, own removed tiles, rows, piles, paid). Plain counting, no rule.
 */
export function countUnseen(view) {
  const left = {};
  for (const letter of letters(view)) {
    for (let v = 1; v <= view.rules.max_value; v++) left[`${letter}${v}`] = view.rules.copies;
  }
  const seen = [...(view.hand || []), ...(view.own_exchanged || [])];
  if (view.stage === "mulligan" && view.own_mulligan) seen.push(...view.own_mulligan);
  for (const p of view.players) {
    for (const row of Object.values(p.rows)) seen.push(...row);
    seen.push(...p.pile, ...p.paid);
  }
  for (const c of seen) if (left[c]) left[c] -= 1;
  for (const k of Object.keys(left)) if (!left[k]) delete left[k];
  return left;
}

/** The turn under way, counted from 1 as the terminal game counts it (`turns` is the
 * turns completed); once the game is over, the number of turns it had. */
export function turnNumber(v) {
  return v.stage === "over" ? v.turns : v.turns + 1;
}
