// The player key: this browser's secret instead of an account (no passwords).
//
// Made once at random (32 bytes from the browser's cryptographic generator, as URL-safe
// base64: 43 characters) and kept in localStorage. The table page sends it when it joins
// or starts a seat, so the server can tie the seats this browser played to one person: a
// history of their tables and a rating across them (/me, /leaderboard). The server keeps
// only its SHA-256. Whoever has the key has the history, so it is shown only on request
// (on /me, to carry it to another device).

const KEY_STORE = "noreturn.playerKey";
const SEATS_STORE = "noreturn.seats";
const KEY_FORM = /^[A-Za-z0-9_-]{32,128}$/;

function fresh() {
  const bytes = new Uint8Array(32);
  crypto.getRandomValues(bytes);
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** Whether `text` has the form of a player key (what the server accepts). */
export function isPlayerKey(text) {
  return typeof text === "string" && KEY_FORM.test(text);
}

/** This browser's player key, made now if there is none; null when storage is blocked
 * (a key that would be lost at once would only scatter a person's games). */
export function playerKey() {
  try {
    let key = localStorage.getItem(KEY_STORE);
    if (!isPlayerKey(key)) {
      key = fresh();
      localStorage.setItem(KEY_STORE, key);
    }
    return localStorage.getItem(KEY_STORE) === key ? key : null;
  } catch {
    return null;
  }
}

/** Use `key` (brought from another device) from now on; false if it is not a key. */
export function usePlayerKey(key) {
  if (!isPlayerKey(key)) return false;
  try {
    localStorage.setItem(KEY_STORE, key);
    return true;
  } catch {
    return false;
  }
}

/** The seat tokens this browser opened, by table id (so "My games" can link back). */
export function seatTokens() {
  try {
    const stored = JSON.parse(localStorage.getItem(SEATS_STORE) || "{}");
    return stored && typeof stored === "object" ? stored : {};
  } catch {
    return {};
  }
}

/** Remember the token of a seat this browser opened (the newest 100 tables). */
export function rememberSeat(tableId, token) {
  if (!tableId || !token) return;
  const all = Object.entries(seatTokens()).filter(([id]) => id !== tableId);
  all.push([tableId, token]);
  try {
    localStorage.setItem(SEATS_STORE, JSON.stringify(Object.fromEntries(all.slice(-100))));
  } catch {
    /* storage blocked: the link itself still works */
  }
}
