// "Your turn", told where a player looks: the tab's title and icon, and, if they switch
// them on, a short tone and a browser notification.
//
// The title and the icon always change (they cost nothing and need no permission): a
// player with many tabs, or on a slow table played over days, sees at a glance where it
// is their turn. The tone (Web Audio: no sound file) and the notification are off until
// the player switches them on; the choice is remembered in this browser. Permission for
// notifications is asked only when the player switches them on, and a notification is
// shown only while the page is hidden (a visible page has its title and badge).

import { _ } from "./i18n.js";

const SOUND_KEY = "noreturn.turnSound";
const NOTIFY_KEY = "noreturn.turnNotify";

function remembered(key) {
  try {
    return localStorage.getItem(key) === "1";
  } catch {
    return false; // storage blocked: off, as by default
  }
}

function remember(key, on) {
  try {
    localStorage.setItem(key, on ? "1" : "0");
  } catch {
    // storage blocked: the choice holds for this page only
  }
}

/** An icon as an SVG data URL (the page's policy allows data: images): a dark tile, with
 * a bright dot while it is the reader's turn. */
function icon(turn) {
  const dot = turn ? '<circle cx="48" cy="16" r="14" fill="#e4572e" stroke="#fff" stroke-width="3"/>' : "";
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64">`
    + `<rect x="6" y="10" width="44" height="50" rx="8" fill="${turn ? "#1f6f43" : "#555"}"/>`
    + `<text x="28" y="47" font-size="30" font-family="sans-serif" text-anchor="middle" fill="#fff">N</text>`
    + `${dot}</svg>`;
  return `data:image/svg+xml,${encodeURIComponent(svg)}`;
}

const state = { turn: null, base: document.title, sound: remembered(SOUND_KEY),
  notify: remembered(NOTIFY_KEY), audio: null, shown: null };

function setIcon(turn) {
  let link = document.querySelector("link[rel='icon']");
  if (!link) {
    link = document.createElement("link");
    link.rel = "icon";
    document.head.append(link);
  }
  link.href = icon(turn);
  link.dataset.turn = turn ? "1" : "0";
}

/** A short two-note tone (about a quarter of a second, quiet). */
function tone() {
  const Ctx = window.AudioContext || window.webkitAudioContext;
  if (!Ctx) return;
  if (!state.audio) state.audio = new Ctx();
  const ctx = state.audio;
  if (ctx.state === "suspended") ctx.resume();
  const start = ctx.currentTime;
  for (const [k, freq] of [[0, 660], [1, 880]]) {
    const osc = ctx.createOscillator();
    const gain = ctx.createGain();
    osc.type = "sine";
    osc.frequency.value = freq;
    gain.gain.setValueAtTime(0.0001, start + k * 0.12);
    gain.gain.exponentialRampToValueAtTime(0.15, start + k * 0.12 + 0.02);
    gain.gain.exponentialRampToValueAtTime(0.0001, start + k * 0.12 + 0.11);
    osc.connect(gain).connect(ctx.destination);
    osc.start(start + k * 0.12);
    osc.stop(start + k * 0.12 + 0.12);
  }
}

function notifyNow(text) {
  if (!state.notify || !document.hidden || !("Notification" in window)) return;
  if (Notification.permission !== "granted") return;
  try {
    state.shown = new Notification(_("No Return"), { body: text, tag: "noreturn-turn" });
    state.shown.onclick = () => {
      window.focus();
      state.shown.close();
    };
  } catch {
    // some browsers allow notifications from service workers only: the title still tells
  }
}

/** Base title of the page (shown when it is not the reader's turn). */
export function setBaseTitle(title) {
  state.base = title;
  if (!state.turn) document.title = title;
}

/** Call after every render: `turn` is whether it is the reader's turn now; `text` says
 * what to do (for the notification). A new turn plays the tone and notifies, once. */
export function turnAlert(turn, text) {
  const was = state.turn;
  state.turn = turn;
  document.title = turn ? _("● Your turn · No Return") : state.base;
  document.body.dataset.titleTurn = turn ? "1" : "0";
  if (was !== turn) setIcon(turn);
  if (turn && was === false) {
    if (state.sound) tone();
    notifyNow(text || _("It is your turn."));
  }
  if (!turn && state.shown) {
    state.shown.close();
    state.shown = null;
  }
}

async function switchNotify(box, note) {
  if (!box.checked) {
    state.notify = false;
    remember(NOTIFY_KEY, false);
    note.textContent = "";
    return;
  }
  if (!("Notification" in window)) {
    box.checked = false;
    note.textContent = _("This browser shows no notifications: the tab's title tells you instead.");
    return;
  }
  let permission = Notification.permission;
  if (permission === "default") permission = await Notification.requestPermission();
  state.notify = permission === "granted";
  box.checked = state.notify;
  remember(NOTIFY_KEY, state.notify);
  note.textContent = state.notify ? ""
    : _("Notifications are blocked for this site: allow them in the browser's site settings, then switch this on again.");
}

/** The two switches (sound, notification), made inside `container`. */
export function setupTurnAlerts(container) {
  const sound = document.createElement("input");
  sound.type = "checkbox";
  sound.id = "turn-sound";
  sound.checked = state.sound;
  const notify = document.createElement("input");
  notify.type = "checkbox";
  notify.id = "turn-notify";
  notify.checked = state.notify && "Notification" in window && Notification.permission === "granted";
  const note = document.createElement("p");
  note.className = "muted";
  note.id = "turn-alert-note";
  note.setAttribute("aria-live", "polite");
  const label = (input, text) => {
    const el = document.createElement("label");
    el.className = "switch-line";
    el.append(input, ` ${text}`);
    return el;
  };
  sound.addEventListener("change", () => {
    state.sound = sound.checked;
    remember(SOUND_KEY, sound.checked);
    if (sound.checked) tone(); // the click allows audio, and the player hears what it is
  });
  notify.addEventListener("change", () => switchNotify(notify, note));
  container.replaceChildren(label(sound, _("Sound on my turn")),
    label(notify, _("Notify me on my turn when this tab is hidden")), note);
}
