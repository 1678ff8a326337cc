// The replay page: steps through a finished game (GET /api/tables/{id}/replay) with every
// hand shown (the game is over), and its review (GET /api/tables/{id}/review), asked for
// again every few seconds while the server is still making it.

import { api, detailText } from "./api.js";
import { playerPanel, scoresTable, stageText, turnNumber } from "./board.js";
import { reviewEl } from "./review.js";
import { _, lang, ngettext } from "./i18n.js";
import { h, handOrder, richText, tileEl, tilesCount } from "./tiles.js";

const REVIEW_POLL_MS = 3000;

const $ = (id) => document.getElementById(id);
const tableId = decodeURIComponent(location.pathname.split("/").filter(Boolean)[1] || "");
let data = null;
let step = 0;
let timer = null;

function showError(text, link) {
  $("errors").replaceChildren(h("div", { class: "error" }, h("span", { class: "error-text", text }),
    link ? h("a", { class: "button", href: link.href, text: link.text }) : null));
}

function show(i) {
  if (!data || !data.steps.length) return;
  step = Math.max(0, Math.min(data.steps.length - 1, i));
  const s = data.steps[step];
  const v = s.view;
  const names = data.names;
  $("slider").value = String(step);
  $("step-no").textContent = String(step + 1);
  $("step-log").replaceChildren(richText(s.log || ""));
  $("info").replaceChildren(h("b", { text: stageText(v, names) }), " · " + _("turn {n}", { n: turnNumber(v) }));
  $("players").replaceChildren(...v.players.map((_player, seat) => {
    const panel = playerPanel(v, seat, names);
    const hand = (s.hands || [])[seat] || [];
    panel.querySelector(".facts").after(h("div", { class: "replay-hand", role: "group",
      "aria-label": _("{name}'s hand: {tiles}", { name: names[seat] ?? _("seat {n}", { n: seat + 1 }), tiles: tilesCount(hand.length) }) },
      hand.length ? handOrder(hand).map((c) => tileEl(c, { size: "mini" }))
        : h("span", { class: "muted", text: _("empty hand") })));
    return panel;
  }));
  $("bag-line").textContent = ngettext("Bag: {n} tile", "Bag: {n} tiles", v.bag_count);
  $("scores").replaceChildren(scoresTable(v, names, null));
  const log = $("log");
  [...log.children].forEach((li, k) => {
    li.classList.toggle("current", k === step);
    li.classList.toggle("future", k > step);
    if (k === step) li.setAttribute("aria-current", "step");
    else li.removeAttribute("aria-current");
  });
  log.children[step]?.scrollIntoView({ block: "nearest" });
  $("prev").disabled = $("first").disabled = step === 0;
  $("next").disabled = $("last").disabled = step === data.steps.length - 1;
  document.body.dataset.step = String(step);
}

function togglePlay() {
  if (timer) {
    clearInterval(timer);
    timer = null;
    $("play").textContent = _("▶ Play");
    return;
  }
  if (step >= data.steps.length - 1) show(0);
  $("play").textContent = _("⏸ Pause");
  timer = setInterval(() => {
    if (step >= data.steps.length - 1) togglePlay();
    else show(step + 1);
  }, 900);
}

/** The step that shows the record's event ``index`` (the last step starting at or before it). */
function stepOfEvent(index) {
  let found = 0;
  data.steps.forEach((s, k) => {
    if ((s.event ?? 0) <= index) found = k;
  });
  return found;
}

function jumpToEvent(index) {
  show(stepOfEvent(index));
  $("step-log").scrollIntoView({ block: "nearest" });
  $("next").focus();
}

/** Ask for the review: shown when done, asked again while pending, else a line saying why. */
async function loadReview(id) {
  const status = $("review-status");
  let res = null;
  let body = null;
  try {
    res = await fetch(`/api/tables/${id}/review`, { headers: { "accept-language": lang } });
    body = await res.json().catch(() => null);
  } catch (exc) {
    status.textContent = _("The review could not be fetched ({error}); reload the page to try again.", { error: exc.message });
    return;
  }
  document.body.dataset.review = String(res.status);
  if (res.status === 200) {
    status.textContent = "";
    $("review-body").replaceChildren(reviewEl(body, data.names, jumpToEvent));
    return;
  }
  if (res.status === 202 || res.status === 503) {
    const pending = _("The game is being reviewed");
    status.textContent = _("{status} · checking again in a few seconds…", { status: detailText(body, pending) });
    setTimeout(() => loadReview(id), REVIEW_POLL_MS);
    return;
  }
  status.textContent = _("No review: {why}", { why: detailText(body, `${res.status} ${res.statusText}`) });
}

async function start() {
  $("table-id").textContent = tableId;
  const id = encodeURIComponent(tableId);
  $("record").href = `/api/tables/${id}/record`;
  $("record").setAttribute("download", `noreturn-${tableId}.json`);
  try {
    data = await api("GET", `/api/tables/${id}/replay?lang=${lang}`);
  } catch (exc) {
    $("record").hidden = true;
    if (exc.status === 409) {
      showError(_("This game is not finished yet, so it cannot be replayed ({why}).", { why: exc.message }),
        { href: `/watch/${id}`, text: _("Watch it live") });
    } else if (exc.status === 404) {
      showError(_("There is no table \"{id}\".", { id: tableId }));
    } else {
      showError(exc.message);
    }
    return;
  }
  $("slider").max = String(Math.max(0, data.steps.length - 1));
  $("step-count").textContent = String(data.steps.length);
  $("log").replaceChildren(...data.steps.map((s, k) => h("li", {},
    h("button", { type: "button", class: "linklike", onclick: () => show(k) }, richText(s.log || _("step {n}", { n: k + 1 }))))));
  $("first").addEventListener("click", () => show(0));
  $("prev").addEventListener("click", () => show(step - 1));
  $("next").addEventListener("click", () => show(step + 1));
  $("last").addEventListener("click", () => show(data.steps.length - 1));
  $("play").addEventListener("click", togglePlay);
  $("slider").addEventListener("input", (ev) => show(Number(ev.target.value)));
  document.addEventListener("keydown", (ev) => {
    if (ev.target === $("slider")) return; // the slider has its own keys
    const keys = { ArrowLeft: step - 1, ArrowRight: step + 1, Home: 0, End: data.steps.length - 1 };
    if (ev.key in keys) {
      ev.preventDefault();
      show(keys[ev.key]);
    }
  });
  show(0);
  $("review").hidden = false;
  loadReview(id);
}

start();
