// The guided first game in the browser: lessons at their moments, and the way to start it.
//
// "Learn to play" (the lobby, the rules page) asks the server for a tutorial table
// (POST /api/tutorial): the newcomer against the easy bot on the prepared deal that the
// terminal's tutorial teaches on, already started. Its seat link ends in `&tutorial=1`;
// the table page then hands every server message to `tutor()`, which shows each lesson
// once, when the game reaches its moment, judged from the seat's view and the hinted move
// (asked of the server on each of our turns, like the Hint button does). The lessons follow
// the game, not a script: a newcomer may play as they like. The panel sits in the page
// beside the hand and the moves, so it never blocks a move; "Got it" (or Esc) closes it.

import { api, rememberTable } from "./api.js";
import { _ } from "./i18n.js";
import { canonicalAction, h, tilesIn } from "./tiles.js";

const MARK = "tutorial";
const OFF = "off"; // kept with the lessons taught: the person asked for no more

function rowCount(c) {
  return Object.values(c.me.rows).filter((row) => row.length).length;
}

function inPhase(c, phase) {
  return c.view.stage === "play" && c.me.phase === phase;
}

/** The page's button and box names as its other scripts and pages write them, for the
 * lessons' blanks: one word for one button, in every language. */
function labels() {
  return {
    keep: _("Keep my whole hand"), select: _("Select it"), play: _("Play it"),
    rules: _("Rules"), place: _("Place"), exchange: _("Exchange"), table: _("Table"),
    switch: _("When to switch?"), declare: _("Declare phase 2…"),
  };
}

// Each lesson: a key (kept once taught), its words (paragraphs, a list as an array), and
// whether its moment has come, from the context {view, me, bot, hinted}. The same moments
// as the terminal's tutorial (src/noreturn/tui/tutorial.py), in the page's words.
const LESSONS = [
  {
    key: "mulligan",
    title: () => _("Welcome: the mulligan"),
    body: (c) => [
      _("You play against {bot}, an easy bot. Before the first turn you may set aside any of your 8 tiles, once, and draw as many new ones. Low tiles (1–4) start no row and pay little: tap them in your hand to select them, then press the button that sets them aside. Or press “{keep}” to keep them all.", { ...labels(), bot: c.bot }),
      _("On each of your turns a suggestion under the moves shows a good move, and its tiles are marked in gold in your hand: “{select}” picks them, “{play}” plays it. Follow it or play as you like; “{rules}” at the top opens the rules.", labels()),
      { keys: _("By keyboard: the keys 1 to 8 select tiles, Enter plays the first move the selection allows, and ? lists every key.") },
    ],
    due: (c) => c.view.stage === "mulligan",
  },
  {
    key: "place",
    title: () => _("Phase 1: building rows"),
    body: () => [
      _("Each turn you either place tiles or exchange them. You place tiles of one colour in your row of that colour (one row per colour). A row runs downwards: each tile must be no higher than the lowest one already in it (equal is fine). Start rows high, with 9s to 11s."),
      _("Tap tiles of one colour in your hand, then press “{place}”. After your move you draw back up to 8 tiles.", labels()),
    ],
    due: (c) => inPhase(c, 1),
  },
  {
    key: "rows",
    title: () => _("Your rows count against you, for now"),
    body: (c) => {
      const now = _("score now {score}", { score: c.me.score }); // the badge's words
      return [_("Your rows are public, and until you score them their tiles count against you: that is why “{now}” beside your name is negative. Once scored in phase 2 they count for you, a swing of twice their value. So build only what you can score in time.", { now })];
    },
    due: (c) => inPhase(c, 1) && rowCount(c) >= 2,
  },
  {
    key: "exchange",
    title: () => _("Exchanging"),
    body: () => [
      _("Nothing worth placing? Exchange: tap 1 to 4 tiles that fit no row, then press “{exchange}”. They leave the game and you draw as many.", labels()),
      _("Careful: the bag is the clock. Every tile drawn, by anyone, brings the end nearer."),
    ],
    due: (c) => inPhase(c, 1) && c.hinted.startsWith("exchange"),
  },
  {
    key: "clock",
    title: () => _("When to switch?"),
    body: () => [
      _("When a draw empties the bag, the round is played to its end and the game is over (sooner, once everyone is in phase 2 with empty rows). In phase 2 you score one row tail a turn, so your rows need several turns to score."),
      _("Watch the bag in the “{table}” box. The “{switch}” button weighs declaring now against waiting, and the suggestion says how many turns are left and how many your rows need.", labels()),
    ],
    due: (c) => inPhase(c, 1) && rowCount(c) >= 3 && c.view.bag_count < 75,
  },
  {
    key: "declare",
    title: () => _("Declaring: no return"),
    body: () => [
      _("Now your rows need most of the turns that are left (the hint keeps a few spare: a tile left in a row counts against you). Press “{declare}” (or “{play}” on the suggestion) and confirm to switch to phase 2. It is for good, there is no return, and this same turn goes on with a score.", labels()),
    ],
    due: (c) => c.hinted === "declare",
  },
  {
    key: "score",
    title: () => _("Phase 2: scoring"),
    body: () => [
      _("Score the lowest tiles of one row: tap a tile in one of your rows, and it and every tile after it are aimed at (tap another tile to aim at more or fewer)."),
      _("Pay with hand tiles of ONE colour, any colour, whose values add up to at least the aimed tiles' sum; overpaying is allowed. Tap the payment in your hand and press the score button, or take one of the payments offered. Paid tiles leave the game; scored ones go to your pile."),
    ],
    due: (c) => inPhase(c, 2),
  },
];

const END = {
  key: "end",
  title: () => _("That is the game"),
  body: () => [
    _("Score = your score pile minus the tiles left in your rows. Three tips for the next game:"),
    [
      _("start rows high and go down in small steps;"),
      _("declare a little early rather than late: a tile left in a row counts against you instead of for you, a swing of twice its value;"),
      _("pay with the colour you hold most of, and let the rest of that colour go with it: the refill brings fresh tiles at no cost of a turn."),
    ],
    _("Next: create a table in the lobby against the medium bot, and against the hard one once you beat it."),
  ],
};

/** The lessons' keys in the order they come (the end last), for tests and curious players. */
export const LESSON_KEYS = [...LESSONS.map((l) => l.key), END.key];

// ------------------------------------------------------------------ starting it
/** Ask for a tutorial table and open it (the lesson marker is in the link the server
 * gives). On failure the reason is shown beside `button`. */
export async function startTutorial(button) {
  const was = button.textContent;
  button.disabled = true;
  button.textContent = _("Dealing…");
  try {
    const made = await api("POST", "/api/tutorial", {});  // the server's name for a newcomer
    const [seat] = made.seat_links;
    rememberTable({
      id: made.table.id,
      created_at: made.table.created_at,
      seats: made.table.seats.map((s) => ({ seat: s.seat, name: s.name, kind: s.kind, level: s.level })),
      links: [{ seat: seat.seat, name: seat.name, link: seat.link }],
      spectator_link: made.spectator_link,
    });
    location.href = seat.link;
  } catch (exc) {
    button.disabled = false;
    button.textContent = was;
    const note = button.parentElement.querySelector(".learn-error")
      || h("p", { class: "learn-error", role: "alert" });
    note.textContent = _("Could not start the tutorial: {reason}", { reason: exc.message });
    button.after(note);
  }
}

/** Every `[data-learn]` button in `root` starts the tutorial. */
export function wireLearnButtons(root = document) {
  for (const button of root.querySelectorAll("[data-learn]")) {
    button.addEventListener("click", () => startTutorial(button));
  }
}

// ------------------------------------------------------------------- the lessons
function storeKey(tableId) {
  return `noreturn.tutorial.${tableId}`;
}

function loadTaught(tableId) {
  try {
    return new Set(JSON.parse(localStorage.getItem(storeKey(tableId)) || "[]"));
  } catch {
    return new Set();
  }
}

function saveTaught(tableId, taught) {
  try {
    localStorage.setItem(storeKey(tableId), JSON.stringify([...taught]));
  } catch {
    /* storage blocked: the lessons may come again after a reload, nothing worse */
  }
}

/** A lesson's body as elements: a string is a paragraph, an array a list, `{keys}` a
 * paragraph about keys (left out on touch screens, where there are none). */
function bodyEls(parts) {
  return parts.map((part) => {
    if (Array.isArray(part)) return h("ul", {}, ...part.map((item) => h("li", { text: item })));
    if (typeof part === "object") return h("p", { class: "lesson-keys", text: part.keys });
    return h("p", { text: part });
  });
}

/**
 * The lessons of a tutorial table, or a no-op when the page is not one.
 *
 * `hashParams` is the page's fragment (`tutorial=1` turns the lessons on), `tableId` keeps
 * the lessons taught at this table apart, and `send` sends a message on the page's socket
 * (for the hint). Returns a function the page calls with every server message.
 */
export function tutor(hashParams, tableId, send) {
  if (hashParams.get(MARK) !== "1") return () => {};
  document.body.dataset.tutorial = "1";
  const taught = loadTaught(tableId);
  let seat = null;
  let st = null; // the last state
  let hintFor = null; // the version a hint was asked at
  let hinted = null; // {version, action}
  let shownAt = null; // the version the last lesson opened at: one lesson a change
  let panel = null;

  function myTurn() {
    return Boolean(st && st.view && st.status === "playing" && seat !== null
      && st.view.stage !== "over" && st.view.to_move === seat && st.legal.length > 0);
  }

  function close(toHand) {
    if (!panel) return;
    const wasFocused = panel.contains(document.activeElement);
    panel.remove();
    panel = null;
    document.body.dataset.lesson = "";
    const hand = document.getElementById("hand");
    if ((toHand || wasFocused) && hand && !hand.closest("[hidden]")) hand.focus();
  }

  function show(lesson, c) {
    close(false);
    taught.add(lesson.key);
    saveTaught(tableId, taught);
    shownAt = st.version;
    const number = LESSON_KEYS.indexOf(lesson.key) + 1;
    const ok = h("button", { type: "button", class: "primary", id: "lesson-ok",
      "aria-describedby": "lesson-body", onclick: () => close(true) }, _("Got it"));
    const stop = h("button", { type: "button", id: "lesson-stop", onclick: () => {
      taught.add(OFF); // a plain game from now on: no lessons, no suggestions asked for
      saveTaught(tableId, taught);
      close(true);
      mark();
    } }, _("No more lessons"));
    panel = h("section", { class: "lesson", id: "lesson", "aria-labelledby": "lesson-title",
      dataset: { lesson: lesson.key },
      onkeydown: (ev) => {
        if (ev.key === "Escape") {
          ev.stopPropagation();
          close(true);
        }
      } },
    h("p", { class: "lesson-count", text: _("Lesson {n} of {count}", { n: number, count: LESSON_KEYS.length }) }),
    h("h2", { id: "lesson-title", text: lesson.title() }),
    h("div", { id: "lesson-body", class: "lesson-body" }, ...bodyEls(lesson.body(c))),
    h("div", { class: "inline" }, ok, lesson === END ? null : stop));
    place(lesson === END);
    document.body.dataset.lesson = lesson.key;
    // read from its top (a phone may need to scroll on to "Got it"); Enter closes it
    panel.scrollIntoView({ block: "start" });
    ok.focus({ preventScroll: true });
  }

  /** In the seat's own panel under its head (at the end: in the result, before its
   * links), so it is read before the hand and the moves and never covers them. */
  function place(atEnd) {
    const end = document.getElementById("end");
    const mine = document.getElementById("mine");
    if (atEnd && end) {
      end.insertBefore(panel, end.querySelector(".end-links"));
      return;
    }
    const head = mine && mine.querySelector(".player-head");
    if (head) head.after(panel);
    else (mine || document.getElementById("main") || document.body).prepend(panel);
  }

  function context() {
    const names = st.names || [];
    return {
      view: st.view,
      me: st.view.players[seat],
      bot: names.find((_n, i) => i !== seat) || "",
      hinted: hinted && hinted.version === st.version ? canonicalAction(hinted.action) : "",
    };
  }

  function teach() {
    if (!st || !st.view || seat === null) return;
    if (st.status === "finished" || st.view.stage === "over") {
      if (!taught.has(END.key)) show(END, context());
      return;
    }
    // on our turn, once the hinted move is known, at most one lesson a change
    if (!myTurn() || shownAt === st.version || !hinted || hinted.version !== st.version) return;
    const c = context();
    const due = LESSONS.find((l) => !taught.has(l.key) && l.due(c));
    if (due) show(due, c);
  }

  /** Mark the hinted move's tiles in the hand (and the aimed row tail for a score). The
   * page redraws the hand often; the marks are put back after each redraw. */
  function mark() {
    for (const el of document.querySelectorAll(".tile.hinted")) el.classList.remove("hinted");
    if (taught.has(OFF) || !myTurn() || !hinted || hinted.version !== st.version) return;
    const words = hinted.action.trim().split(/\s+/);
    const used = new Set();
    for (const code of tilesIn(hinted.action)) {
      const tile = [...document.querySelectorAll(`#hand .tile[data-code="${code}"]`)]
        .find((el) => !used.has(el));
      if (tile) {
        used.add(tile);
        tile.classList.add("hinted");
      }
    }
    if (words[0] === "score") {
      const row = [...document.querySelectorAll(`#my-rows .row[data-row="${words[1]}"] .tile`)];
      for (const tile of row.slice(row.length - Number(words[2].slice(1)))) tile.classList.add("hinted");
    }
  }

  const mine = document.getElementById("mine");
  if (mine) new MutationObserver(mark).observe(mine, { childList: true, subtree: true });

  return function onMessage(msg) {
    if (taught.has(OFF)) return;
    if (msg.type === "welcome") {
      seat = msg.seat ?? null;
      hintFor = null; // a hint asked before a lost connection may never be answered
    } else if (msg.type === "state") {
      st = msg;
      if (myTurn() && hintFor !== st.version && send({ type: "hint" })) hintFor = st.version;
    } else if (msg.type === "hint" && st) {
      // the answer names the version it is for: one overtaken by a move is stale
      if (msg.version !== st.version) return;
      hinted = { version: msg.version, action: msg.action };
    } else {
      return;
    }
    teach();
    mark();
  };
}
