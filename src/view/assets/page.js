// The page of `llm-in-sandbox view`. It asks the viewer's JSON endpoints (or, in an exported
// report, reads the embedded data with the same rules as the server's src/view/query.rs).
// Every string from a run reaches the page as a DOM text node: nothing here parses markup.
(function () {
  "use strict";

  const embeddedEl = document.getElementById("embedded");
  const DATA = embeddedEl ? JSON.parse(embeddedEl.textContent) : null;
  const TOKEN = new URLSearchParams(location.search).get("token");
  const S = {
    offset: 0, limit: 100, sort: "id", desc: false,
    domain: "", score: "", error: "", stop: "", q: "", only: "",
    version: null, summary: null, openKey: null, loading: 0,
  };
  const $ = (sel) => document.querySelector(sel);

  // An element with properties and children (strings become text nodes).
  function h(tag, props, ...kids) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(props || {})) {
      if (v == null || v === false) continue;
      if (k === "class") e.className = v;
      else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
      else if (k === "text") e.textContent = v;
      else e.setAttribute(k, v === true ? "" : String(v));
    }
    for (const kid of kids.flat(Infinity)) {
      if (kid == null || kid === false) continue;
      e.append(kid instanceof Node ? kid : document.createTextNode(String(kid)));
    }
    return e;
  }

  // ---- data: the viewer's endpoints, or the embedded data --------------------------------

  async function api(path, params) {
    if (DATA) return local(path, params || {});
    const u = new URL("api/" + path, location.href);
    for (const [k, v] of Object.entries(params || {})) {
      if (v !== "" && v != null && v !== false) u.searchParams.set(k, String(v));
    }
    const r = await fetch(u, { headers: TOKEN ? { Authorization: "Bearer " + TOKEN } : {} });
    let body = null;
    try { body = await r.json(); } catch (e) { body = null; }
    if (!r.ok) throw new Error((body && body.error) || "HTTP " + r.status);
    return body;
  }

  function fileUrl(run, key, path) {
    const u = new URL("api/file", location.href);
    u.searchParams.set("run", run);
    u.searchParams.set("key", key);
    u.searchParams.set("path", path);
    if (TOKEN) u.searchParams.set("token", TOKEN);
    return u.href;
  }

  function local(path, p) {
    if (path === "summary") return DATA.summary;
    if (path === "rows") return localRows(p);
    if (path === "episode") {
      const both = DATA.episodes[p.key];
      const e = both && both[p.run];
      if (!e) throw new Error("row " + p.key + " is not in this run");
      return e;
    }
    throw new Error("unknown " + path);
  }

  // The same rules as src/view/query.rs.
  const solved = (r) => !!r && r.score != null && r.score >= 1;
  const delta = (j) => (j.a && j.b ? (j.b.score || 0) - (j.a.score || 0) : null);
  const isDigit = (c) => c >= "0" && c <= "9";
  function natural(a, b) {
    let i = 0, j = 0;
    while (true) {
      if (i >= a.length && j >= b.length) return 0;
      if (i >= a.length) return -1;
      if (j >= b.length) return 1;
      if (isDigit(a[i]) && isDigit(b[j])) {
        let n = i; while (n < a.length && isDigit(a[n])) n++;
        let m = j; while (m < b.length && isDigit(b[m])) m++;
        const x = a.slice(i, n).replace(/^0+/, ""), y = b.slice(j, m).replace(/^0+/, "");
        if (x.length !== y.length) return x.length < y.length ? -1 : 1;
        if (x !== y) return x < y ? -1 : 1;
        i = n; j = m;
      } else {
        if (a[i] !== b[j]) return a[i] < b[j] ? -1 : 1;
        i++; j++;
      }
    }
  }
  const cmpNum = (x, y) => (x == null || y == null ? (x != null) - (y != null) : x < y ? -1 : x > y ? 1 : 0);
  const cmpStr = (x, y) => ((x || "") < (y || "") ? -1 : (x || "") > (y || "") ? 1 : 0);
  function compare(x, y, sort) {
    const a = x.a || x.b, b = y.a || y.b;
    let o = 0;
    switch (sort) {
      case "domain": o = cmpStr(a.domain, b.domain); break;
      case "score": o = cmpNum(a.score, b.score); break;
      case "delta": o = cmpNum(delta(x), delta(y)); break;
      case "steps": case "tokens": case "llm_seconds": case "sandbox_seconds":
        o = cmpNum(a[sort], b[sort]); break;
      case "stop": o = cmpStr(a.stop, b.stop); break;
      case "error": o = a.error == null || b.error == null ? (a.error != null) - (b.error != null) : cmpStr(a.error, b.error); break;
    }
    return o || natural(a.id, b.id) || a.repeat - b.repeat;
  }
  function matches(j, p, needle) {
    const r = j.a || j.b;
    if (p.domain && r.domain !== p.domain) return false;
    if (p.stop && r.stop !== p.stop) return false;
    if (p.score === "solved" && !solved(r)) return false;
    if (p.score === "failed" && !(r.score != null && r.score < 1)) return false;
    if (p.score === "unscored" && r.score != null) return false;
    if (p.error === "yes" && r.error == null) return false;
    if (p.error === "no" && r.error != null) return false;
    if (p.only === "a_not_b" && !(solved(j.a) && !solved(j.b))) return false;
    if (p.only === "b_not_a" && !(solved(j.b) && !solved(j.a))) return false;
    if (p.only === "changed") { const d = delta(j); if (d == null || d === 0) return false; }
    if (needle) {
      const hit = (s) => s != null && String(s).toLowerCase().includes(needle);
      const side = (r) => !!r && [r.id, r.domain, r.stop, r.ground_truth, r.answer, r.error, r.warning, r.problem_statement].some(hit);
      if (!side(j.a) && !side(j.b)) return false;
    }
    return true;
  }
  function localRows(p) {
    const needle = (p.q || "").trim().toLowerCase();
    const hits = DATA.rows.filter((j) => matches(j, p, needle));
    hits.sort((x, y) => (p.desc ? -1 : 1) * compare(x, y, p.sort || "id"));
    const limit = Math.min(Math.max(Number(p.limit) || 100, 1), 1000);
    const offset = Number(p.offset) || 0;
    return { total: DATA.rows.length, matched: hits.length, offset, limit, rows: hits.slice(offset, offset + limit) };
  }

  // ---- formatting --------------------------------------------------------------------------

  const pct = (v) => (v == null ? "–" : (v * 100).toFixed(1) + "%");
  const secs = (v) => (v == null ? "" : Number(v).toFixed(2));
  // Why an episode ended, in words (results.jsonl keeps the names).
  const STOP_WORDS = { submitted: "submitted", max_steps: "step limit", token_limit: "token limit",
    context_length: "context full", llm_error: "model endpoint failed", host_error: "sandbox host failed" };
  const stopWords = (v) => (v == null || v === "" ? "" : STOP_WORDS[v] || String(v));
  function scoreCell(r) {
    if (!r) return h("td", { class: "num muted" }, "·");
    if (r.score == null) return h("td", { class: "num err c-score" }, "error");
    const cls = r.score >= 1 ? "score-1" : r.score <= 0 ? "score-0" : "";
    return h("td", { class: "num c-score " + cls }, String(Math.round(r.score * 1000) / 1000));
  }
  function deltaCell(d) {
    if (d == null) return h("td", { class: "num muted c-delta" }, "");
    const cls = d > 0 ? "pos" : d < 0 ? "neg" : "";
    return h("td", { class: "num c-delta " + cls }, (d > 0 ? "+" : "") + String(Math.round(d * 1000) / 1000));
  }
  const runName = (i) => (i === 0 ? "A" : "B");

  // ---- summary -----------------------------------------------------------------------------

  function renderSummary(s) {
    const sec = $("#summary");
    const two = s.runs.length > 1;
    const cards = s.runs.map((run, i) => {
      const m = run.summary, c = m.config || {};
      const o = m.overall || {};
      const dl = h("dl", {},
        [["folder", run.folder], ["task", m.task], ["model", c.model || c.llm_name], ["mode", c.mode],
         ["rows", o.rows], ["scored / errors", (o.scored || 0) + " / " + (o.errors || 0)],
         ["mean score (errors as 0)", pct(o.mean_score)], ["mean over scored rows", pct(o.mean_score_scored)],
         ["tokens", m.tokens], ["model / sandbox seconds", secs(m.llm_seconds) + " / " + secs(m.sandbox_seconds)],
         ["elapsed", m.elapsed_time_seconds ? secs(m.elapsed_time_seconds) + " s" : ""]]
          .filter(([, v]) => v != null && v !== "")
          .map(([k, v]) => [h("dt", {}, k), h("dd", {}, String(v))]));
      const domains = Object.entries(m.domains || {});
      const table = h("table", { class: "summary-table" },
        h("thead", {}, h("tr", {}, ["domain", "rows", "errors", "score", "scored"].map((t) => h("th", {}, t)))),
        h("tbody", {}, domains.concat([["overall", o]]).map(([d, g]) =>
          h("tr", {}, h("td", {}, d === "overall" ? h("b", {}, "overall") : d || "(none)"), h("td", {}, String(g.rows || 0)),
            h("td", {}, String(g.errors || 0)), h("td", {}, pct(g.mean_score)), h("td", {}, pct(g.mean_score_scored))))));
      const settings = h("details", {}, h("summary", {}, "settings"), h("pre", {}, JSON.stringify(c, null, 2)));
      const notes = (m.notes || []).map((n) => h("p", { class: "notes" }, n));
      return h("div", { class: "run-card", "data-run": i },
        h("h2", {}, (two ? runName(i) + ": " : "") + run.label), dl, table, settings, notes);
    });
    const img = h("img", { alt: "score per domain", src: "data:image/svg+xml;charset=utf-8," + encodeURIComponent(s.svg) });
    sec.replaceChildren(h("div", { class: "runs" }, cards, h("div", { class: "chart" }, img)));
    document.title = s.runs.map((r) => r.summary.task + " · " + r.label).join(" vs ") + " · llm-in-sandbox view";
    $("#title").textContent = two ? "Two runs: A vs B" : "Run: " + (s.runs[0] ? s.runs[0].folder : "");
  }

  // ---- filters and the table ---------------------------------------------------------------

  function select(id, label, options, key) {
    const sel = h("select", { id, onchange: () => { S[key] = key === "limit" ? Number(sel.value) : sel.value; S.offset = 0; loadRows(); } },
      options.map(([v, t]) => h("option", { value: v }, t)));
    sel.value = S[key];
    return h("label", {}, label, sel);
  }
  function setOptions(id, values, key) {
    const sel = document.getElementById(id);
    if (!sel) return;
    const want = [""].concat(values);
    const have = Array.from(sel.options).map((o) => o.value);
    if (want.join("\u0000") === have.join("\u0000")) return;
    const label = key === "stop" ? stopWords : (v) => v;
    sel.replaceChildren(...want.map((v) => h("option", { value: v }, v === "" ? "all" : label(v) || "(none)")));
    sel.value = want.includes(S[key]) ? S[key] : "";
  }
  function buildFilters(two) {
    let timer = null;
    const q = h("input", { id: "f-q", type: "search", placeholder: "id, answer, error, task text…",
      oninput: () => { clearTimeout(timer); timer = setTimeout(() => { S.q = q.value; S.offset = 0; loadRows(); }, 250); } });
    const parts = [
      select("f-domain", "domain", [["", "all"]], "domain"),
      select("f-score", "score", [["", "all"], ["solved", "solved (1)"], ["failed", "below 1"], ["unscored", "no score"]], "score"),
      select("f-error", "error", [["", "all"], ["yes", "with error"], ["no", "without"]], "error"),
      select("f-stop", "stop", [["", "all"]], "stop"),
    ];
    if (two) {
      parts.push(select("f-only", "compare", [["", "all rows"], ["a_not_b", "solved in A, not in B"],
        ["b_not_a", "solved in B, not in A"], ["changed", "score changed"]], "only"));
    }
    parts.push(h("label", {}, "search", q));
    parts.push(select("f-limit", "rows per page", [["50", "50"], ["100", "100"], ["250", "250"], ["500", "500"]], "limit"));
    $("#filters").replaceChildren(...parts);
    $("#filters").addEventListener("submit", (e) => e.preventDefault());
  }

  function columns(two) {
    const A = (j) => j.a, B = (j) => j.b;
    const text = (cls, f) => (j) => { const v = f(j); return h("td", { class: cls }, v == null ? "" : String(v)); };
    const main = (j) => j.a || j.b;
    const num = (cls, side, k, fmt) => (j) => { const r = side(j); return h("td", { class: "num " + cls }, r ? (fmt ? fmt(r[k]) : String(r[k])) : ""); };
    const errCell = (side) => (j) => { const r = side(j); return h("td", { class: "err c-error" }, r && r.error ? r.error : ""); };
    if (!two) {
      return [
        ["id", "id", text("c-id", (j) => main(j).id + (main(j).repeat ? " #" + main(j).repeat : ""))],
        ["domain", "domain", text("c-domain", (j) => main(j).domain)],
        ["score", "score", (j) => scoreCell(j.a)],
        ["ground truth", null, text("c-truth", (j) => main(j).ground_truth)],
        ["answer", null, text("c-answer", (j) => main(j).answer)],
        ["steps", "steps", num("c-steps", A, "steps")],
        ["tokens", "tokens", num("c-tokens", A, "tokens")],
        ["model s", "llm_seconds", num("", A, "llm_seconds", secs)],
        ["sandbox s", "sandbox_seconds", num("", A, "sandbox_seconds", secs)],
        ["stop", "stop", text("c-stop", (j) => stopWords(main(j).stop))],
        ["error", "error", errCell(A)],
      ];
    }
    return [
      ["id", "id", text("c-id", (j) => main(j).id + (main(j).repeat ? " #" + main(j).repeat : ""))],
      ["domain", "domain", text("c-domain", (j) => main(j).domain)],
      ["A score", "score", (j) => scoreCell(j.a)],
      ["B score", null, (j) => scoreCell(j.b)],
      ["Δ (B−A)", "delta", (j) => deltaCell(j.delta)],
      ["ground truth", null, text("c-truth", (j) => main(j).ground_truth)],
      ["A answer", null, text("c-answer", (j) => j.a && j.a.answer)],
      ["B answer", null, text("c-answer-b", (j) => j.b && j.b.answer)],
      ["A steps", "steps", num("", A, "steps")],
      ["B steps", null, num("", B, "steps")],
      ["A stop", "stop", text("", (j) => j.a && stopWords(j.a.stop))],
      ["B stop", null, text("", (j) => j.b && stopWords(j.b.stop))],
      ["A error", "error", errCell(A)],
      ["B error", null, errCell(B)],
    ];
  }

  function buildHead() {
    const tr = h("tr", {}, S.cols.map(([label, sort]) => {
      const th = h("th", { class: sort === S.sort ? "sorted" + (S.desc ? " desc" : "") : "", "data-sort": sort || "" }, label);
      if (sort) th.addEventListener("click", () => {
        if (S.sort === sort) S.desc = !S.desc; else { S.sort = sort; S.desc = false; }
        S.offset = 0; buildHead(); loadRows();
      });
      return th;
    }));
    $("#rows thead").replaceChildren(tr);
  }

  async function loadRows() {
    const ticket = ++S.loading;
    const params = { offset: S.offset, limit: S.limit, sort: S.sort, desc: S.desc,
      domain: S.domain, score: S.score, error: S.error, stop: S.stop, q: S.q, only: S.only };
    let page;
    try { page = await api("rows", params); } catch (e) { showError(e); return; }
    if (ticket !== S.loading) return; // a newer request is on its way
    const body = $("#rows tbody");
    body.replaceChildren(...page.rows.map((j) => {
      const tr = h("tr", { "data-key": j.key, class: j.key === S.openKey ? "open" : "",
        onclick: () => openEpisode(j.key) }, S.cols.map(([, , cell]) => cell(j)));
      return tr;
    }));
    const first = page.matched ? page.offset + 1 : 0;
    const last = Math.min(page.offset + page.rows.length, page.matched);
    const info = h("span", { class: "count" }, "rows " + first + "–" + last + " of " + page.matched +
      (page.matched !== page.total ? " matching (" + page.total + " in all)" : ""));
    const prev = h("button", { type: "button", disabled: page.offset === 0,
      onclick: () => { S.offset = Math.max(0, S.offset - S.limit); loadRows(); } }, "‹ previous");
    const next = h("button", { type: "button", disabled: last >= page.matched,
      onclick: () => { S.offset += S.limit; loadRows(); } }, "next ›");
    $("#pager").replaceChildren(prev, info, next);
    $("#pager-top").replaceChildren(info.cloneNode(true));
    $("#rows").setAttribute("data-matched", page.matched);
  }

  // ---- one row's episode -------------------------------------------------------------------

  const PALETTE = ["#6e7681", "#ff7b72", "#3fb950", "#d29922", "#58a6ff", "#bc8cff", "#39c5cf", "#e6edf3",
    "#8b949e", "#ffa198", "#56d364", "#e3b341", "#79c0ff", "#d2a8ff", "#56d4dd", "#ffffff"];
  function color256(n) {
    if (n < 16) return PALETTE[n];
    if (n >= 232) { const g = 8 + (n - 232) * 10; return "rgb(" + g + "," + g + "," + g + ")"; }
    n -= 16;
    const v = (x) => (x ? 55 + x * 40 : 0);
    return "rgb(" + v(Math.floor(n / 36)) + "," + v(Math.floor(n / 6) % 6) + "," + v(n % 6) + ")";
  }
  // Terminal output with SGR colours as spans (observations keep only what the reference's
  // stripping leaves, e.g. the colon form `ESC[38:5:Nm`); other escape sequences dropped.
  function ansi(src, into) {
    const s = src.replace(/\x1b\][^\x07\x1b]*(\x07|\x1b\\)?/g, "");
    const re = /\x1b\[([0-9;:?]*)([A-Za-z])/g;
    const st = { fg: null, bg: null, b: false, i: false, u: false };
    let last = 0, m;
    const emit = (t) => {
      t = t.replace(/\x1b/g, "");
      if (!t) return;
      if (!st.fg && !st.bg && !st.b && !st.i && !st.u) { into.append(t); return; }
      const sp = document.createElement("span");
      sp.className = [st.b && "ansi-b", st.i && "ansi-i", st.u && "ansi-u"].filter(Boolean).join(" ");
      if (st.fg) sp.style.color = st.fg;
      if (st.bg) sp.style.backgroundColor = st.bg;
      sp.textContent = t;
      into.append(sp);
    };
    while ((m = re.exec(s))) {
      emit(s.slice(last, m.index));
      last = re.lastIndex;
      if (m[2] !== "m") continue;
      const c = m[1] === "" ? [0] : m[1].split(/[;:]/).map(Number);
      for (let k = 0; k < c.length; k++) {
        const x = c[k];
        if (x === 0) Object.assign(st, { fg: null, bg: null, b: false, i: false, u: false });
        else if (x === 1) st.b = true;
        else if (x === 3) st.i = true;
        else if (x === 4) st.u = true;
        else if (x === 22) st.b = false;
        else if (x === 23) st.i = false;
        else if (x === 24) st.u = false;
        else if (x === 39) st.fg = null;
        else if (x === 49) st.bg = null;
        else if (x >= 30 && x <= 37) st.fg = PALETTE[x - 30];
        else if (x >= 90 && x <= 97) st.fg = PALETTE[x - 90 + 8];
        else if (x >= 40 && x <= 47) st.bg = PALETTE[x - 40];
        else if (x >= 100 && x <= 107) st.bg = PALETTE[x - 100 + 8];
        else if ((x === 38 || x === 48) && c[k + 1] === 5) {
          st[x === 38 ? "fg" : "bg"] = color256(c[k + 2] || 0); k += 2;
        } else if ((x === 38 || x === 48) && c[k + 1] === 2) {
          st[x === 38 ? "fg" : "bg"] = "rgb(" + (c[k + 2] || 0) + "," + (c[k + 3] || 0) + "," + (c[k + 4] || 0) + ")"; k += 4;
        }
      }
    }
    emit(s.slice(last));
    return into;
  }

  // Long output: the first lines, and a button for the rest.
  const FOLD_LINES = 60, FOLD_CHARS = 4000;
  function folded(textIn, render) {
    const box = h("div", { class: "folded" });
    const lines = textIn.split("\n");
    if (lines.length <= FOLD_LINES + 10 && textIn.length <= FOLD_CHARS * 1.5) {
      box.append(render(textIn));
      return box;
    }
    let head = lines.slice(0, FOLD_LINES).join("\n");
    if (head.length > FOLD_CHARS) head = head.slice(0, FOLD_CHARS);
    const btn = h("button", { type: "button", class: "fold" },
      "show all " + lines.length + " lines (" + textIn.length + " characters)");
    btn.addEventListener("click", () => box.replaceChildren(render(textIn)));
    box.append(render(head + "\n…"), btn);
    return box;
  }

  const KEYWORDS = {
    python: new Set(("def class return if elif else for while in import from as with try except finally raise " +
      "lambda None True False and or not is pass break continue yield global nonlocal assert del async await").split(" ")),
    bash: new Set(("if then else elif fi for do done while until case esac function in echo cd ls cat grep sed awk " +
      "python python3 pip export return exit set unset local head tail find mkdir rm cp mv").split(" ")),
  };
  // A small highlighter: comments, strings, numbers and keywords as spans.
  function code(src, lang) {
    const pre = h("pre", { class: "code" });
    const kw = KEYWORDS[lang];
    if (!kw || src.length > 200000) { pre.textContent = src; return pre; }
    const re = /(#[^\n]*)|("(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')|\b(\d+(?:\.\d+)?)\b|([A-Za-z_][A-Za-z0-9_]*)/g;
    let last = 0, m;
    while ((m = re.exec(src))) {
      if (m.index > last) pre.append(src.slice(last, m.index));
      if (m[1]) pre.append(h("span", { class: "c" }, m[1]));
      else if (m[2]) pre.append(h("span", { class: "s" }, m[2]));
      else if (m[3]) pre.append(h("span", { class: "n" }, m[3]));
      else if (kw.has(m[4])) pre.append(h("span", { class: "k" }, m[4]));
      else pre.append(m[4]);
      last = re.lastIndex;
    }
    pre.append(src.slice(last));
    return pre;
  }
  function langOf(fn, key, params) {
    if (fn === "execute_bash" && key === "command") return "bash";
    const path = typeof params.path === "string" ? params.path : "";
    if (/\.py$/.test(path) || key === "code") return "python";
    if (/\.(sh|bash)$/.test(path)) return "bash";
    return "";
  }
  function renderArgs(fn, params) {
    if (params == null || typeof params !== "object") return h("pre", { class: "code" }, String(params));
    const box = h("div", { class: "args" });
    for (const [k, v] of Object.entries(params)) {
      if (typeof v === "string" && (v.includes("\n") || v.length > 80 || langOf(fn, k, params))) {
        box.append(h("div", { class: "label" }, k), folded(v, (t) => code(t, langOf(fn, k, params))));
      } else {
        box.append(h("div", {}, h("span", { class: "muted" }, k + ": "),
          h("code", {}, typeof v === "string" ? v : JSON.stringify(v))));
      }
    }
    return box;
  }

  function renderStep(st, usage) {
    const md = st.metadata || {};
    const act = st.action || {};
    const u = usage && usage[String(md.step)];
    const head = h("div", { class: "head" },
      h("b", {}, "step " + (md.step != null ? md.step : "?")),
      act.function ? h("span", {}, "tool ", h("b", {}, act.function)) : h("span", {}, "no tool call"),
      md.exec_time != null ? h("span", {}, "model " + secs(md.exec_time) + " s") : null,
      md.tool_time != null ? h("span", {}, "tool " + secs(md.tool_time) + " s") : null,
      md.exit_code != null ? h("span", { class: md.exit_code ? "err" : "" }, "exit " + md.exit_code) : null,
      u && u.usage ? h("span", {}, "tokens " + (u.usage.prompt_tokens || 0) + " in / " + (u.usage.completion_tokens || 0) + " out") : null);
    const body = h("div", { class: "body" });
    if (st.reasoning_content) {
      body.append(h("details", {}, h("summary", {}, "reasoning"), h("div", { class: "thought" }, st.reasoning_content)));
    }
    if (st.thought) body.append(h("div", { class: "label" }, "thought"), h("div", { class: "thought" }, st.thought));
    if (act.function) {
      body.append(h("div", { class: "label" }, "tool call: " + act.function), renderArgs(act.function, act.parameters));
    }
    if (st.observation != null && st.observation !== "") {
      body.append(h("div", { class: "label" }, "observation"),
        folded(String(st.observation), (t) => ansi(t, h("pre", { class: "obs" }))));
    }
    return h("div", { class: "step", "data-step": md.step }, head, body);
  }

  function renderFiles(files, run, key) {
    if (!files || !files.length) return null;
    const list = h("ul", { class: "files" });
    for (const f of files) {
      const li = h("li", { "data-path": f.path });
      const name = DATA ? h("code", {}, f.path) : h("a", { href: fileUrl(run, key, f.path), target: "_blank", rel: "noopener" }, f.path);
      li.append(name, h("span", { class: "muted" }, " " + f.size + " bytes"));
      if (f.omitted) li.append(h("div", { class: "muted" }, "not included: " + f.omitted));
      else if (f.kind === "image") {
        li.append(h("img", { alt: f.path, src: DATA ? f.data_url : fileUrl(run, key, f.path) }));
      } else if (DATA) {
        if (f.text != null) li.append(folded(f.text, (t) => h("pre", { class: "file-text" }, t)));
      } else {
        const show = async (target) => {
          try {
            const r = await fetch(fileUrl(run, key, f.path));
            if (!r.ok) throw new Error("HTTP " + r.status);
            const buf = await r.arrayBuffer();
            let t;
            try { t = new TextDecoder("utf-8", { fatal: true }).decode(buf); } catch (e) { t = null; }
            target.replaceWith(t == null ? h("div", { class: "muted" }, "a binary file")
              : folded(t, (x) => h("pre", { class: "file-text" }, x)));
          } catch (e) { target.replaceWith(h("div", { class: "err" }, "cannot read: " + e.message)); }
        };
        const slot = h("div", {});
        li.append(slot);
        if (f.size <= 65536) show(slot);
        else slot.append(h("button", { type: "button", onclick: () => show(slot) }, "show"));
      }
      list.append(li);
    }
    return h("div", {}, h("h3", {}, "files the episode left"), list);
  }

  function renderVerdict(r) {
    const rows = [
      ["score", r.score == null ? "none (error)" : String(r.score)],
      ["answer", r.answer == null ? "(none)" : r.answer],
      ["ground truth", r.ground_truth],
      ["stop", stopWords(r.stop)],
      ["turns without a tool call", r.no_call_steps || null],
      ["error", r.error], ["warning", r.warning],
      ["scorer's score (before the judge)", r.reward],
      ["steps / tokens", r.steps + " / " + r.tokens],
      ["model / sandbox seconds", secs(r.llm_seconds) + " / " + secs(r.sandbox_seconds)],
    ].filter(([, v]) => v != null && v !== "");
    const box = h("div", { class: "verdict" }, h("dl", {}, rows.map(([k, v]) =>
      h("div", {}, h("span", { class: "muted" }, k + ": "), h("span", { class: "v-" + k.split(" ")[0] }, String(v))))));
    if (r.judge) box.append(h("details", { open: true }, h("summary", {}, "judge verdicts"), h("pre", {}, JSON.stringify(r.judge, null, 2))));
    return box;
  }

  function renderEpisode(ep, run, key, label) {
    const side = h("div", { class: "side", "data-run": run });
    side.append(h("h3", {}, label));
    if (ep.error) { side.append(h("p", { class: "muted" }, ep.error)); return side; }
    if (ep.row) side.append(renderVerdict(ep.row));
    if (ep.note) side.append(h("p", { class: "notes" }, ep.note));
    const t = ep.trajectory;
    if (t && typeof t === "object") {
      if (t.system_prompt) side.append(h("details", {}, h("summary", {}, "system prompt"), h("pre", { class: "prompt" }, t.system_prompt)));
      const user = t.user_prompt || t.problem_statement;
      if (user) side.append(h("div", { class: "label" }, t.user_prompt ? "user prompt" : "task"), h("pre", { class: "prompt user-prompt" }, user));
      const steps = Array.isArray(t.steps) ? t.steps : [];
      // A row run again (a resumed benchmark): its earlier attempts, each folded, then this one.
      const earlier = Array.isArray(ep.attempts) ? ep.attempts : [];
      for (const a of earlier) {
        const list = Array.isArray(a.steps) ? a.steps : [];
        const box = h("details", { class: "attempt", "data-attempt": a.attempt },
          h("summary", {}, "attempt " + a.attempt + ": " + a.ended + " (" + list.length + " steps)"));
        for (const st of list) box.append(renderStep(st, null));
        side.append(box);
      }
      const which = earlier.length ? "attempt " + (t.attempt || earlier.length + 1) + " (the one scored) · " : "";
      side.append(h("div", { class: "muted this-attempt" }, which + steps.length + " steps" + (ep.source ? " · from " + ep.source : "") +
        (t.status === "running" ? " · still running" : "")));
      for (const st of steps) side.append(renderStep(st, ep.usage));
      if (t.stop) {
        const why = stopWords(t.stop.reason) + (t.stop.detail ? ": " + t.stop.detail : "");
        side.append(h("div", { class: "label" }, "end"), h("pre", { class: "stop" }, why));
      }
      if (t.answer != null) side.append(h("div", { class: "label" }, "answer file"), h("pre", { class: "answer" }, String(t.answer)));
      if (t.usage) side.append(h("div", { class: "muted" }, "tokens: " + (t.usage.total_tokens || 0) +
        " (" + (t.usage.prompt_tokens || 0) + " prompt, " + (t.usage.completion_tokens || 0) + " completion)"));
      if (Array.isArray(t.installed) && t.installed.length) {
        side.append(h("div", { class: "muted" }, "installed: " + t.installed.map((p) => p.name + " " + p.version).join(", ")));
      }
    }
    if (ep.log) side.append(h("div", { class: "label" }, "console log"), folded(ep.log, (x) => h("pre", { class: "log" }, x)));
    const files = renderFiles(ep.files, run, key);
    if (files) side.append(files);
    return side;
  }

  async function openEpisode(key) {
    S.openKey = key;
    for (const tr of document.querySelectorAll("#rows tbody tr")) tr.classList.toggle("open", tr.getAttribute("data-key") === key);
    const sec = $("#episode");
    sec.hidden = false;
    sec.replaceChildren(h("p", { class: "muted" }, "loading " + key + "…"));
    const n = S.summary ? S.summary.runs.length : 1;
    const eps = await Promise.all(Array.from({ length: n }, (_, i) =>
      Promise.resolve().then(() => api("episode", { run: i, key })).catch((e) => ({ error: e.message }))));
    if (S.openKey !== key) return;
    const close = h("button", { type: "button", class: "close", onclick: () => { sec.hidden = true; S.openKey = null; history.replaceState(null, "", location.pathname + location.search); } }, "close");
    const labels = S.summary.runs.map((r, i) => (n > 1 ? runName(i) + ": " : "") + r.label);
    sec.replaceChildren(close, h("h2", {}, "row " + key),
      h("div", { class: "sides" }, eps.map((ep, i) => renderEpisode(ep, i, key, labels[i]))));
    sec.setAttribute("data-key", key);
    history.replaceState(null, "", location.pathname + location.search + "#row=" + encodeURIComponent(key));
    sec.scrollIntoView({ block: "start" });
  }

  function showError(e) {
    $("#live").textContent = "error: " + (e && e.message ? e.message : String(e));
  }

  // ---- live updates: poll the summary's version, reload the page of rows when it changes ---

  async function poll() {
    try {
      const s = await api("summary");
      if (s.version !== S.version) {
        S.version = s.version;
        S.summary = s;
        renderSummary(s);
        setOptions("f-domain", s.domains, "domain");
        setOptions("f-stop", s.stops, "stop");
        await loadRows();
      }
      $("#live").textContent = "live · checked " + new Date().toLocaleTimeString();
    } catch (e) {
      showError(e);
    }
    setTimeout(poll, 1500);
  }

  async function init() {
    const s = await api("summary");
    S.summary = s;
    S.version = s.version;
    const two = s.runs.length > 1;
    S.cols = columns(two);
    buildFilters(two);
    renderSummary(s);
    setOptions("f-domain", s.domains, "domain");
    setOptions("f-stop", s.stops, "stop");
    buildHead();
    await loadRows();
    if (DATA) $("#live").textContent = "exported report";
    else setTimeout(poll, 1500);
    const m = /row=([^&]*)/.exec(location.hash);
    if (m) openEpisode(decodeURIComponent(m[1]));
    document.body.setAttribute("data-ready", "1");
  }
  init().catch(showError);
})();
