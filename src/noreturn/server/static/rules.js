// The rules page: in German, its body is rules.de.html's (a document is translated whole);
// then every element with data-tiles="R11 R9" shows those tiles as tiles, and "Learn to
// play" starts the guided first game (tutorial.js).

import { lang } from "./i18n.js";
import { tileEl } from "./tiles.js";
import { wireLearnButtons } from "./tutorial.js";

/** The body in the page's language, when it is not the English one written here. */
async function translatedBody() {
  if (lang !== "de") return;
  try {
    const resp = await fetch("/static/rules.de.html");
    if (!resp.ok) return;
    const doc = new DOMParser().parseFromString(await resp.text(), "text/html");
    const main = doc.querySelector("main");
    if (main) document.querySelector("main").replaceWith(document.adoptNode(main));
  } catch {
    // the English rules stay: better than none
  }
}

wireLearnButtons(document.querySelector("header")); // at once: the body may take a moment
await translatedBody();
for (const el of document.querySelectorAll("[data-tiles]")) {
  const size = el.classList.contains("tiles-line") ? "big" : "mini";
  el.replaceChildren(...el.dataset.tiles.split(/\s+/).map((code) => tileEl(code, { size })));
}
wireLearnButtons(document.querySelector("main"));
document.body.dataset.ready = "1";
