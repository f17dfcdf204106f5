// The Board benchmark's page side: evaluated once per page (page.evaluate), it defines
// window.__tbnbBench. Every time is performance.now() in the page, so nothing measured includes a
// round trip to Playwright. Checks of chart data run in a MutationObserver (right after the task
// or animation-frame callback that changed a chart) and once per animation frame; element
// geometry (which forces a layout) is read once per frame, and again only to confirm a result.
(() => {
  if (window.__tbnbBench) return true;
  const B = (window.__tbnbBench = {});
  const now = () => performance.now();

  // ------------------------------------------------------------------ kernel messages, both ways

  B.msgs = [];

  function panelOf(path) {
    const app = window.jupyterapp;
    for (const w of app.shell.widgets("main")) {
      if (w && w.context && w.context.path === path && w.sessionContext) return w;
    }
    return null;
  }

  function bufferBytes(msg) {
    let n = 0;
    for (const b of msg.buffers || []) n += b.byteLength || 0;
    return n;
  }

  function record(msg, direction) {
    const type = msg.header && msg.header.msg_type;
    const parent = msg.parent_header || {};
    const entry = { t: now(), dir: direction, type, id: msg.header.msg_id, parentId: parent.msg_id || null, parentType: parent.msg_type || null };
    if (type === "status") {
      if (parent.msg_type !== "execute_request") return;
      entry.state = msg.content.execution_state;
    } else if (type === "comm_msg") {
      const data = (msg.content && msg.content.data) || {};
      entry.method = data.method || null;
      const c = data.method === "custom" ? data.content || {} : null;
      if (c) {
        entry.custom = c.type || null;
        entry.reqId = c.id ?? null;
        entry.tag = c.tag ?? null;
        if (Array.isArray(c.series)) entry.points = c.series.reduce((n, s) => n + (s.sent || 0), 0);
      }
      entry.bufferBytes = bufferBytes(msg);
      entry.jsonBytes = JSON.stringify(msg.content).length;
    } else if (type === "execute_request" || type === "execute_input" || type === "execute_reply") {
      entry.date = msg.header.date;
    } else {
      return;
    }
    B.msgs.push(entry);
  }

  B.hookKernel = (path) => {
    const panel = panelOf(path);
    const kernel = panel && panel.sessionContext.session && panel.sessionContext.session.kernel;
    if (!kernel) throw new Error(`no kernel for ${path}`);
    if (B.hooked !== kernel) {
      kernel.anyMessage.connect((_k, args) => record(args.msg, args.direction));
      B.hooked = kernel;
    }
    return true;
  };

  /** Run `code` in the notebook's kernel (not in a cell) and resolve with what it printed. */
  B.kernelExec = async (path, code) => {
    const kernel = panelOf(path).sessionContext.session.kernel;
    const future = kernel.requestExecute({ code, silent: false, store_history: false });
    let text = "";
    future.onIOPub = (msg) => {
      if (msg.header.msg_type === "stream") text += msg.content.text;
      else if (msg.header.msg_type === "error") text += `${msg.content.ename}: ${msg.content.evalue}`;
    };
    await future.done;
    return text;
  };

  B.kernelId = (path) => panelOf(path).sessionContext.session.kernel.id;

  B.clearMsgs = () => {
    B.msgs = [];
    return B.clearCalls();
  };

  B.clearCalls = () => {
    window.__tbnbBenchPlotly.calls.length = 0;
    return true;
  };

  // ------------------------------------------------------------------ geometry and chart state

  const rect = (q) => ({ l: q.left, t: q.top, r: q.right, b: q.bottom });
  const cut = (a, b) => ({ l: Math.max(a.l, b.l), t: Math.max(a.t, b.t), r: Math.min(a.r, b.r), b: Math.min(a.b, b.b) });
  const area = (q, r) => Math.max(0, Math.min(q.right, r.r) - Math.max(q.left, r.l)) * Math.max(0, Math.min(q.bottom, r.b) - Math.max(q.top, r.t));

  /** What of `el` the user can see: the window's viewport cut by every clipping ancestor. */
  function clipRect(el) {
    let r = { l: 0, t: 0, r: window.innerWidth, b: window.innerHeight };
    for (let a = el; a && a !== document.body && a !== document.documentElement; a = a.parentElement) {
      const s = getComputedStyle(a);
      if (a === el || s.overflowX !== "visible" || s.overflowY !== "visible") r = cut(r, rect(a.getBoundingClientRect()));
    }
    return r;
  }

  B.boardRoot = (cellIndex, boardIndex = 0) => {
    const cell = document.querySelectorAll(".jp-Notebook .jp-Cell")[cellIndex];
    return cell ? cell.querySelectorAll(".tbnb")[boardIndex] || null : null;
  };

  const cardsOf = (root) => [...root.querySelectorAll(".tbnb-card")];
  const tagOf = (card) => card.dataset.tag;

  /** visible: cards the user can see; inScroller: cards in the board's own scroll area (the
   * Board's IntersectionObserver root), which may reach below the window's bottom edge. */
  function geometry(root) {
    const main = root.querySelector(".tbnb-main");
    const clip = clipRect(main);
    const scroller = rect(main.getBoundingClientRect());
    const visible = [];
    const inScroller = [];
    for (const card of cardsOf(root)) {
      const q = card.getBoundingClientRect();
      if (area(q, clip) > 0) visible.push(card);
      if (area(q, scroller) > 0) inScroller.push(card);
    }
    return { visible, inScroller, clip, scroller };
  }

  /** A card's chart is drawn with all its runs: 2 traces per run (raw, smoothed), each with x. */
  function drawn(card, runs) {
    const plot = card.querySelector(".tbnb-plot");
    const data = plot && plot.data;
    if (!data || !plot._fullLayout || data.length !== 2 * runs) return false;
    for (const t of data) if (!t.x || !t.x.length) return false;
    return true;
  }

  B.describe = (cellIndex, runs, boardIndex = 0) => {
    const root = B.boardRoot(cellIndex, boardIndex);
    if (!root) return null;
    const g = geometry(root);
    const main = root.querySelector(".tbnb-main");
    const cards = cardsOf(root);
    const settings = root.querySelector(".tbnb-settings");
    return {
      cards: cards.length,
      visible: g.visible.map(tagOf),
      inScroller: g.inScroller.map(tagOf),
      drawn: cards.filter((c) => drawn(c, runs)).map(tagOf),
      plotted: cards.filter((c) => c.querySelector(".js-plotly-plot")).map(tagOf),
      clip: g.clip,
      scroller: g.scroller,
      scrollTop: main.scrollTop,
      scrollHeight: main.scrollHeight,
      clientHeight: main.clientHeight,
      cardHeight: cards.length ? cards[0].getBoundingClientRect().height : null,
      columns: new Set(cards.map((c) => Math.round(c.getBoundingClientRect().left))).size,
      settingsOpen: Boolean(settings && !settings.hidden),
      viewport: { w: window.innerWidth, h: window.innerHeight },
    };
  };

  /** Calls `check(fromFrame)` after every DOM change under `target` and once per frame until
   * it returns true or `timeoutMs` passes; resolves with whether it succeeded. */
  function watch(target, check, timeoutMs) {
    return new Promise((resolve) => {
      let finished = false;
      let frame = null;
      const finish = (ok) => {
        if (finished) return;
        finished = true;
        observer.disconnect();
        if (frame !== null) cancelAnimationFrame(frame);
        clearTimeout(timer);
        resolve(ok);
      };
      const run = (fromFrame) => {
        if (!finished && check(fromFrame)) finish(true);
      };
      const observer = new MutationObserver(() => run(false));
      observer.observe(target, { childList: true, subtree: true, attributes: true, characterData: true });
      const tick = () => {
        frame = requestAnimationFrame(tick);
        run(true);
      };
      frame = requestAnimationFrame(tick);
      const timer = setTimeout(() => finish(false), timeoutMs);
      run(true);
    });
  }

  // ------------------------------------------------------------------ 1. first draw

  /** Start watching cell `cellIndex` for a Board; B.first fills in as it draws. */
  B.watchFirstDraw = (cellIndex, runs, timeoutMs) => {
    const cell = document.querySelectorAll(".jp-Notebook .jp-Cell")[cellIndex];
    const old = cell.querySelector(".tbnb"); // a Board from an earlier run of the cell: not this one
    const w = (B.first = { armedAt: now(), rootAt: null, cardsAt: null, firstChartAt: null, doneAt: null, drawnAt: {}, ok: null, frames: 0 });
    let visible = null;
    const check = (fromFrame) => {
      const t = now();
      if (fromFrame) w.frames += 1;
      const root = cell.querySelector(".tbnb");
      if (!root || root === old) return false;
      if (w.rootAt === null) w.rootAt = t;
      const cards = cardsOf(root);
      if (!cards.length) return false;
      if (w.cardsAt === null) w.cardsAt = t;
      for (const c of cards) if (!(tagOf(c) in w.drawnAt) && drawn(c, runs)) w.drawnAt[tagOf(c)] = t;
      if (w.firstChartAt === null && Object.keys(w.drawnAt).length) w.firstChartAt = t;
      const allDrawn = (list) => list.length > 0 && list.every((c) => tagOf(c) in w.drawnAt);
      if (fromFrame || visible === null) visible = geometry(root).visible;
      if (!allDrawn(visible)) return false;
      if (!fromFrame) {
        visible = geometry(root).visible; // confirm with the layout as it is now
        if (!allDrawn(visible)) return false;
      }
      w.doneAt = t;
      w.atDone = B.describe(cellIndex, runs);
      return true;
    };
    watch(cell, check, timeoutMs).then((ok) => {
      w.ok = ok;
    });
    return true;
  };

  // ------------------------------------------------------------------ 2. smoothing

  /** TensorBoard's debiased EMA, written here again as the oracle for the smoothed traces. */
  function ema(ys, weight) {
    const n = ys.length;
    const out = new Float64Array(n);
    let constant = true;
    for (let i = 1; i < n; i++) if (ys[i] !== ys[0]) { constant = false; break; }
    if (constant) { for (let i = 0; i < n; i++) out[i] = ys[i]; return out; }
    let last = 0;
    let count = 0;
    for (let i = 0; i < n; i++) {
      const y = ys[i];
      if (!Number.isFinite(y)) { out[i] = y; continue; }
      last = last * weight + (1 - weight) * y;
      count += 1;
      out[i] = weight === 1 ? last : last / (1 - Math.pow(weight, count));
    }
    return out;
  }

  const close = (a, b) => a === b || Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));

  /** For each visible card: the expected smoothed y at a few indices of each run's trace. */
  function expectations(cards, runs, weight) {
    const out = new Map();
    for (const card of cards) {
      const data = card.querySelector(".tbnb-plot").data;
      const runsExp = [];
      for (let k = 0; k < runs; k++) {
        const raw = data[2 * k].y;
        const n = raw.length;
        const full = ema(raw, weight);
        const idx = [...new Set([0, 1, Math.floor(n / 3), Math.floor(n / 2), n - 2, n - 1])].filter((i) => i >= 0 && i < n);
        runsExp.push({ n, idx, want: idx.map((i) => full[i]) });
      }
      out.set(card, runsExp);
    }
    return out;
  }

  function smoothedAs(card, runs, exp) {
    const data = card.querySelector(".tbnb-plot").data;
    if (!data || data.length !== 2 * runs) return false;
    for (let k = 0; k < runs; k++) {
      const y = data[2 * k + 1].y;
      const e = exp[k];
      if (!y || y.length !== e.n) return false;
      for (let j = 0; j < e.idx.length; j++) if (!close(y[e.idx[j]], e.want[j])) return false;
    }
    return true;
  }

  const sliderOf = (root) => root.querySelector('.tbnb-settings input[type=range][aria-label="Smoothing"]');

  /**
   * Follow the smoothing slider of a Board: every input event on it (ours or a real drag) starts
   * a new target; B.track reports, for the latest one, when each visible card's smoothed traces
   * reached it. Expected values are computed lazily, after the input event's handlers ran.
   */
  B.trackSmoothing = (cellIndex, runs) => {
    const root = B.boardRoot(cellIndex);
    const slider = sliderOf(root);
    if (!slider) throw new Error("no smoothing slider (is the settings pane open?)");
    const tr = (B.track = { inputs: [], target: null, t0: null, doneAt: {}, allAt: null, frames: 0, framesAtDone: null, cards: [] });
    let cards = null;
    let exp = null;
    slider.addEventListener(
      "input",
      () => {
        tr.t0 = now();
        tr.target = Math.min(0.999, Math.max(0, Number(slider.value)));
        tr.inputs.push({ t: tr.t0, value: tr.target });
        tr.doneAt = {};
        tr.allAt = null;
        tr.frames = 0;
        tr.framesAtDone = null;
        exp = null;
      },
      { capture: true },
    );
    const check = (fromFrame) => {
      if (tr.t0 === null) return false;
      if (fromFrame) tr.frames += 1;
      if (tr.allAt !== null) return false;
      if (exp === null) {
        cards = geometry(root).visible.filter((c) => drawn(c, runs));
        tr.cards = cards.map(tagOf);
        exp = expectations(cards, runs, tr.target);
      }
      const t = now();
      for (const card of cards) {
        if (!(tagOf(card) in tr.doneAt) && smoothedAs(card, runs, exp.get(card))) tr.doneAt[tagOf(card)] = t - tr.t0;
      }
      if (cards.length && cards.every((c) => tagOf(c) in tr.doneAt)) {
        tr.allAt = t - tr.t0;
        tr.framesAtDone = tr.frames;
      }
      return false; // keeps following until stopTracking
    };
    let stop = false;
    B.stopTracking = () => {
      stop = true;
      return true;
    };
    const observer = new MutationObserver(() => check(false));
    observer.observe(root, { childList: true, subtree: true, attributes: true, characterData: true });
    const tick = () => {
      if (stop) return observer.disconnect();
      check(true);
      requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
    return { value: Number(slider.value) };
  };

  /** Set the slider to `value` as a drag would (input event) and resolve when every visible card
   * shows it, or after `timeoutMs`. Returns a copy of B.track. */
  B.setSmoothing = async (cellIndex, value, timeoutMs = 3000) => {
    const slider = sliderOf(B.boardRoot(cellIndex));
    slider.value = String(value);
    slider.dispatchEvent(new Event("input", { bubbles: true }));
    await B.smoothingSettled(timeoutMs);
    return JSON.parse(JSON.stringify(B.track));
  };

  /** Input events one per animation frame through `values` (a drag), then wait for the last. */
  B.dragSmoothing = async (cellIndex, values, timeoutMs = 3000) => {
    const slider = sliderOf(B.boardRoot(cellIndex));
    const first = now();
    for (const v of values) {
      await new Promise((r) => requestAnimationFrame(r));
      slider.value = String(v);
      slider.dispatchEvent(new Event("input", { bubbles: true }));
    }
    await B.smoothingSettled(timeoutMs);
    return { ...JSON.parse(JSON.stringify(B.track)), dragMs: B.track.t0 - first };
  };

  B.smoothingSettled = (timeoutMs) =>
    new Promise((resolve) => {
      const end = now() + timeoutMs;
      const poll = () => {
        if (B.track.allAt !== null || now() > end) resolve(B.track.allAt !== null);
        else requestAnimationFrame(poll);
      };
      poll();
    });

  // ------------------------------------------------------------------ scrolling

  /** Scroll the Board's card area (`how`: "page" = one screen down, "end" = to the bottom) and
   * resolve when every card then visible is drawn: {ms, newlyVisible, alreadyDrawn, ok}. */
  B.scroll = async (cellIndex, runs, how, timeoutMs = 10000) => {
    const root = B.boardRoot(cellIndex);
    const main = root.querySelector(".tbnb-main");
    const before = new Set(cardsOf(root).filter((c) => drawn(c, runs)).map(tagOf));
    const t0 = now();
    if (how === "end") main.scrollTop = main.scrollHeight;
    else main.scrollTop += main.clientHeight;
    let visible = null;
    let doneAt = null;
    const ok = await watch(
      root,
      (fromFrame) => {
        if (fromFrame || visible === null) visible = geometry(root).visible;
        if (!visible.length || !visible.every((c) => drawn(c, runs))) return false;
        if (!fromFrame) {
          visible = geometry(root).visible;
          if (!visible.every((c) => drawn(c, runs))) return false;
        }
        doneAt = now();
        return true;
      },
      timeoutMs,
    );
    const tags = visible.map(tagOf);
    return {
      ok,
      t0,
      ms: doneAt === null ? null : doneAt - t0,
      visible: tags,
      newlyVisible: tags.filter((t) => !before.has(t)),
      scrollTop: main.scrollTop,
    };
  };

  return true;
})();
