// HTTP calls to the server's JSON API, with errors turned into readable messages.

import { _, lang } from "./i18n.js";

/** A readable line from an error body: `{"detail": "..."}` or FastAPI's 422 list. */
export function detailText(data, fallback) {
  const d = data && data.detail;
  if (typeof d === "string") return d;
  if (Array.isArray(d)) {
    return d.map((e) => `${(e.loc || []).filter((x) => x !== "body").join(".")}: ${e.msg}`)
      .join("; ");
  }
  return fallback;
}

/** Call the API; resolves to the JSON answer, rejects with an Error saying what is wrong
 * (the server writes it in the page's language, sent as Accept-Language). */
export async function api(method, path, body) {
  let res;
  try {
    res = await fetch(path, {
      method,
      headers: body === undefined
        ? { "accept-language": lang }
        : { "accept-language": lang, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (exc) {
    throw new Error(_("cannot reach the server ({error}); check your connection", { error: exc.message }));
  }
  let data = null;
  try {
    data = await res.json();
  } catch {
    data = null;
  }
  if (!res.ok) {
    const err = new Error(detailText(data, `${res.status} ${res.statusText}`));
    err.status = res.status;
    throw err;
  }
  return data;
}

/** The tables this browser created, with their seat links (kept in localStorage). */
export function myTables() {
  try {
    return JSON.parse(localStorage.getItem("noreturn.tables") || "[]");
  } catch {
    return [];
  }
}

/** Remember a created table and its seat links, newest first (at most 20). */
export function rememberTable(entry) {
  const all = [entry, ...myTables().filter((t) => t.id !== entry.id)].slice(0, 20);
  try {
    localStorage.setItem("noreturn.tables", JSON.stringify(all));
  } catch {
    /* private mode: nothing kept, nothing lost but convenience */
  }
}

/** Forget a table from this browser's list. */
export function forgetTable(id) {
  try {
    localStorage.setItem("noreturn.tables", JSON.stringify(myTables().filter((t) => t.id !== id)));
  } catch {
    /* ignore */
  }
}
