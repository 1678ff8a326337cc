// The table page's keys, the terminal game's: 1–9 select tiles, p / e / s play a move,
// Enter the first move the selection allows, r + - aim a score, d u h w t ? Esc the rest.
//
// A key only clicks the page's own buttons (or changes the selection), so it does no
// more than a pointer could. The page's "Keys" help and the README list them.

import { letters } from "./board.js";
import { renderActions, renderMine, toggle } from "./tablemoves.js";
import { $, S, keepFocus, refocus, shownHand, view } from "./tablestate.js";

/** The terminal game's keys (the page's "Keys" help and the README list them). */
const MOVE_KEYS = { p: ["place"], e: ["exchange"], s: ["score", "pay"] };

function clickIf(el) {
  if (!el || el.disabled || el.hidden) return false;
  el.click();
  return true;
}

/** The first move button of these kinds that can be sent now. */
function moveButton(kinds) {
  return [...$("moves").querySelectorAll("button.move-btn")]
    .find((b) => kinds.includes(b.dataset.kind) && !b.disabled) || null;
}

/** r: aim a score at the next row with tiles (its last tile); + / −: one tile more or
 * fewer of that row. Phase 2 only, as the terminal game's keys. */
function aimKey(key) {
  const v = view();
  const me = v.players[S.seat];
  if (v.stage !== "play" || me.phase !== 2) return false;
  const rows = letters(v).filter((l) => (me.rows[l] || []).length);
  if (!rows.length) return false;
  const t = S.target && rows.includes(S.target.row) ? S.target : null;
  if (key === "r") {
    S.target = { row: t ? rows[(rows.indexOf(t.row) + 1) % rows.length] : rows[0], count: 1 };
  } else if (t) {
    const length = me.rows[t.row].length;
    S.target = { row: t.row, count: Math.min(Math.max(t.count + (key === "-" ? -1 : 1), 1), length) };
  } else {
    return false;
  }
  keepFocus(() => {
    renderMine();
    renderActions();
  });
  return true;
}

/** The page's keydown: the keys above, never while typing or in a dialog. */
export function onKey(ev) {
  const t = ev.target;
  if (ev.ctrlKey || ev.metaKey || ev.altKey || ev.isComposing) return;
  if (t instanceof HTMLInputElement || t instanceof HTMLTextAreaElement || t instanceof HTMLSelectElement) return;
  if (document.querySelector("dialog[open]")) return; // the dialog's own keys
  const key = ev.key.length === 1 ? ev.key.toLowerCase() : ev.key;
  if (key === "Escape") {
    if (S.selected.size || S.target) {
      S.selected.clear();
      S.target = null;
      keepFocus(() => {
        renderMine();
        renderActions();
      });
    }
    return;
  }
  if (key === "t") {
    $("tracker-box").open = !$("tracker-box").open;
    ev.preventDefault();
    return;
  }
  const v = view();
  if (!v || S.seat === null || $("game").hidden || v.stage === "over") return;
  if (key === "?") {
    $("keys-help").open = true;
    $("keys-help").querySelector("summary").focus();
    ev.preventDefault();
    return;
  }
  let done = false;
  if (/^[1-9]$/.test(key)) {
    const i = Number(key) - 1;
    if (i < shownHand().length) {
      toggle(i);
      done = true;
    }
  } else if (MOVE_KEYS[key]) {
    done = clickIf(moveButton(MOVE_KEYS[key]));
  } else if (key === "r" || key === "+" || key === "=" || key === "-") {
    done = aimKey(key);
  } else if (key === "d") {
    done = clickIf($("declare"));
  } else if (key === "u") {
    done = clickIf($("undo"));
  } else if (key === "h") {
    done = clickIf($("hint"));
  } else if (key === "w") {
    done = clickIf($("switch"));
  } else if (key === "Enter") {
    if (t instanceof HTMLButtonElement || t instanceof HTMLAnchorElement || (t && t.closest("summary"))) return;
    // the first move the selection allows (the top green button); keeping the whole hand
    // only when nothing is selected
    const kinds = ["mulligan", "place", "exchange", "score", "pay", "pass"];
    done = clickIf(moveButton(S.selected.size ? kinds : ["keep", ...kinds]));
  }
  if (done) {
    ev.preventDefault();
    refocus(true); // a key pressed with the focus nowhere: from now on it is in the hand
  }
}
