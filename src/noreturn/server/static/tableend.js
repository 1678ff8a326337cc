// The end of the game: the winner, the score lines with their arithmetic, the record and
// the replay, and the rematch (asked for by a seated person, offered to every page after).
//
// A part of its own: only a finished table shows it, and the rematch is asked for over
// HTTP, not the socket, so nothing of the game's moves is needed here.

import { api } from "./api.js";
import { _ } from "./i18n.js";
import { h } from "./tiles.js";
import { $, S, mode, names, showError, tableId, token } from "./tablestate.js";

/** The end of the game, when it is over: who won, the score lines, the links. */
export function renderEnd() {
  const st = S.st;
  const end = $("end");
  const over = st.status === "finished" || st.view.stage === "over";
  end.hidden = !over;
  if (!over) return;
  const result = st.result;
  const n = names();
  if (result) {
    const winners = result.ranks.map((r, i) => (r === 1 ? n[i] : null)).filter(Boolean);
    const and = _(" and ");
    let text = winners.length === 1 ? _("{name} wins!", { name: winners[0] })
      : _("{names} share first place!", { names: winners.join(and) });
    if (S.seat !== null && result.ranks[S.seat] === 1) {
      text = winners.length === 1 ? _("You win!") : _("You share first place ({names}).", { names: winners.join(", ") });
    }
    $("end-winner").textContent = text;
    $("end-lines").replaceChildren(...result.lines.map((line) => h("li", { text: line })));
  } else {
    $("end-winner").textContent = _("The game is over.");
  }
  $("end-record").href = `/api/tables/${encodeURIComponent(tableId)}/record`;
  $("end-record").setAttribute("download", `noreturn-${tableId}.json`);
  $("end-replay").href = `/replay/${encodeURIComponent(tableId)}`;
  renderRematch();
  if (!S.endShown) {
    S.endShown = true;
    end.focus();
    end.scrollIntoView({ block: "start" });
  }
}

// -------------------------------------------------------------------- rematch
// After a game a seated person may ask for a rematch: a new table, the same seats, which
// this seat's token holds too. The finished table then points to it (`table.rematch`),
// and every page of it, a spectator's too, offers the way there.
function seated() {
  return S.seat !== null && mode === "play" && Boolean(token);
}

function renderRematch() {
  const next = (S.st && S.st.table && S.st.table.rematch) || (S.table && S.table.rematch);
  const go = $("rematch-go");
  const ask = $("rematch");
  go.hidden = !next;
  ask.hidden = Boolean(next) || !seated() || S.st.status !== "finished";
  ask.textContent = _("Rematch");
  if (!next) return;
  go.textContent = seated() ? _("Play the rematch") : _("Watch the rematch");
  go.href = seated()
    ? `/play/${encodeURIComponent(next)}#token=${encodeURIComponent(token)}&join=1`
    : `/watch/${encodeURIComponent(next)}`;
}

/** Ask for the rematch (a new table, the same seats) and go to it. */
export async function askRematch() {
  const ask = $("rematch");
  ask.disabled = true;
  try {
    const made = await api("POST", `/api/tables/${encodeURIComponent(tableId)}/rematch`, { token });
    location.href = `/play/${encodeURIComponent(made.id)}#token=${encodeURIComponent(token)}&join=1`;
  } catch (exc) {
    showError(_("No rematch: {reason}", { reason: exc.message }));
  } finally {
    ask.disabled = false;
  }
}
