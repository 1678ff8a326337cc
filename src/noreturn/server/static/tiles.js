// Tiles as the player sees them, and the text form of actions (notation only, never rules).
//
// A tile shows its value, its colour letter AND a symbol per colour, so nobody needs to tell
// colours apart: R♥ O● Y★ G♣ B♦ P▲. A 6 and a 9 are underlined, like real tiles, so they are
// never confused when a tile is read upside down.

import { N_, _, ngettext } from "./i18n.js";

export const COLOURS = [
  { letter: "R", name: N_("red"), symbol: "♥" },
  { letter: "O", name: N_("orange"), symbol: "●" },
  { letter: "Y", name: N_("yellow"), symbol: "★" },
  { letter: "G", name: N_("green"), symbol: "♣" },
  { letter: "B", name: N_("blue"), symbol: "♦" },
  { letter: "P", name: N_("purple"), symbol: "▲" },
];

/** A colour's name in the page's language ("red", "Rot"), from its letter. */
export function colourName(letter) {
  const c = colour(letter);
  return c ? _(c.name) : letter;
}

const INDEX = Object.fromEntries(COLOURS.map((c, i) => [c.letter, i]));
const TILE_RE = /^([ROYGBP])(\d+)$/;

/** The colour record of a letter ("R"), or undefined. */
export function colour(letter) {
  return COLOURS[INDEX[letter]];
}

/** {code, letter, colour index, value} of a tile code such as "R11"; null if it is not one. */
export function parseTile(code) {
  const m = TILE_RE.exec(code);
  if (!m) return null;
  return { code, letter: m[1], index: INDEX[m[1]], value: Number(m[2]) };
}

/** "red 6": what a screen reader says for a tile. */
export function tileLabel(code) {
  const t = parseTile(code);
  return t ? `${colourName(t.letter)} ${t.value}` : code;
}

/** The order of tiles inside an action's text (the server's canonical order): descending. */
function canonicalOrder(a, b) {
  const x = parseTile(a), y = parseTile(b);
  return y.index - x.index || y.value - x.value;
}

/** A hand as shown: by colour (R O Y G B P), then highest value first, like a row. */
export function handOrder(codes) {
  return [...codes].sort((a, b) => {
    const x = parseTile(a), y = parseTile(b);
    return x.index - y.index || y.value - x.value;
  });
}

/** An action's text with its tiles in canonical order, so two spellings compare equal. */
export function canonicalAction(text) {
  const words = text.trim().split(/\s+/);
  const tiles = words.filter((w) => TILE_RE.test(w)).sort(canonicalOrder);
  let i = 0;
  return words.map((w) => (TILE_RE.test(w) ? tiles[i++] : w)).join(" ");
}

/** "place R5 R2" from a verb and tile codes (any order). */
export function actionText(verb, codes) {
  return [verb, ...[...codes].sort(canonicalOrder)].join(" ");
}

/** The tile codes written in an action's text (for score: the payment). */
export function tilesIn(text) {
  return text.trim().split(/\s+/).filter((w) => TILE_RE.test(w));
}

/** The sum of the values of some tile codes. */
export function valueSum(codes) {
  return codes.reduce((s, c) => s + (parseTile(c)?.value ?? 0), 0);
}

/**
 * One tile as an element: a <button> when `onClick` is given (a tap target), else a <span>.
 * opts: {size: "big" | "mini", selected, target, onClick, fkey, extraLabel}
 */
export function tileEl(code, opts = {}) {
  const t = parseTile(code);
  const interactive = typeof opts.onClick === "function";
  const el = document.createElement(interactive ? "button" : "span");
  el.className = `tile t-${t ? t.letter : "X"} ${opts.size === "mini" ? "mini" : "big"}`;
  el.dataset.code = code;
  const label = tileLabel(code) + (opts.extraLabel ? `, ${opts.extraLabel}` : "");
  if (interactive) {
    el.type = "button";
    el.setAttribute("aria-label", label);
    el.setAttribute("aria-pressed", opts.selected ? "true" : "false");
    el.addEventListener("click", opts.onClick);
    if (opts.fkey) el.dataset.fkey = opts.fkey;
  } else {
    el.setAttribute("role", "img");
    el.setAttribute("aria-label", label);
  }
  if (opts.selected) el.classList.add("selected");
  if (opts.target) el.classList.add("target");
  const mark = document.createElement("span");
  mark.className = "mark";
  mark.setAttribute("aria-hidden", "true");
  mark.textContent = t ? `${colour(t.letter).symbol}${t.letter}` : "?";
  const val = document.createElement("span");
  val.className = "val";
  val.setAttribute("aria-hidden", "true");
  val.textContent = t ? String(t.value) : code;
  if (t && (t.value === 6 || t.value === 9)) val.classList.add("u69");
  el.append(mark, val);
  return el;
}

/** A colour tag "♥R" (symbol and letter, in the colour), for row labels and texts. */
export function colourTag(letter) {
  const c = colour(letter);
  const el = document.createElement("span");
  el.className = `ctag t-${letter}`;
  el.textContent = `${c.symbol}${letter}`;
  el.title = colourName(letter);
  el.setAttribute("aria-label", colourName(letter));
  return el;
}

/** ``1 tile``, ``3 tiles`` in the page's language. */
export function tilesCount(count) {
  return ngettext("{n} tile", "{n} tiles", count);
}

const TILE_IN_TEXT = /(?<![A-Za-z0-9])([ROYGBP]\d+)(?![A-Za-z0-9])/g;

/**
 * An inline run of mini tiles for a text such as "place R5 R2" (the words kept as text).
 * Every tile code becomes a tile, wherever it stands: "(R6", "[R5][R4]" and "R4)," too.
 */
export function richText(text) {
  const frag = document.createDocumentFragment();
  let at = 0;
  for (const m of text.matchAll(TILE_IN_TEXT)) {
    if (m.index > at) frag.append(text.slice(at, m.index));
    frag.append(tileEl(m[1], { size: "mini" }));
    at = m.index + m[0].length;
  }
  if (at < text.length) frag.append(text.slice(at));
  return frag;
}

/** Create an element with attributes and children (a tiny helper for the pages). */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") el.className = v;
    else if (k === "text") el.textContent = v;
    else if (k.startsWith("on") && typeof v === "function") el.addEventListener(k.slice(2), v);
    else if (k === "dataset") Object.assign(el.dataset, v);
    else el.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : String(c));
  }
  return el;
}
