// The page of `hindsight serve`: a specification editor with syntax
// highlighting and diagnostics from POST /api/check, a trace to paste or
// upload, POST /api/run for the violations (table, timeline) and the
// profile, POST /api/why for the explanation of a selected violation.
"use strict";

const $ = (id) => document.getElementById(id);
const spec = $("spec"), highlight = $("highlight"), trace = $("trace");
let diagnostics = [];
let lastRun = null;

const KEYWORDS = new Set(["prop", "pred", "where", "Forall", "Exists", "forall", "exists",
  "true", "false", "P", "H", "S", "Z", "X", "F", "G", "U"]);

function escapeHtml(s) {
  return s.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" }[c]));
}

// Token classes of the specification, by character.
function classes(text) {
  const out = new Array(text.length).fill("");
  const re = /(\/\/[^\n]*|\/\*[\s\S]*?(?:\*\/|$)|\(\*[\s\S]*?(?:\*\)|$))|("(?:[^"\\\n]|\\.)*"?)|(\b\d+(?:\.\d+)?\b)|([A-Za-z_][A-Za-z0-9_']*)(\s*\()?|(<->|->|:=|[!&|@\[\])<>=])/g;
  let m;
  while ((m = re.exec(text)) !== null) {
    let cls = "";
    let end = m.index + m[0].length;
    if (m[1]) cls = "cm";
    else if (m[2]) cls = "st";
    else if (m[3]) cls = "nu";
    else if (m[4]) {
      cls = KEYWORDS.has(m[4]) ? "kw" : (m[5] ? "ev" : "");
      end = m.index + m[4].length;
    } else if (m[6]) cls = "op";
    for (let i = m.index; i < end; i++) out[i] = cls;
  }
  return out;
}

function renderHighlight() {
  const text = spec.value;
  const cls = classes(text);
  const err = new Array(text.length + 1).fill(false);
  for (const d of diagnostics) {
    if (d.severity !== "error") continue;
    const end = Math.max(d.end, d.start + 1);
    for (let i = d.start; i < end && i <= text.length; i++) err[i] = true;
  }
  let html = "", run = "", key = null;
  const flush = () => {
    if (!run) return;
    const [c, e] = key.split("|");
    const names = [c, e === "1" ? "err" : ""].filter(Boolean).join(" ");
    html += names ? `<span class="${names}">${escapeHtml(run)}</span>` : escapeHtml(run);
    run = "";
  };
  for (let i = 0; i < text.length; i++) {
    if (err[i] && text[i] === "\n") {
      // An error at a line's end: a visible mark before the line break.
      flush();
      key = null;
      html += '<span class="err"> </span>\n';
      continue;
    }
    const k = `${cls[i]}|${err[i] ? 1 : 0}`;
    if (k !== key) { flush(); key = k; }
    run += text[i];
  }
  flush();
  // An error at the very end (an unexpected end of input) gets a mark.
  if (err[text.length] && diagnostics.some((d) => d.severity === "error" && d.start >= text.length)) {
    html += '<span class="err"> </span>';
  }
  highlight.innerHTML = html + "\n";
  highlight.scrollTop = spec.scrollTop;
  highlight.scrollLeft = spec.scrollLeft;
}

function showDiagnostics(list) {
  diagnostics = list || [];
  const ul = $("diagnostics");
  ul.innerHTML = "";
  for (const d of diagnostics) {
    const li = document.createElement("li");
    li.className = d.severity;
    li.textContent = `${d.line}:${d.column}: ${d.severity}: ${d.message}` + (d.hint ? ` (${d.hint})` : "");
    ul.appendChild(li);
  }
  const errors = diagnostics.filter((d) => d.severity === "error").length;
  const st = $("spec-status");
  st.textContent = errors ? `${errors} error${errors > 1 ? "s" : ""}` : "well-formed";
  st.className = "status " + (errors ? "bad" : "good");
  renderHighlight();
}

async function post(path, body) {
  const r = await fetch(path, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
  let json;
  try { json = await r.json(); } catch (e) { json = { error: { kind: "http", message: `HTTP ${r.status}` } }; }
  return { status: r.status, json };
}

let checkTimer = null, checkSeq = 0;
function scheduleCheck() {
  renderHighlight();
  clearTimeout(checkTimer);
  checkTimer = setTimeout(async () => {
    const seq = ++checkSeq;
    const { json } = await post("/api/check", { spec: spec.value });
    if (seq === checkSeq && json.diagnostics) showDiagnostics(json.diagnostics);
  }, 250);
}

function options() {
  return { spec: spec.value, trace: trace.value, format: $("format").value, timed: $("timed").checked };
}

async function run() {
  const button = $("run");
  button.disabled = true;
  $("run-status").textContent = "running…";
  $("run-status").className = "status";
  const lines = trace.value.split("\n").length;
  const body = Object.assign(options(), { profile: $("profile").checked, profile_every: Math.max(1, Math.floor(lines / 300)) });
  try {
    const { json } = await post("/api/run", body);
    if (json.error && json.error.kind === "spec") {
      showDiagnostics(json.error.diagnostics);
      $("run-status").textContent = "the specification has errors";
      $("run-status").className = "status bad";
      return;
    }
    if (json.error && !json.status) {
      $("run-status").textContent = json.error.message;
      $("run-status").className = "status bad";
      return;
    }
    lastRun = { request: options(), result: json };
    showResult(json);
  } finally {
    button.disabled = false;
  }
}

function showResult(r) {
  const st = $("run-status");
  st.textContent = r.status + (r.error ? `: ${r.error.message}` : "");
  st.className = "status " + (r.status === "Satisfied" ? "good" : "bad");
  const s = r.summary;
  $("summary").textContent = `${s.events} events, ${s.violations} violation${s.violations === 1 ? "" : "s"}` +
    (r.warnings.length ? ` — ${r.warnings.join("; ")}` : "");
  const tbody = $("violations").querySelector("tbody");
  tbody.innerHTML = "";
  r.violations.forEach((v, k) => {
    const tr = document.createElement("tr");
    tr.dataset.index = k;
    const args = v.args.length ? `(${v.args.join(", ")})` : "";
    const witness = Object.entries(v.witness).map(([n, x]) => `${n}=${x === null ? "<any unseen value>" : x}`).join(" ");
    for (const [text, mono] of [[v.event, false], [v.line, false], [v.property, false], [v.name + args, true], [witness, true]]) {
      const td = document.createElement("td");
      td.textContent = text;
      if (mono) td.className = "mono";
      tr.appendChild(td);
    }
    tr.addEventListener("click", () => explain(k));
    tbody.appendChild(tr);
  });
  drawTimeline(r);
  drawProfile(r.profile);
}

function drawTimeline(r) {
  const svg = $("timeline");
  const w = svg.clientWidth || 800, h = 70, pad = 20;
  const n = Math.max(r.summary.events, 1);
  const x = (e) => pad + ((e - 0.5) / n) * (w - 2 * pad);
  let out = `<line x1="${pad}" y1="40" x2="${w - pad}" y2="40" class="tick"/>`;
  const step = Math.max(1, Math.ceil(r.events.length / 1500));
  for (let i = 0; i < r.events.length; i += step) {
    const [name] = r.events[i];
    out += `<line x1="${x(i + 1)}" y1="33" x2="${x(i + 1)}" y2="47" class="tick"><title>event ${i + 1}: ${escapeHtml(name)}</title></line>`;
  }
  r.violations.forEach((v, k) => {
    out += `<circle cx="${x(v.event)}" cy="20" r="5" class="viol" data-index="${k}"><title>event ${v.event}: ${escapeHtml(v.property)} violated</title></circle>`;
  });
  out += `<text x="${pad}" y="64" class="axis">1</text><text x="${w - pad}" y="64" class="axis" text-anchor="end">${n}</text>`;
  svg.innerHTML = out;
  svg.querySelectorAll(".viol").forEach((c) => c.addEventListener("click", () => explain(Number(c.dataset.index))));
}

async function explain(k) {
  if (!lastRun) return;
  const v = lastRun.result.violations[k];
  document.querySelectorAll("#violations tbody tr").forEach((tr) => tr.classList.toggle("selected", Number(tr.dataset.index) === k));
  $("why-status").textContent = "explaining…";
  const body = Object.assign({}, lastRun.request, { event: v.event, property: v.property });
  const { json } = await post("/api/why", body);
  const box = $("why");
  box.innerHTML = "";
  if (json.error) {
    $("why-status").textContent = json.error.message;
    $("why-status").className = "status bad";
    return;
  }
  $("why-status").textContent = `${v.property} at event ${v.event}`;
  $("why-status").className = "status";
  for (const e of json.explanations) {
    const head = document.createElement("div");
    head.className = "why-head";
    const values = Object.entries(e.assignment).map(([n, x]) => `${n}=${x === null ? "<any unseen value>" : x}`).join(" ");
    head.textContent = `property ${e.property} ${e.violated ? "violated" : "not violated"} at event ${e.event}: ${e.event_text}` +
      (values ? ` — for ${values}` : "") + ` — events cited: ${e.events.map((c) => `${c.event} ${c.text}`).join(", ") || "none"}`;
    box.appendChild(head);
    const tree = document.createElement("div");
    tree.className = "tree";
    tree.appendChild(node(e.proof, 0));
    box.appendChild(tree);
  }
}

// One node of a proof: a <details> that folds open, or a leaf.
function node(n, depth) {
  const label = document.createElement("span");
  label.innerHTML = `<span class="verdict ${n.holds}">${n.holds}</span><code>${escapeHtml(n.formula)}</code> at ${n.event}` +
    (n.reason ? ` <span class="reason">— ${escapeHtml(n.reason)}</span>` : "") +
    (n.events.length ? ` <span class="cites">[cites ${n.events.join(", ")}]</span>` : "");
  if (!n.children.length) {
    const leaf = document.createElement("div");
    leaf.className = "leaf";
    leaf.appendChild(label);
    return leaf;
  }
  const d = document.createElement("details");
  d.open = depth < 2;
  const s = document.createElement("summary");
  s.appendChild(label);
  d.appendChild(s);
  for (const c of n.children) d.appendChild(node(c, depth + 1));
  return d;
}

const COLORS = ["#3358a8", "#c62828", "#2e7d32", "#8e24aa", "#ef6c00", "#00838f", "#6d4c41", "#5c6bc0"];

function drawProfile(csv) {
  const pane = $("profile-pane");
  if (!csv) { pane.hidden = true; return; }
  pane.hidden = false;
  const rows = csv.trim().split("\n").map((l) => l.split(","));
  const header = rows.shift() || [];
  const series = header.map((h, i) => [h, i]).filter(([h, i]) => i >= 2 && !h.endsWith("gc collections"));
  const svg = $("profile-plot");
  const w = svg.clientWidth || 800, h = 240, pad = 36;
  const xs = rows.map((r) => Number(r[0]));
  const maxX = Math.max(1, ...xs);
  const maxY = Math.max(1, ...rows.flatMap((r) => series.map(([, i]) => Number(r[i]))));
  const px = (v) => pad + (v / maxX) * (w - 2 * pad), py = (v) => h - pad + 10 - (v / maxY) * (h - 2 * pad);
  let out = `<line x1="${pad}" y1="${py(0)}" x2="${w - pad}" y2="${py(0)}" stroke="#9aa3b8"/>` +
    `<line x1="${pad}" y1="${py(0)}" x2="${pad}" y2="${py(maxY)}" stroke="#9aa3b8"/>` +
    `<text x="${pad - 4}" y="${py(maxY) + 4}" text-anchor="end" font-size="10">${maxY}</text>` +
    `<text x="${w - pad}" y="${h - 6}" text-anchor="end" font-size="10">event ${maxX}</text>`;
  const legend = $("profile-legend");
  legend.innerHTML = "";
  series.forEach(([name, i], k) => {
    const color = COLORS[k % COLORS.length];
    const pts = rows.map((r) => `${px(Number(r[0]))},${py(Number(r[i]))}`).join(" ");
    out += `<polyline fill="none" stroke="${color}" stroke-width="1.5" points="${pts}"><title>${escapeHtml(name)}</title></polyline>`;
    const item = document.createElement("span"), swatch = document.createElement("i");
    swatch.style.background = color;
    item.append(swatch, name);
    legend.appendChild(item);
  });
  svg.innerHTML = out;
}

spec.addEventListener("input", scheduleCheck);
spec.addEventListener("scroll", () => { highlight.scrollTop = spec.scrollTop; highlight.scrollLeft = spec.scrollLeft; });
spec.addEventListener("keydown", (e) => {
  if (e.key === "Tab") {
    e.preventDefault();
    const { selectionStart: a, selectionEnd: b } = spec;
    spec.value = spec.value.slice(0, a) + "  " + spec.value.slice(b);
    spec.selectionStart = spec.selectionEnd = a + 2;
    scheduleCheck();
  }
});
$("run").addEventListener("click", run);
$("upload").addEventListener("change", () => {
  const f = $("upload").files[0];
  if (!f) return;
  const r = new FileReader();
  r.onload = () => {
    trace.value = r.result;
    if (/\.timed\./.test(f.name)) $("timed").checked = true;
  };
  r.readAsText(f);
});
scheduleCheck();
