// sqlrl serve's page. Every question, SQL, cell, comment and error is put
// into the page with textContent or createTextNode, never parsed as HTML,
// so that "<script>" in a question or a cell shows as text.
"use strict";

const $ = (id) => document.getElementById(id);
const SVG = "http://www.w3.org/2000/svg";
const KEY = "sqlrl-serve-api-key";

const state = { answer: null, page: 1, verdict: "", historyNext: 0 };

function el(tag, text, cls) {
  const e = document.createElement(tag);
  if (text !== undefined && text !== null) e.textContent = String(text);
  if (cls) e.className = cls;
  return e;
}

function clear(node) {
  while (node.firstChild) node.removeChild(node.firstChild);
}

async function api(method, path, body, auth) {
  const headers = {};
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (auth) {
    const key = localStorage.getItem(KEY) || "";
    if (key) headers["Authorization"] = "Bearer " + key;
  }
  const resp = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  let data = null;
  try { data = await resp.json(); } catch (e) { data = null; }
  if (!resp.ok) {
    const msg = data && typeof data.error === "string" ? data.error : "HTTP " + resp.status;
    throw new Error(msg);
  }
  return data;
}

function show(view) {
  for (const v of ["ask", "history", "stats"]) {
    $("view-" + v).hidden = v !== view;
    $("nav-" + v).classList.toggle("active", v === view);
  }
  if (view === "history") loadHistory(false);
  if (view === "stats") loadStats();
}

function cellText(v) {
  if (v === null) return "NULL";
  return typeof v === "string" ? v : JSON.stringify(v);
}

function fillTable(table, columns, rows) {
  const thead = table.tHead, tbody = table.tBodies[0];
  clear(thead); clear(tbody);
  const hr = el("tr");
  for (const c of columns) hr.appendChild(el("th", c));
  thead.appendChild(hr);
  for (const row of rows) {
    const tr = el("tr");
    for (const v of row) tr.appendChild(el("td", cellText(v), v === null ? "null" : ""));
    tbody.appendChild(tr);
  }
}

function drawBars(container, labels, values, title) {
  clear(container);
  const n = labels.length;
  if (!n) return;
  const w = 640, barH = 18, gap = 4, left = 160, h = n * (barH + gap) + 24;
  const maxAbs = Math.max(...values.map((v) => Math.abs(v)), 1e-300);
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", "0 0 " + w + " " + h);
  svg.setAttribute("width", String(w));
  svg.setAttribute("role", "img");
  const t = document.createElementNS(SVG, "title");
  t.textContent = title;
  svg.appendChild(t);
  values.forEach((v, i) => {
    const y = i * (barH + gap);
    const label = document.createElementNS(SVG, "text");
    label.setAttribute("x", String(left - 6));
    label.setAttribute("y", String(y + barH - 5));
    label.setAttribute("text-anchor", "end");
    label.textContent = labels[i].length > 24 ? labels[i].slice(0, 23) + "…" : labels[i];
    svg.appendChild(label);
    const r = document.createElementNS(SVG, "rect");
    r.setAttribute("class", "bar");
    r.setAttribute("x", String(left));
    r.setAttribute("y", String(y));
    r.setAttribute("height", String(barH));
    r.setAttribute("width", String(Math.max(1, (Math.abs(v) / maxAbs) * (w - left - 80))));
    svg.appendChild(r);
    const val = document.createElementNS(SVG, "text");
    val.setAttribute("x", String(left + Math.max(1, (Math.abs(v) / maxAbs) * (w - left - 80)) + 4));
    val.setAttribute("y", String(y + barH - 5));
    val.textContent = String(v);
    svg.appendChild(val);
  });
  container.appendChild(svg);
}

function showRows(r) {
  fillTable($("result-table"), r.columns, r.rows);
  $("page-info").textContent = r.pages ? "page " + r.page + " of " + r.pages + " (" + r.total_rows + " rows" + (r.truncated ? ", more not kept" : "") + ")" : "no rows";
  $("prev-page").disabled = r.page <= 1;
  $("next-page").disabled = r.page >= r.pages;
  state.page = r.page;
}

function setVerdict(v) {
  state.verdict = state.verdict === v ? "" : v;
  $("thumb-up").setAttribute("aria-pressed", String(state.verdict === "up"));
  $("thumb-down").setAttribute("aria-pressed", String(state.verdict === "down"));
}

async function ask(ev) {
  ev.preventDefault();
  const status = $("ask-status");
  status.textContent = "asking…";
  $("ask-btn").disabled = true;
  try {
    const a = await api("POST", "/api/ask", { db: $("db").value, question: $("question").value, evidence: $("evidence").value });
    state.answer = a;
    $("answer").hidden = false;
    $("answer").dataset.answerId = String(a.answer_id);
    $("answer-meta").textContent = "answer #" + a.answer_id + " on " + a.db + " by " + a.model + " in " + a.latency_ms + " ms";
    $("answer-sql").textContent = a.sql || "(no SQL)";
    const err = $("answer-error");
    err.hidden = !a.error;
    err.textContent = a.error ? a.error.class + ": " + a.error.message : "";
    const chart = $("chart");
    chart.hidden = !a.chart;
    if (a.chart) drawBars(chart, a.chart.labels, a.chart.values, a.chart.value + " by " + a.chart.label); else clear(chart);
    showRows(a);
    setVerdict("");
    $("corrected-sql").value = "";
    $("comment").value = "";
    $("feedback-status").textContent = "";
    $("correction-table").hidden = true;
    status.textContent = "";
  } catch (e) {
    status.textContent = e.message;
  } finally {
    $("ask-btn").disabled = false;
  }
}

async function page(delta) {
  if (!state.answer) return;
  try {
    showRows(await api("GET", "/api/answers/" + state.answer.answer_id + "/rows?page=" + (state.page + delta)));
  } catch (e) {
    $("page-info").textContent = e.message;
  }
}

async function sendFeedback() {
  if (!state.answer) return;
  const status = $("feedback-status");
  const body = { verdict: state.verdict, corrected_sql: $("corrected-sql").value, comment: $("comment").value };
  status.textContent = "sending…";
  try {
    const f = await api("POST", "/api/answers/" + state.answer.answer_id + "/feedback", body, true);
    let msg = "feedback #" + f.feedback_id + " recorded";
    if (f.correction === "ok") msg += "; the corrected SQL ran";
    if (f.correction === "error") msg += "; the corrected SQL failed: " + f.correction_error.class + ": " + f.correction_error.message;
    status.textContent = msg;
    const t = $("correction-table");
    t.hidden = !f.correction_rows;
    if (f.correction_rows) fillTable(t, f.correction_rows.columns, f.correction_rows.rows);
  } catch (e) {
    status.textContent = e.message;
  }
}

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
  } catch (e) {
    $("ask-status").textContent = e.message;
  }
}

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
  const tbody = $("history-table").tBodies[0];
  try {
    const h = await api("GET", "/api/history?" + q.toString());
    if (!more) clear(tbody);
    for (const e of h.entries) {
      const tr = el("tr");
      tr.dataset.answerId = String(e.answer_id);
      tr.appendChild(el("td", e.answer_id));
      tr.appendChild(el("td", e.time));
      tr.appendChild(el("td", e.db));
      tr.appendChild(el("td", e.question));
      tr.appendChild(el("td", e.sql));
      tr.appendChild(el("td", e.outcome === "ok" ? "ran, " + e.rows + " rows" : e.error_class + ": " + e.error_message));
      tr.appendChild(el("td", feedbackText(e)));
      tbody.appendChild(tr);
    }
    state.historyNext = h.next || 0;
    $("h-more").hidden = !h.next;
  } catch (e) {
    clear(tbody);
    const tr = el("tr");
    tr.appendChild(el("td", e.message, "error"));
    tbody.appendChild(tr);
  }
}

function pct(x) {
  return (100 * x).toFixed(1) + "%";
}

async function loadStats() {
  const tbody = $("stats-table").tBodies[0];
  try {
    const s = await api("GET", "/api/stats?bucket=" + encodeURIComponent($("s-bucket").value));
    clear(tbody);
    for (const b of s.buckets) {
      const tr = el("tr");
      tr.appendChild(el("td", b.start));
      tr.appendChild(el("td", b.answers));
      tr.appendChild(el("td", b.accepted + " (" + pct(b.share_accepted) + ")"));
      tr.appendChild(el("td", b.corrected + " (" + pct(b.share_corrected) + ")"));
      tr.appendChild(el("td", b.errors + " (" + pct(b.share_errors) + ")"));
      tbody.appendChild(tr);
    }
    drawBars($("stats-chart"), s.buckets.map((b) => b.start.replace("T", " ").replace(":00:00Z", "h")), s.buckets.map((b) => b.answers), "answers per " + s.bucket);
  } catch (e) {
    clear(tbody);
    const tr = el("tr");
    tr.appendChild(el("td", e.message, "error"));
    tbody.appendChild(tr);
  }
}

function init() {
  $("nav-ask").addEventListener("click", () => show("ask"));
  $("nav-history").addEventListener("click", () => show("history"));
  $("nav-stats").addEventListener("click", () => show("stats"));
  $("api-key").value = localStorage.getItem(KEY) || "";
  $("key-status").textContent = $("api-key").value ? "saved" : "";
  $("save-key").addEventListener("click", () => {
    localStorage.setItem(KEY, $("api-key").value.trim());
    $("key-status").textContent = "saved";
  });
  $("ask-form").addEventListener("submit", ask);
  $("prev-page").addEventListener("click", () => page(-1));
  $("next-page").addEventListener("click", () => page(1));
  $("thumb-up").addEventListener("click", () => setVerdict("up"));
  $("thumb-down").addEventListener("click", () => setVerdict("down"));
  $("send-feedback").addEventListener("click", sendFeedback);
  $("history-form").addEventListener("submit", (ev) => { ev.preventDefault(); loadHistory(false); });
  $("h-more").addEventListener("click", () => loadHistory(true));
  $("s-bucket").addEventListener("change", loadStats);
  loadDatabases();
}

document.addEventListener("DOMContentLoaded", init);
