// The review of a finished game on the replay page (GET /api/tables/{id}/review, the JSON
// of `noreturn review --json`, docs/review.md): per seat its accuracy, luck and switch
// window, its decisions worst first, and a chart of its expected margin over the game,
// drawn here as inline SVG. The page never judges a move: every number is the server's.

import { N_, _, decimal, ngettext } from "./i18n.js";
import { h, richText } from "./tiles.js";

const SVG = "http://www.w3.org/2000/svg";
const W = 360;
const H = 200;
const PAD = { left: 40, right: 8, top: 12, bottom: 24 };
/** Each seat's line: a dash pattern besides the colour, so no seat needs its colour told. */
const LINES = [
  { cls: "s0", dash: null, name: N_("solid") },
  { cls: "s1", dash: "6 3", name: N_("dashed") },
  { cls: "s2", dash: "2 3", name: N_("dotted") },
  { cls: "s3", dash: "8 3 2 3", name: N_("dash-dot") },
];

/** "+3.4", "−1.0", "0.0": a sign only on what does not round to zero. */
function signed(x, digits = 1) {
  const shown = decimal(Math.abs(x), digits);
  if (Number(Math.abs(x).toFixed(digits)) === 0) return shown;
  return `${x > 0 ? "+" : "−"}${shown}`;
}
// A seat's own turns: its 10th turn is the game's 19th or 20th (the replay's numbers).
const turnText = (d) => (d.kind === "mulligan" ? _("mulligan") : _("own turn {n}", { n: d.turn }));
/** A decision's label in the page's language (the review names them in English). */
const LABELS = { best: N_("best"), good: N_("good"), inaccuracy: N_("inaccuracy"), mistake: N_("mistake"), blunder: N_("blunder") };
const labelText = (label) => _(LABELS[label] ?? label);
/** How many decisions got a label, counted in words ("1 blunder", "2 beste Züge"). */
const TALLIES = {
  best: (n) => ngettext("{n} best move", "{n} best moves", n),
  good: (n) => ngettext("{n} good move", "{n} good moves", n),
  inaccuracy: (n) => ngettext("{n} inaccuracy", "{n} inaccuracies", n),
  mistake: (n) => ngettext("{n} mistake", "{n} mistakes", n),
  blunder: (n) => ngettext("{n} blunder", "{n} blunders", n),
};
/** The points a decision lost, signed ("−2.5", "0"). */
const lost = (d) => (d.loss > 0 ? `−${decimal(d.loss)}` : "0");
/** What a draw was, in the page's language. */
const DRAWS = { deal: N_("deal"), mulligan: N_("mulligan"), refill: N_("refill") };

/** Turn numbers with runs as ranges: "10, 14–26" (as the terminal review writes them). */
export function turnsText(turns) {
  const runs = [];
  for (const t of [...new Set(turns)].sort((a, b) => a - b)) {
    const last = runs[runs.length - 1];
    if (last && t === last[last.length - 1] + 1) last.push(t);
    else runs.push([t]);
  }
  return runs.map((r) => (r.length === 1 ? String(r[0]) : `${r[0]}–${r[r.length - 1]}`)).join(", ");
}

/** A seat's decisions, worst first (largest loss; ties in the order of the game). */
export function worstFirst(decisions) {
  return [...decisions].sort((a, b) => b.loss - a.loss || a.index - b.index);
}

/** The turning points of a seat: its largest loss and its largest luck swing (if any). */
export function turningPoints(review, seat) {
  const points = [];
  const worst = worstFirst(review.decisions.filter((d) => d.seat === seat))[0];
  if (worst && worst.loss > 0) {
    points.push({ kind: "loss", index: worst.index, y: worst.played_margin,
      text: _("largest loss: {loss} points at {turn} ({played}; better {best})",
        { loss: decimal(worst.loss), turn: turnText(worst), played: worst.played, best: worst.best }) });
  }
  const draws = review.draws.filter((d) => d.seat === seat);
  const swing = draws.reduce((best, d) => (!best || Math.abs(d.luck) > Math.abs(best.luck) ? d : best), null);
  if (swing && swing.luck !== 0) {
    points.push({ kind: "luck", index: swing.index, y: swing.after,
      text: _("largest luck swing: {luck} points, the {kind} at event {index}",
        { luck: signed(swing.luck), kind: DRAWS[swing.kind] ? _(DRAWS[swing.kind]) : swing.kind, index: swing.index }) });
  }
  return points;
}

function svg(tag, attrs = {}, text) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== null && v !== undefined) el.setAttribute(k, String(v));
  if (text !== undefined) el.textContent = text;
  return el;
}

/** The chart: each seat's expected final margin after each of its decisions, by event. */
export function marginChart(review, names) {
  const seats = review.seats.map((s) => s.seat);
  const series = seats.map((seat) => review.decisions.filter((d) => d.seat === seat)
    .map((d) => ({ x: d.index, y: d.played_margin })));
  const all = series.flat();
  const marks = seats.map((seat) => turningPoints(review, seat));
  const ys = [0, ...all.map((p) => p.y), ...marks.flat().map((m) => m.y)];
  let lo = Math.min(...ys), hi = Math.max(...ys);
  if (hi - lo < 10) { lo -= 5; hi += 5; }
  const xmax = Math.max(1, review.game.events - 1);
  const X = (x) => PAD.left + (x / xmax) * (W - PAD.left - PAD.right);
  const Y = (y) => PAD.top + ((hi - y) / (hi - lo)) * (H - PAD.top - PAD.bottom);

  const id = `chart-${Math.random().toString(36).slice(2, 8)}`;
  const chart = svg("svg", { viewBox: `0 0 ${W} ${H}`, class: "margin-chart", role: "img",
    "aria-labelledby": `${id}-t ${id}-d`, focusable: "false" });
  chart.append(svg("title", { id: `${id}-t` }, _("Expected final margin of each seat over the game")));
  const summary = seats.map((seat, k) => {
    const s = series[k];
    const from = s.length ? signed(s[0].y) : "–", to = s.length ? signed(s[s.length - 1].y) : "–";
    const turns = marks[k].map((m) => m.text).join("; ");
    return _("{name} ({line} line): from {from} to {to} points", { name: names[seat] ?? _("seat {n}", { n: seat + 1 }), line: _(LINES[k % 4].name), from, to })
      + `${turns ? `; ${turns}` : ""}.`;
  }).join(" ");
  chart.append(svg("desc", { id: `${id}-d` },
    _("Events 0 to {n} across, points of expected margin (own score minus the best other) up.", { n: xmax }) + " " + summary));
  // the zero line and the axes' labels
  const axes = svg("g", { class: "axes", "aria-hidden": "true" });
  axes.append(svg("line", { x1: PAD.left, x2: W - PAD.right, y1: Y(0), y2: Y(0), class: "zero" }));
  axes.append(svg("line", { x1: PAD.left, x2: PAD.left, y1: PAD.top, y2: H - PAD.bottom, class: "axis" }));
  axes.append(svg("text", { x: PAD.left - 4, y: Y(hi) + 8, "text-anchor": "end" }, signed(hi, 0)));
  axes.append(svg("text", { x: PAD.left - 4, y: Y(0) + 4, "text-anchor": "end" }, "0"));
  axes.append(svg("text", { x: PAD.left - 4, y: Y(lo), "text-anchor": "end" }, signed(lo, 0)));
  axes.append(svg("text", { x: W - PAD.right, y: H - 6, "text-anchor": "end" }, _("event {n}", { n: xmax })));
  axes.append(svg("text", { x: PAD.left, y: H - 6 }, _("event {n}", { n: 0 })));
  chart.append(axes);
  seats.forEach((seat, k) => {
    const style = LINES[k % 4];
    const g = svg("g", { class: `series ${style.cls}`, "data-seat": seat, "aria-hidden": "true" });
    if (series[k].length) {
      g.append(svg("polyline", { points: series[k].map((p) => `${X(p.x).toFixed(1)},${Y(p.y).toFixed(1)}`).join(" "),
        "stroke-dasharray": style.dash, fill: "none" }));
    }
    for (const m of marks[k]) {
      const x = X(m.index), y = Y(m.y);
      const shape = m.kind === "loss"
        ? svg("circle", { cx: x, cy: y, r: 5, class: "mark-loss" })
        : svg("path", { d: `M${x},${y - 6} L${x + 6},${y} L${x},${y + 6} L${x - 6},${y} Z`, class: "mark-luck" });
      shape.setAttribute("data-kind", m.kind);
      g.append(shape);
    }
    chart.append(g);
  });
  const legend = h("ul", { class: "legend" }, ...seats.map((seat, k) => h("li", { class: LINES[k % 4].cls },
    h("span", { class: "swatch", "aria-hidden": "true" }), `${names[seat] ?? _("seat {n}", { n: seat + 1 })} (${_(LINES[k % 4].name)})`)),
  h("li", {}, h("span", { class: "key-loss", "aria-hidden": "true", text: "●" }), " " + _("largest loss")),
  h("li", {}, h("span", { class: "key-luck", "aria-hidden": "true", text: "◆" }), " " + _("largest luck swing")));
  return h("figure", { class: "chart" }, chart, h("figcaption", {}, legend));
}

/** One seat's review: summary, switch window, labels, turning points, decisions worst first. */
function seatReview(review, seat, names, onJump) {
  const s = review.seats.find((x) => x.seat === seat);
  const name = names[seat] ?? _("seat {n}", { n: seat + 1 });
  const declared = s.declared_turn === null ? _("never declared") : _("declared at own turn {n}", { n: s.declared_turn });
  const window = turnsText(s.best_declare_turns) || _("none");
  const labels = Object.entries(s.labels).filter(([, n]) => n)
    .map(([label, n]) => (TALLIES[label] ? TALLIES[label](n) : `${n} ${label}`)).join(", ");
  const section = h("section", { class: "seat-review", dataset: { seat: String(seat) },
    "aria-labelledby": `seat-review-${seat}` });
  section.append(
    h("h3", { id: `seat-review-${seat}`, text: name }),
    h("p", { class: "review-facts" },
      h("span", {}, _("accuracy") + " ", h("b", { class: "accuracy", text: decimal(s.accuracy, 0) })),
      h("span", {}, _("mean loss") + " ", h("b", { text: decimal(s.mean_loss) })),
      h("span", {}, _("luck") + " ", h("b", { class: "luck", text: `${signed(s.luck, 0)} ± ${decimal(s.luck_se, 0)}` }))),
    h("p", { class: "declare", text: _("{declared}; declaring was best at own turns: {window}", { declared, window }) }),
    h("p", { class: "muted", text: _("{n} decisions: {labels}", { n: s.decisions, labels }) }),
    h("ul", { class: "turning" }, ...turningPoints(review, seat).map((m) => h("li", { class: `turn-${m.kind}`, text: m.text }))));
  const list = h("ol", { class: "decisions" });
  for (const d of worstFirst(review.decisions.filter((x) => x.seat === seat))) {
    const better = d.best !== d.played ? [" · " + _("better") + " ", richText(d.best)] : [];
    const line = [h("span", { class: `label lb-${d.label}`, text: labelText(d.label) }), ` ${turnText(d)} · `,
      richText(d.played), ...better, " · " + _("{n} points", { n: lost(d) })];
    list.append(h("li", { dataset: { index: String(d.index), loss: String(d.loss) } },
      onJump ? h("button", { type: "button", class: "linklike decision",
        "aria-label": d.best !== d.played
          ? _("{turn}: played {played}, better {best}, lost {loss} points, {label}; show this step",
            { turn: turnText(d), played: d.played, best: d.best, loss: decimal(d.loss), label: labelText(d.label) })
          : _("{turn}: played {played}, lost {loss} points, {label}; show this step",
            { turn: turnText(d), played: d.played, loss: decimal(d.loss), label: labelText(d.label) }),
        onclick: () => onJump(d.index) }, ...line) : h("span", {}, ...line)));
  }
  section.append(h("details", { class: "decision-list", open: true },
    h("summary", { text: _("Decisions, worst first ({n})", { n: s.decisions }) }), list));
  return section;
}

/** The whole review: how it was measured, the chart, and a section per seat. */
export function reviewEl(review, names, onJump) {
  const budget = review.budget.playouts !== undefined ? _("{n} playouts", { n: review.budget.playouts })
    : _("{n} s", { n: review.budget.seconds });
  return h("div", { class: "review-body" },
    h("p", { class: "muted", text: _("Each decision judged from what its seat knew then ({budget} a decision): margins are expected final margins, own score minus the best other, in points.", { budget }) }),
    marginChart(review, names),
    h("div", { class: "seat-reviews" }, ...review.seats.map((s) => seatReview(review, s.seat, names, onJump))));
}
