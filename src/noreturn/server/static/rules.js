// The rules page: every element with data-tiles="R11 R9" shows those tiles as tiles;
// "Learn to play" starts the guided first game (tutorial.js).

import { tileEl } from "/static/tiles.js";
import { wireLearnButtons } from "/static/tutorial.js";

for (const el of document.querySelectorAll("[data-tiles]")) {
  const size = el.classList.contains("tiles-line") ? "big" : "mini";
  el.replaceChildren(...el.dataset.tiles.split(/\s+/).map((code) => tileEl(code, { size })));
}

wireLearnButtons();
