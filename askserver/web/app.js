// sqlrl serve's page. Every question, SQL, cell, comment, description and
// error is put into the page with textContent or createTextNode, never
// parsed as HTML, so that "<script>" in a question or a cell shows as text.
"use strict";

const $ = (id) => document.getElementById(id);
const SVG = "http://www.w3.org/2000/svg";
const KEY = "sqlrl-serve-api-key";

// state.answer: the answer shown (normalised from /api/ask or
// /api/answers/{id}); state.result: where the rows shown come from, so that
// paging, sorting and CSV follow it (the answer's SQL, or an edited SQL run
// with /api/run); state.correctionRan: the corrected SQL whose rows were
// last shown, the only text that may be sent as a correction.
const state = {
  answer: null,
  result: null,
  rows: null,
  sort: null,
  page: 1,
  rowsSeq: 0,
  sending: false,
  correctionRan: null,
  historyNext: 0,
  historySeq: 0,
  schemas: {},
  examples: {},
};

// ---- small helpers ----

function el(tag, text, cls) {
  const e = document.createElement(tag);
  if (text !== undefined && text !== null) e.textContent = String(text);
  if (cls) e.className = cls;
  return e;
}

function svgEl(tag, attrs, text) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, String(v));
  if (text !== undefined) e.textContent = String(text);
  return e;
}

function clear(node) {
  while (node.firstChild) node.removeChild(node.firstChild);
}

function apiKey() {
  return localStorage.getItem(KEY) || "";
}

// request sends one API call; the key goes with every call when one is
// saved (routes that need none ignore it). A failed call throws an Error
// with the server's message and .status.
async function request(method, path, body) {
  const headers = {};
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const key = apiKey();
  if (key) headers["Authorization"] = "Bearer " + key;
  const resp = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  if (!resp.ok) {
    let data = null;
    try { data = await resp.json(); } catch (e) { data = null; }
    const msg = data && typeof data.error === "string" ? data.error : "HTTP " + resp.status;
    const err = new Error(msg);
    err.status = resp.status;
    throw err;
  }
  return resp;
}

async function api(method, path, body) {
  const resp = await request(method, path, body);
  return resp.json();
}

// ---- formatting ----

const numberFormats = {
  int: new Intl.NumberFormat(undefined, { maximumFractionDigits: 0 }),
  dec: new Intl.NumberFormat(undefined, { maximumFractionDigits: 2 }),
  small: new Intl.NumberFormat(undefined, { maximumSignificantDigits: 3 }),
};

// rawNumberColumn: identifiers, years and codes read wrong with thousands
// separators ("2,012"), so their numbers are shown as they are.
function rawNumberColumn(name) {
  return /(^|[_\s])id$/i.test(name) || /[a-z](Id|ID)$/.test(name) || /^ID$/.test(name) ||
    /year|(^|_)(yr|zip|postcode|code|phone)$/i.test(name);
}

function formatNumber(v, column) {
  if (!Number.isFinite(v)) return String(v);
  if (column !== undefined && rawNumberColumn(column)) return String(v);
  const a = Math.abs(v);
  if (Number.isInteger(v)) return numberFormats.int.format(v);
  if (a >= 1e15 || (a > 0 && a < 1e-6)) return v.toPrecision(3);
  return (a >= 1 ? numberFormats.dec : numberFormats.small).format(v);
}

// formatTime: a stored time (RFC 3339, UTC, microseconds) in the reader's
// local time, to the second.
function formatTime(iso) {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return d.toLocaleString(undefined, { year: "numeric", month: "short", day: "numeric", hour: "2-digit", minute: "2-digit", second: "2-digit" });
}

function timeEl(iso) {
  const t = el("time", formatTime(iso));
  t.setAttribute("datetime", iso);
  t.title = iso;
  return t;
}

// ---- views ----

function show(view) {
  for (const v of ["ask", "history", "stats"]) {
    $("view-" + v).hidden = v !== view;
    $("nav-" + v).classList.toggle("active", v === view);
    if (v === view) $("nav-" + v).setAttribute("aria-current", "page"); else $("nav-" + v).removeAttribute("aria-current");
  }
  if (view === "history") loadHistory(false);
  if (view === "stats") loadStats();
}

// ---- tables: formatted numbers, sortable headers ----

function cellNode(v, column) {
  if (v === null || v === undefined) return el("td", "NULL", "null");
  if (typeof v === "number") {
    const td = el("td", formatNumber(v, column), "num");
    td.title = String(v);
    return td;
  }
  return el("td", typeof v === "string" ? v : JSON.stringify(v));
}

// fillTable writes columns and rows; with sortable, each header is a button
// that sorts the whole result (ascending, then descending): the server
// sorts (askserver/sortrows.go, compareCells) and the page sorts nothing.
function fillTable(table, columns, rows, sortable) {
  const thead = table.tHead, tbody = table.tBodies[0];
  clear(thead); clear(tbody);
  const hr = el("tr");
  columns.forEach((c, i) => {
    const th = el("th");
    th.scope = "col";
    if (sortable) {
      const b = el("button", c, "sort");
      b.type = "button";
      b.dataset.col = String(i);
      let dir = "none";
      if (state.sort && state.sort.col === i) dir = state.sort.dir === 1 ? "ascending" : "descending";
      th.setAttribute("aria-sort", dir);
      b.title = "Sort by " + c;
      b.appendChild(el("span", dir === "ascending" ? " ▲" : dir === "descending" ? " ▼" : "", "sort-mark"));
      b.addEventListener("click", () => sortBy(i));
      th.appendChild(b);
    } else {
      th.textContent = c;
    }
    hr.appendChild(th);
  });
  thead.appendChild(hr);
  for (const row of rows) {
    const tr = el("tr");
    row.forEach((v, i) => tr.appendChild(cellNode(v, columns[i])));
    tbody.appendChild(tr);
  }
}

// sortBy asks for page 1 of the whole result sorted by column col
// (ascending; again: descending) and keeps the focus on its header.
async function sortBy(col) {
  if (!state.rows) return;
  const sort = state.sort && state.sort.col === col ? { col, dir: -state.sort.dir } : { col, dir: 1 };
  if (!(await loadRows(1, sort))) return;
  const b = document.querySelector('#result-table th button[data-col="' + col + '"]');
  if (b) b.focus();
}

// sortParams is a sort as the GET routes' query (sort=C, desc=1).
function sortParams(sort) {
  const q = new URLSearchParams();
  if (sort) {
    q.set("sort", String(sort.col));
    if (sort.dir < 0) q.set("desc", "1");
  }
  return q;
}

// runBody is POST /api/run's body for the result src, with the sort.
function runBody(src, sort, extra) {
  const body = Object.assign({ db: src.db, sql: src.sql }, extra);
  if (sort) { body.sort = sort.col; body.desc = sort.dir < 0; }
  return body;
}

function pageInfo(r) {
  let text = r.pages ? "page " + r.page + " of " + r.pages + " (" + formatNumber(r.total_rows) + " rows" + (r.truncated ? ", more not kept" : "") + ")" : "no rows";
  if (state.sort && r.truncated) text += "; sorted among the rows kept";
  $("page-info").textContent = text;
}

// showRows shows one page of a result (an answer's or an edited SQL's),
// with the sort the server applied (sort, desc in the reply): a sort stays
// while paging through the same result; a new result starts unsorted.
function showRows(r) {
  state.rows = { columns: r.columns || [], rows: r.rows || [], page: r.page, pages: r.pages, total_rows: r.total_rows, truncated: r.truncated };
  state.sort = typeof r.sort === "number" ? { col: r.sort, dir: r.desc ? -1 : 1 } : null;
  fillTable($("result-table"), state.rows.columns, state.rows.rows, true);
  pageInfo(state.rows);
  $("pager").hidden = false;
  $("prev-page").disabled = !(r.page > 1);
  $("next-page").disabled = !(r.page < r.pages);
  $("prev-page").hidden = $("next-page").hidden = !(r.pages > 1);
  state.page = r.page;
  // A page of the answer's result that carries no chart keeps the answer's.
  if ("chart" in r) showChart(r.chart);
  else showChart(state.result.source === "run" ? null : state.answer.chart);
}

function clearRows() {
  state.rows = null;
  state.sort = null;
  clear($("result-table").tHead); clear($("result-table").tBodies[0]);
  $("page-info").textContent = "";
  $("pager").hidden = true;
}

// ---- charts: bar, or line for labels in order (dates, years) ----

function showChart(c) {
  const chart = $("chart");
  clear(chart);
  chart.hidden = !c;
  if (!c) { delete chart.dataset.kind; return; }
  const kind = c.kind === "line" ? "line" : "bar";
  chart.dataset.kind = kind;
  const title = c.value + " by " + c.label;
  if (kind === "line") drawLine(chart, c.labels, c.values, title, c.value);
  else drawBars(chart, c.labels, c.values, title, c.value);
}

function svgRoot(w, h, title) {
  const svg = svgEl("svg", { viewBox: "0 0 " + w + " " + h, role: "img", preserveAspectRatio: "xMinYMin meet" });
  svg.style.maxWidth = w + "px";
  svg.appendChild(svgEl("title", {}, title));
  return svg;
}

function clipLabel(s, n) {
  return s.length > n ? s.slice(0, n - 1) + "…" : s;
}

function drawBars(container, labels, values, title, valueName) {
  clear(container);
  const n = labels.length;
  if (!n) return;
  const w = 640, barH = 18, gap = 4, left = 160, h = n * (barH + gap) + 24;
  const maxAbs = Math.max(...values.map((v) => Math.abs(v)), 1e-300);
  const svg = svgRoot(w, h, title);
  values.forEach((v, i) => {
    const y = i * (barH + gap);
    const width = Math.max(1, (Math.abs(v) / maxAbs) * (w - left - 90));
    svg.appendChild(svgEl("text", { x: left - 6, y: y + barH - 5, "text-anchor": "end" }, clipLabel(labels[i], 24)));
    const r = svgEl("rect", { class: "bar", x: left, y, height: barH, width });
    r.appendChild(svgEl("title", {}, labels[i] + ": " + v));
    svg.appendChild(r);
    svg.appendChild(svgEl("text", { x: left + width + 4, y: y + barH - 5 }, formatNumber(v, valueName)));
  });
  container.appendChild(svg);
}

function drawLine(container, labels, values, title, valueName) {
  clear(container);
  const n = labels.length;
  if (!n) return;
  const w = 640, h = 260, left = 70, right = 20, top = 14, bottom = 40;
  let lo = Math.min(0, ...values), hi = Math.max(...values);
  if (hi === lo) hi = lo + 1;
  const x = (i) => left + (n === 1 ? (w - left - right) / 2 : (i * (w - left - right)) / (n - 1));
  const y = (v) => top + ((hi - v) * (h - top - bottom)) / (hi - lo);
  const svg = svgRoot(w, h, title);
  svg.appendChild(svgEl("line", { class: "axis", x1: left, y1: y(lo), x2: w - right, y2: y(lo) }));
  svg.appendChild(svgEl("line", { class: "axis", x1: left, y1: top, x2: left, y2: y(lo) }));
  for (const v of [lo, hi]) svg.appendChild(svgEl("text", { x: left - 6, y: y(v) + 4, "text-anchor": "end" }, formatNumber(v, valueName)));
  svg.appendChild(svgEl("polyline", { class: "line", points: values.map((v, i) => x(i) + "," + y(v)).join(" ") }));
  const step = Math.max(1, Math.ceil(n / 6));
  values.forEach((v, i) => {
    const dot = svgEl("circle", { class: "dot", cx: x(i), cy: y(v), r: 3 });
    dot.appendChild(svgEl("title", {}, labels[i] + ": " + v));
    svg.appendChild(dot);
    if (i % step === 0 || i === n - 1) {
      const anchor = n > 1 && i === n - 1 ? "end" : i === 0 && n > 1 ? "start" : "middle";
      svg.appendChild(svgEl("text", { x: x(i), y: h - bottom + 16, "text-anchor": anchor }, clipLabel(labels[i], 12)));
    }
  });
  container.appendChild(svg);
}

// ---- the answer ----

// normalise turns /api/ask's answer and /api/answers/{id}'s entry into one
// shape.
function normalise(a) {
  let error = a.error || null;
  if (!error && a.error_class) error = { class: a.error_class, message: a.error_message || "" };
  return {
    id: a.answer_id, db: a.db, question: a.question, evidence: a.evidence || "", model: a.model, sql: a.sql || "",
    error, confidence: a.confidence || null, chart: a.chart || null, latency: a.latency_ms, time: a.time || null,
    verdict: a.verdict || "", feedback: a.feedback || [],
  };
}

function showConfidence(c) {
  const box = $("confidence");
  const reasons = $("confidence-reasons");
  clear(reasons);
  box.hidden = !c;
  if (!c) { delete box.dataset.level; return; }
  box.dataset.level = c.level || "";
  $("confidence-label").textContent = c.label || c.level || "";
  for (const r of c.reasons || []) reasons.appendChild(el("li", r));
}

function confidenceBadge(c) {
  const b = el("span", c.label || c.level, "badge");
  b.dataset.level = c.level || "";
  if (c.reasons && c.reasons.length) b.title = c.reasons.join("; ");
  return b;
}

// showAnswer fills the answer view from a normalised answer; its rows come
// separately (showRows).
function showAnswer(a) {
  state.answer = a;
  state.result = { source: "answer", id: a.id };
  const box = $("answer");
  box.hidden = false;
  box.dataset.answerId = String(a.id);
  $("answer-question").textContent = a.question;
  $("answer-evidence").hidden = !a.evidence;
  $("answer-evidence").textContent = a.evidence ? "Evidence: " + a.evidence : "";
  const meta = ["answer #" + a.id + " on " + a.db, "by " + a.model];
  if (a.latency !== undefined) meta.push("in " + formatNumber(a.latency) + " ms");
  $("answer-meta").textContent = meta.join(" ");
  if (a.time) { $("answer-meta").appendChild(document.createTextNode(", ")); $("answer-meta").appendChild(timeEl(a.time)); }
  showConfidence(a.confidence);
  $("answer-sql").textContent = a.sql || "(no SQL)";
  const err = $("answer-error");
  err.hidden = !a.error;
  err.textContent = a.error ? a.error.class + ": " + a.error.message : "";
  $("run-error").hidden = true;
  $("result-source").textContent = a.error ? "" : "Result of answer #" + a.id;
  $("csv-download").hidden = !!a.error;
  resetCSV();
  $("edit-sql").textContent = a.sql ? "Edit and run" : "Write SQL and run";
  closeEditor();
  $("sql-edit").value = a.sql;
  showChart(null);
  clearRows();
  // An answer that failed offers no thumbs-up: there is nothing to accept,
  // only to correct.
  $("thumb-up").hidden = !!a.error;
  $("feedback-legend").textContent = a.error ? "This answer failed: mark it wrong, or correct it below" : "Was this answer right?";
  $("corrected-sql").value = "";
  $("comment").value = "";
  $("feedback-status").textContent = "";
  $("correction-status").textContent = "";
  $("correction-table").hidden = true;
  state.correctionRan = null;
  showVerdict(a.verdict);
  showFeedbackList(a.feedback);
  if (location.hash !== "#answer-" + a.id) history.replaceState(null, "", "#answer-" + a.id);
}

async function ask(ev) {
  ev.preventDefault();
  const status = $("ask-status");
  status.textContent = "asking…";
  $("ask-btn").disabled = true;
  try {
    const a = await api("POST", "/api/ask", { db: $("db").value, question: $("question").value, evidence: $("evidence").value });
    const n = normalise(a);
    showAnswer(n);
    if (!n.error) showRows(a);
    status.textContent = "answer #" + n.id + (n.error ? " failed" : " ready");
  } catch (e) {
    status.textContent = e.message;
  } finally {
    $("ask-btn").disabled = false;
  }
}

// openAnswer reopens a recorded answer in the Ask view: question, evidence,
// SQL, confidence, feedback, and its rows run again.
async function openAnswer(id) {
  show("ask");
  const status = $("ask-status");
  status.textContent = "opening answer #" + id + "…";
  try {
    const n = normalise(await api("GET", "/api/answers/" + id));
    showAnswer(n);
    $("question").value = n.question;
    $("evidence").value = n.evidence;
    if ([...$("db").options].some((o) => o.value === n.db)) { $("db").value = n.db; dbChanged(); }
    status.textContent = "";
    $("answer-question").tabIndex = -1;
    $("answer-question").focus();
    if (!n.error) await loadRows(1, null);
  } catch (e) {
    status.textContent = "answer #" + id + ": " + e.message;
  }
}

// loadRows shows page p of the result shown (state.result: the answer's
// rows route, or /api/run for an edited SQL), sorted by sort ({col, dir};
// null: the result's own order). The reply to an older request, or for a
// result no longer shown, is dropped. It returns whether the page is shown.
async function loadRows(p, sort) {
  const src = state.result;
  if (!src) return false;
  const seq = ++state.rowsSeq;
  try {
    let r;
    if (src.source === "answer") {
      const q = sortParams(sort);
      q.set("page", String(p));
      r = await api("GET", "/api/answers/" + src.id + "/rows?" + q);
    } else {
      r = await api("POST", "/api/run", runBody(src, sort, { page: p }));
    }
    if (seq !== state.rowsSeq || src !== state.result) return false;
    // A CSV fetched before follows the old sort: offer a new one.
    if (JSON.stringify(sort) !== JSON.stringify(state.sort)) resetCSV();
    if (src.source === "answer") showRows(r); else showRunResult(r, src);
    return true;
  } catch (e) {
    if (seq === state.rowsSeq) $("page-info").textContent = e.message;
    return false;
  }
}

// page moves to the next or previous page, keeping the sort.
function page(delta) {
  return loadRows(state.page + delta, state.sort);
}

// ---- edit and re-run ----

function closeEditor() {
  $("sql-editor").hidden = true;
  $("edit-sql").setAttribute("aria-expanded", "false");
  $("run-status").textContent = "";
}

function toggleEditor() {
  const open = $("sql-editor").hidden;
  $("sql-editor").hidden = !open;
  $("edit-sql").setAttribute("aria-expanded", String(open));
  if (open) $("sql-edit").focus();
}

function showRunResult(r, src) {
  state.result = src;
  const err = $("run-error");
  err.hidden = !r.error;
  err.textContent = r.error ? "The edited SQL failed: " + r.error.class + ": " + r.error.message : "";
  $("result-source").textContent = "Result of the edited SQL (not recorded)";
  $("csv-download").hidden = !!r.error;
  resetCSV();
  if (r.error) { clearRows(); showChart(null); return; }
  showRows(r);
}

async function runEdited() {
  if (!state.answer) return;
  const sql = $("sql-edit").value.trim();
  const status = $("run-status");
  if (!sql) { status.textContent = "Write a SQL first"; return; }
  status.textContent = "running…";
  try {
    const src = { source: "run", db: state.answer.db, sql };
    const r = await api("POST", "/api/run", { db: src.db, sql });
    clearRows();
    showRunResult(r, src);
    status.textContent = r.error ? "failed (see below)" : "ran: " + formatNumber(r.total_rows) + " rows";
  } catch (e) {
    status.textContent = runRefusal(e);
  }
}

function runRefusal(e) {
  if (e.status === 401) return "Enter your API key (top of the page) to run SQL";
  return e.message;
}

async function resetResult() {
  if (!state.answer) return;
  state.result = { source: "answer", id: state.answer.id };
  $("run-error").hidden = true;
  $("result-source").textContent = state.answer.error ? "" : "Result of answer #" + state.answer.id;
  $("csv-download").hidden = !!state.answer.error;
  resetCSV();
  if (state.answer.error) { clearRows(); showChart(null); return; }
  await loadRows(1, null);
}

// ---- CSV: fetched with the key, handed to the browser as a Blob ----

function resetCSV() {
  const link = $("csv-link");
  if (link.href) URL.revokeObjectURL(link.href);
  link.removeAttribute("href");
  link.hidden = true;
  $("csv-status").textContent = "";
}

function fileName(resp, fallback) {
  const m = /filename="?([^";]+)"?/.exec(resp.headers.get("Content-Disposition") || "");
  return m ? m[1] : fallback;
}

// offerDownload hands a fetched file to the browser: link gets a Blob URL
// and the file's name, shows it for a second click, and is clicked once.
async function offerDownload(resp, link, fallbackName) {
  const blob = await resp.blob();
  if (link.href) URL.revokeObjectURL(link.href);
  const name = fileName(resp, fallbackName);
  link.href = URL.createObjectURL(blob);
  link.download = name;
  link.textContent = name;
  link.dataset.bytes = String(blob.size);
  link.hidden = false;
  link.click();
  return blob.size;
}

async function downloadCSV() {
  const src = state.result;
  if (!src) return;
  const status = $("csv-status");
  status.textContent = "preparing CSV…";
  try {
    // The CSV follows the sort shown: every kept row, in that order.
    const q = sortParams(state.sort).toString();
    const resp = src.source === "answer"
      ? await request("GET", "/api/answers/" + src.id + "/csv" + (q ? "?" + q : ""))
      : await request("POST", "/api/run", runBody(src, state.sort, { format: "csv" }));
    resetCSV();
    const size = await offerDownload(resp, $("csv-link"), src.source === "answer" ? "answer-" + src.id + ".csv" : "result.csv");
    status.textContent = "(" + formatNumber(size) + " bytes)";
  } catch (e) {
    status.textContent = e.status === 401 ? "Enter your API key (top of the page) to download" : e.message;
  }
}

// ---- feedback: one click per thumb, corrections run before they are sent ----

function showVerdict(v) {
  state.answer.verdict = v;
  $("thumb-up").setAttribute("aria-pressed", String(v === "up"));
  $("thumb-down").setAttribute("aria-pressed", String(v === "down"));
}

function showFeedbackList(list) {
  const ul = $("feedback-list");
  clear(ul);
  for (const f of list) {
    const li = el("li");
    li.appendChild(timeEl(f.time));
    const parts = [" " + f.author + ":"];
    if (f.verdict) parts.push(f.verdict === "up" ? "👍 right" : "👎 wrong");
    if (f.corrected_sql) parts.push("corrected (" + (f.correction || "?") + "): " + f.corrected_sql);
    if (f.comment) parts.push("“" + f.comment + "”");
    li.appendChild(document.createTextNode(parts.join(" ")));
    ul.appendChild(li);
  }
}

function needKey(status) {
  if (apiKey()) return false;
  status.textContent = "Enter your API key (top of the page) to give feedback";
  $("api-key").focus();
  return true;
}

async function refreshFeedback() {
  try {
    const n = normalise(await api("GET", "/api/answers/" + state.answer.id));
    if (state.answer && state.answer.id === n.id) showFeedbackList(n.feedback);
  } catch (e) {
    // The list stays as it was; the status line already says what was recorded.
  }
}

async function postFeedback(body) {
  const a = state.answer;
  const f = await api("POST", "/api/answers/" + a.id + "/feedback", body);
  if (state.answer === a) refreshFeedback();
  return f;
}

// thumb sends the verdict at once; the other thumb changes it (the latest
// verdict counts, docs/feedback.md).
async function thumb(v) {
  const a = state.answer;
  const status = $("feedback-status");
  if (!a || state.sending || needKey(status)) return;
  if (a.verdict === v) {
    status.textContent = "already recorded; click the other thumb to change it";
    return;
  }
  state.sending = true;
  status.textContent = "sending…";
  try {
    const f = await postFeedback({ verdict: v });
    if (state.answer === a) {
      showVerdict(v);
      status.textContent = "feedback #" + f.feedback_id + " recorded: " + (v === "up" ? "👍 right" : "👎 wrong") + " (by " + f.author + ")";
    }
  } catch (e) {
    status.textContent = e.message;
  } finally {
    state.sending = false;
  }
}

async function runCorrection() {
  if (!state.answer) return;
  const sql = $("corrected-sql").value.trim();
  const status = $("correction-status");
  const t = $("correction-table");
  state.correctionRan = null;
  if (!sql) { status.textContent = "Write the corrected SQL first"; return; }
  status.textContent = "running…";
  try {
    const r = await api("POST", "/api/run", { db: state.answer.db, sql });
    if (r.error) {
      t.hidden = true;
      status.textContent = "the corrected SQL failed: " + r.error.class + ": " + r.error.message;
      return;
    }
    fillTable(t, r.columns, r.rows, false);
    t.hidden = false;
    state.correctionRan = sql;
    status.textContent = "ran: " + formatNumber(r.total_rows) + " rows" + (r.pages > 1 ? " (first " + r.rows.length + " shown)" : "") + "; check them, then send";
  } catch (e) {
    t.hidden = true;
    status.textContent = e.status === 422 ? "refused: " + e.message : runRefusal(e);
  }
}

async function sendFeedback() {
  const a = state.answer;
  const status = $("feedback-status");
  if (!a || state.sending || needKey(status)) return;
  const sql = $("corrected-sql").value.trim();
  const comment = $("comment").value.trim();
  if (!sql && !comment) {
    status.textContent = "Write a corrected SQL or a comment first (the thumbs send on their own)";
    $("corrected-sql").focus();
    return;
  }
  if (sql && sql !== state.correctionRan) {
    status.textContent = "Run the corrected SQL first: its rows show here before it is sent";
    $("run-correction").focus();
    return;
  }
  state.sending = true;
  status.textContent = "sending…";
  try {
    const f = await postFeedback({ verdict: "", corrected_sql: sql, comment });
    let msg = "feedback #" + f.feedback_id + " recorded";
    if (f.correction === "ok") msg += "; the corrected SQL ran";
    if (f.correction === "error") msg += "; the corrected SQL failed: " + f.correction_error.class + ": " + f.correction_error.message;
    status.textContent = msg;
  } catch (e) {
    status.textContent = e.message;
  } finally {
    state.sending = false;
  }
}

function useAsCorrection() {
  $("corrected-sql").value = $("sql-edit").value;
  $("corrected-sql").scrollIntoView({ block: "center" });
  $("corrected-sql").focus();
  runCorrection();
}

// ---- the key: whose it is and the role, from GET /api/me ----

async function showKeyOwner() {
  const status = $("key-status");
  status.classList.remove("error");
  delete status.dataset.name;
  delete status.dataset.role;
  $("key-form").classList.remove("known");
  $("admin").hidden = true;
  $("forget-key").hidden = !apiKey();
  if (!apiKey()) { status.textContent = ""; return; }
  status.textContent = "checking…";
  try {
    const me = await api("GET", "/api/me");
    status.dataset.name = me.name;
    status.dataset.role = me.role;
    status.textContent = "key of " + me.name + " (" + me.role + ")";
    $("admin").hidden = me.role !== "admin";
    // A key that is known folds away; Change shows the field again (and
    // takes the focus if the field had it, so the keyboard keeps its place).
    const hadFocus = document.activeElement === $("api-key");
    $("key-form").classList.add("known");
    if (hadFocus) $("change-key").focus();
  } catch (e) {
    status.classList.add("error");
    status.textContent = e.status === 403 ? "key not recognised" : e.message;
  }
}

function saveKey(ev) {
  ev.preventDefault();
  localStorage.setItem(KEY, $("api-key").value.trim());
  showKeyOwner();
}

function forgetKey() {
  localStorage.removeItem(KEY);
  $("api-key").value = "";
  showKeyOwner();
  $("api-key").focus();
}

// ---- databases: schema browser and example questions ----

async function loadDatabases() {
  try {
    const d = await api("GET", "/api/databases");
    const sel = $("db"), hsel = $("h-db");
    clear(sel);
    for (const db of d.databases) {
      const o = el("option", db.name + (db.schema_error ? " (schema unavailable)" : ""));
      o.value = db.name;
      sel.appendChild(o);
      const h = el("option", db.name);
      h.value = db.name;
      hsel.appendChild(h);
    }
    dbChanged();
  } catch (e) {
    $("ask-status").textContent = e.message;
  }
}

function dbChanged() {
  const db = $("db").value;
  if (!db) return;
  $("schema-summary").textContent = "Tables and columns of " + db;
  loadExamples(db);
  if ($("schema").open) loadSchema(db);
}

async function loadExamples(db) {
  const list = $("example-list");
  try {
    if (!state.examples[db]) state.examples[db] = (await api("GET", "/api/databases/" + encodeURIComponent(db) + "/examples")).examples || [];
  } catch (e) {
    state.examples[db] = [];
  }
  if ($("db").value !== db) return;
  clear(list);
  for (const ex of state.examples[db]) {
    const li = el("li");
    const b = el("button", ex.question, "example");
    b.type = "button";
    if (ex.evidence) b.title = "Evidence: " + ex.evidence;
    b.addEventListener("click", () => {
      $("question").value = ex.question;
      $("evidence").value = ex.evidence || "";
      $("question").focus();
    });
    li.appendChild(b);
    list.appendChild(li);
  }
  $("examples").hidden = state.examples[db].length === 0;
}

async function loadSchema(db) {
  const body = $("schema-body"), status = $("schema-status");
  if (body.dataset.db === db) return;
  status.textContent = "loading…";
  try {
    if (!state.schemas[db]) state.schemas[db] = await api("GET", "/api/databases/" + encodeURIComponent(db) + "/schema");
  } catch (e) {
    status.textContent = e.message;
    return;
  }
  if ($("db").value !== db) return;
  renderSchema(state.schemas[db]);
  body.dataset.db = db;
  status.textContent = "";
  filterSchema();
}

function renderSchema(s) {
  const body = $("schema-body"), notes = $("schema-notes");
  clear(body);
  clear(notes);
  // What the server could not show, and why (no descriptions, counts).
  for (const n of s.notes || []) notes.appendChild(el("li", n));
  for (const t of s.tables) {
    const d = el("details", null, "schema-table");
    d.dataset.table = t.name;
    const sum = el("summary");
    sum.appendChild(el("strong", t.name));
    sum.appendChild(el("span", typeof t.rows === "number" ? " · " + formatNumber(t.rows) + " rows" : " · rows not counted", "muted"));
    if (t.description) sum.appendChild(el("span", " · " + t.description, "muted"));
    d.appendChild(sum);
    const wrap = el("div", null, "table-wrap");
    const table = el("table", null, "columns");
    const thead = table.createTHead(), hr = el("tr");
    for (const h of ["column", "description", "examples"]) {
      const th = el("th", h);
      th.scope = "col";
      hr.appendChild(th);
    }
    thead.appendChild(hr);
    const tbody = table.createTBody();
    for (const c of t.columns) {
      const tr = el("tr");
      tr.dataset.column = c.name;
      // The name, then its type and keys in smaller print under it.
      const name = el("td");
      name.appendChild(el("code", c.name, "col-name"));
      name.appendChild(el("span", c.type || "", "col-type"));
      const keys = [];
      if (c.primary_key) keys.push("primary key");
      if (c.references) keys.push("→ " + c.references);
      if (keys.length) name.appendChild(el("span", keys.join(", "), "col-key"));
      tr.appendChild(name);
      tr.appendChild(el("td", c.description || "", "col-desc"));
      const ex = el("td", null, "examples");
      for (const v of c.examples || []) ex.appendChild(el("code", v));
      tr.appendChild(ex);
      tbody.appendChild(tr);
    }
    wrap.appendChild(table);
    d.appendChild(wrap);
    body.appendChild(d);
  }
}

// filterSchema keeps the tables whose name, or one of whose columns' names
// or descriptions, holds the text, and opens them.
function filterSchema() {
  const q = $("schema-filter").value.trim().toLowerCase();
  let shown = 0;
  for (const d of $("schema-body").querySelectorAll("details.schema-table")) {
    let match = !q || d.dataset.table.toLowerCase().includes(q);
    for (const tr of d.querySelectorAll("tbody tr")) {
      const hit = !!q && tr.textContent.toLowerCase().includes(q);
      tr.classList.toggle("hit", hit);
      match = match || hit;
    }
    d.hidden = !match;
    if (q) d.open = match;
    if (match) shown++;
  }
  if (q) $("schema-status").textContent = shown ? shown + " tables match" : "no table or column matches";
  else if ($("schema-body").dataset.db) $("schema-status").textContent = "";
}

// ---- history ----

function feedbackText(e) {
  const parts = [];
  if (e.verdict) parts.push(e.verdict === "up" ? "👍" : "👎");
  for (const f of e.feedback) {
    if (f.corrected_sql) parts.push("corrected (" + f.correction + "): " + f.corrected_sql);
    if (f.comment) parts.push("“" + f.comment + "” — " + f.author);
  }
  return parts.join("\n");
}

async function loadHistory(more) {
  const q = new URLSearchParams();
  for (const [k, id] of [["db", "h-db"], ["outcome", "h-outcome"], ["feedback", "h-feedback"], ["q", "h-q"]]) {
    if ($(id).value) q.set(k, $(id).value);
  }
  if (more && state.historyNext) q.set("before", String(state.historyNext));
  const table = $("history-table"), tbody = table.tBodies[0];
  const status = $("h-status");
  // Only the latest request fills the table (filters change quickly);
  // aria-busy says a newer list is on its way.
  const seq = ++state.historySeq;
  table.setAttribute("aria-busy", "true");
  try {
    const h = await api("GET", "/api/history?" + q.toString());
    if (seq !== state.historySeq) return;
    if (!more) clear(tbody);
    for (const e of h.entries) {
      const tr = el("tr");
      tr.dataset.answerId = String(e.answer_id);
      const open = el("button", "Open #" + e.answer_id, "open");
      open.type = "button";
      open.title = "Reopen answer " + e.answer_id + " in the Ask view";
      open.addEventListener("click", () => openAnswer(e.answer_id));
      const first = el("td");
      first.appendChild(open);
      tr.appendChild(first);
      const t = el("td");
      t.appendChild(timeEl(e.time));
      tr.appendChild(t);
      tr.appendChild(el("td", e.db));
      const qc = el("td", null, "q-cell");
      qc.appendChild(el("div", e.question, "q"));
      if (e.evidence) qc.appendChild(el("div", "Evidence: " + e.evidence, "evidence"));
      tr.appendChild(qc);
      tr.appendChild(el("td", e.sql, "sql"));
      const oc = el("td", e.outcome === "ok" ? "ran, " + formatNumber(e.rows) + " rows" : e.error_class + ": " + e.error_message);
      if (e.confidence) { oc.appendChild(document.createTextNode(" ")); oc.appendChild(confidenceBadge(e.confidence)); }
      tr.appendChild(oc);
      tr.appendChild(el("td", feedbackText(e), "fb"));
      tbody.appendChild(tr);
    }
    state.historyNext = h.next || 0;
    $("h-more").hidden = !h.next;
    status.textContent = tbody.rows.length ? "" : "no answers match";
  } catch (e) {
    if (seq !== state.historySeq) return;
    if (!more) clear(tbody);
    status.textContent = e.message;
  } finally {
    if (seq === state.historySeq) table.setAttribute("aria-busy", "false");
  }
}

// ---- stats ----

function pct(x) {
  return (100 * x).toFixed(1) + "%";
}

// bucketLabel: a bucket's UTC start as a day ("2026-12-04") or an hour
// ("2026-12-04 09:00"); buckets are UTC, so the label stays UTC.
function bucketLabel(iso, bucket) {
  const day = iso.slice(0, 10);
  return bucket === "hour" ? day + " " + iso.slice(11, 16) : day;
}

async function loadStats() {
  const tbody = $("stats-table").tBodies[0];
  try {
    const s = await api("GET", "/api/stats?bucket=" + encodeURIComponent($("s-bucket").value));
    clear(tbody);
    for (const b of s.buckets) {
      const tr = el("tr");
      tr.appendChild(el("td", bucketLabel(b.start, s.bucket)));
      tr.appendChild(el("td", formatNumber(b.answers)));
      tr.appendChild(el("td", formatNumber(b.accepted) + " (" + pct(b.share_accepted) + ")"));
      tr.appendChild(el("td", formatNumber(b.corrected) + " (" + pct(b.share_corrected) + ")"));
      tr.appendChild(el("td", formatNumber(b.errors) + " (" + pct(b.share_errors) + ")"));
      tbody.appendChild(tr);
    }
    drawBars($("stats-chart"), s.buckets.map((b) => bucketLabel(b.start, s.bucket)), s.buckets.map((b) => b.answers), "answers per " + s.bucket);
  } catch (e) {
    clear(tbody);
    const tr = el("tr");
    tr.appendChild(el("td", e.message, "error"));
    tbody.appendChild(tr);
  }
}

// ---- admin: reload schemas, export the training data ----

async function adminReload() {
  const status = $("admin-status");
  status.textContent = "reloading…";
  try {
    const r = await api("POST", "/api/admin/reload");
    state.schemas = {};
    state.examples = {};
    delete $("schema-body").dataset.db;
    dbChanged();
    const errs = Object.entries(r.errors || {}).map(([db, e]) => db + ": " + e);
    status.textContent = "reloaded: " + (r.reloaded.join(", ") || "none") + (errs.length ? "; " + errs.join("; ") : "");
  } catch (e) {
    status.textContent = e.message;
  }
}

async function adminExport() {
  const status = $("admin-status");
  status.textContent = "exporting…";
  try {
    const size = await offerDownload(await request("GET", "/api/admin/export"), $("admin-export-link"), "feedback-export.tar");
    status.textContent = "training data ready (" + formatNumber(size) + " bytes)";
  } catch (e) {
    status.textContent = e.message;
  }
}

// ---- wiring ----

// openFromHash reopens #answer-N (a link to an answer, and the back button).
function openFromHash() {
  const m = /^#answer-(\d+)$/.exec(location.hash);
  if (m && (!state.answer || String(state.answer.id) !== m[1])) openAnswer(Number(m[1]));
}

function init() {
  $("nav-ask").addEventListener("click", () => show("ask"));
  $("nav-history").addEventListener("click", () => show("history"));
  $("nav-stats").addEventListener("click", () => show("stats"));
  $("api-key").value = apiKey();
  $("key-form").addEventListener("submit", saveKey);
  $("forget-key").addEventListener("click", forgetKey);
  $("change-key").addEventListener("click", () => { $("key-form").classList.remove("known"); $("api-key").focus(); });
  $("ask-form").addEventListener("submit", ask);
  $("question").addEventListener("keydown", (ev) => {
    // Ctrl+Enter (Cmd+Enter) asks from the question box.
    if (ev.key === "Enter" && (ev.ctrlKey || ev.metaKey)) { ev.preventDefault(); $("ask-form").requestSubmit(); }
  });
  $("db").addEventListener("change", dbChanged);
  $("schema").addEventListener("toggle", () => { if ($("schema").open && $("db").value) loadSchema($("db").value); });
  $("schema-filter").addEventListener("input", filterSchema);
  $("schema-filter").addEventListener("change", filterSchema);
  $("prev-page").addEventListener("click", () => page(-1));
  $("next-page").addEventListener("click", () => page(1));
  $("edit-sql").addEventListener("click", toggleEditor);
  $("run-sql").addEventListener("click", runEdited);
  $("reset-sql").addEventListener("click", resetResult);
  $("use-correction").addEventListener("click", useAsCorrection);
  $("csv-download").addEventListener("click", downloadCSV);
  $("thumb-up").addEventListener("click", () => thumb("up"));
  $("thumb-down").addEventListener("click", () => thumb("down"));
  $("run-correction").addEventListener("click", runCorrection);
  $("corrected-sql").addEventListener("input", () => {
    if ($("corrected-sql").value.trim() !== state.correctionRan) $("correction-status").textContent = state.correctionRan ? "changed: run it again before sending" : "";
  });
  $("send-feedback").addEventListener("click", sendFeedback);
  $("history-form").addEventListener("submit", (ev) => { ev.preventDefault(); loadHistory(false); });
  for (const id of ["h-db", "h-outcome", "h-feedback"]) $(id).addEventListener("change", () => loadHistory(false));
  $("h-more").addEventListener("click", () => loadHistory(true));
  $("s-bucket").addEventListener("change", loadStats);
  $("admin-reload").addEventListener("click", adminReload);
  $("admin-export").addEventListener("click", adminExport);
  window.addEventListener("hashchange", openFromHash);
  showKeyOwner();
  loadDatabases().then(openFromHash);
}

document.addEventListener("DOMContentLoaded", init);
