// The page's words in the reader's language (English or German).
//
// Every sentence a page shows goes through `_()` (or `ngettext()` where a count decides
// the form), written in English with named blanks: `_("{name} passed", {name})`. The
// English text is the key of the translation (gettext's msgid); `pybabel extract` finds
// these calls in the scripts (babel.cfg), and the server sends the catalog of the chosen
// language from its compiled gettext files. The choice is the reader's switch (kept in
// this browser), else the server's pick from the browser's Accept-Language.

const STORE_KEY = "noreturn.lang";

function stored() {
  try {
    return localStorage.getItem(STORE_KEY) || "";
  } catch {
    return ""; // storage blocked: the browser's languages decide
  }
}

async function load(wanted) {
  const query = wanted ? `?lang=${encodeURIComponent(wanted)}` : "";
  try {
    const resp = await fetch(`/api/i18n${query}`);
    if (resp.ok) return await resp.json();
  } catch {
    // no catalog reachable: the page stays in English, its words still correct
  }
  return { lang: "en", languages: { en: "English" }, messages: {} };
}

const CATALOG = await load(stored());

/** The language the page is shown in ("en", "de"). */
export const lang = CATALOG.lang;

/** The languages on offer, code to own name ({en: "English", de: "Deutsch"}). */
export const languages = CATALOG.languages;

function fill(text, params) {
  if (!params) return text;
  return text.replace(/\{(\w+)\}/g, (whole, key) => (key in params ? String(params[key]) : whole));
}

/** `msgid` in the page's language, its `{blanks}` filled from `params`. */
export function _(msgid, params) {
  const found = CATALOG.messages[msgid];
  return fill(typeof found === "string" && found ? found : msgid, params);
}

/** The form for `n` of a counted phrase: ngettext("{n} tile", "{n} tiles", n, {n}). */
export function ngettext(singular, pluralForm, n, params) {
  const forms = CATALOG.messages[singular];
  let text = n === 1 ? singular : pluralForm;
  if (Array.isArray(forms)) {
    // German and English both have one form for 1 and one for every other count
    const chosen = forms[n === 1 ? 0 : 1];
    if (chosen) text = chosen;
  }
  return fill(text, { n, ...params });
}

/** Mark `msgid` for the catalog without translating it yet (a constant shown later
 * through `_()`). */
export function N_(msgid) {
  return msgid;
}

/** `x` with `digits` decimals as the page's language writes a number ("7,5" in German). */
export function decimal(x, digits = 1) {
  if (lang === "en") return Number(x).toFixed(digits);
  return Number(x).toLocaleString(lang, { minimumFractionDigits: digits, maximumFractionDigits: digits, useGrouping: false });
}

/** The bot levels' own words (the API's values are the keys). */
const LEVEL_WORDS = { easy: N_("easy"), medium: N_("medium"), hard: N_("hard"), expert: N_("expert") };

/** A bot level as a player reads it ("medium" is "mittel" in German); another spec as
 * it is. */
export function levelName(level) {
  return LEVEL_WORDS[level] ? _(LEVEL_WORDS[level]) : String(level);
}

/** Switch the page's language: remembered in this browser, applied by a reload. */
export function chooseLanguage(code) {
  try {
    localStorage.setItem(STORE_KEY, code);
  } catch {
    // storage blocked: the choice holds for this page only
  }
  location.reload();
}

/** Text as the catalog keys it: runs of white space one space, trimmed (as
 * noreturn.text.htmlwords reads the pages for the catalog). */
function normalized(text) {
  return text.replace(/\s+/g, " ").trim();
}

/** Translate the page's fixed words: the text of each element marked `data-i18n`, and
 * the attributes its `data-i18n-attrs` names ("aria-label title placeholder"). */
export function translatePage(root = document) {
  if (!Object.keys(CATALOG.messages).length) return; // English: the page is written so
  for (const el of root.querySelectorAll("[data-i18n]")) {
    const text = normalized(el.textContent);
    if (text) el.textContent = _(text);
  }
  for (const el of root.querySelectorAll("[data-i18n-attrs]")) {
    for (const name of el.dataset.i18nAttrs.split(/\s+/)) {
      const value = el.getAttribute(name);
      if (value) el.setAttribute(name, _(normalized(value)));
    }
  }
}

/** The language switch: a small select of the languages on offer, in `#lang-switch`. */
function languageSwitch() {
  const slot = document.getElementById("lang-switch");
  if (!slot) return;
  const select = document.createElement("select");
  select.id = "lang-select";
  select.setAttribute("aria-label", _("Language"));
  for (const [code, name] of Object.entries(languages)) {
    const option = document.createElement("option");
    option.value = code;
    option.textContent = name;
    option.selected = code === lang;
    select.append(option);
  }
  select.addEventListener("change", () => chooseLanguage(select.value));
  slot.replaceChildren(select);
}

document.documentElement.lang = lang;
translatePage();
languageSwitch();
