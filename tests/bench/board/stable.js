// The end-to-end figure's page side, the same for tbnb's Board and TensorBoard's web UI: when are
// the cards the user can see drawn and stable? Added to a page before its scripts run
// (context.add_init_script). Times are epoch milliseconds (performance.timeOrigin + now()), so
// that the benchmark can compare them with the moment it launched a process or pressed a key.
//
// window.__tbnbStable.watch({kind, runs, quietMs, timeoutMs}) starts watching; .result becomes
// {ok, end, readyAt, lastChange, firstPaint, visible, ...} where `end` is the earliest time from
// which every visible card was drawn with every run (kind "tbnb": the raw and smoothed traces of
// each run have data; kind "tensorboard": no loading indicator in the card and its two line paths
// per run) and nothing inside a visible card changed for `quietMs`; `firstPaint` the first time
// every visible card showed a line at all (some runs may be missing). A page that shows lines
// with runs missing and then changes nothing for `partialMs` ends there too, with `partial` set
// (TensorBoard opened while its data server is still reading shows the runs read so far and did
// not add the others by itself here).
(() => {
  if (Object.getOwnPropertyDescriptor(window, "__tbnbStable")) return;
  const S = { result: null, keyAt: null };
  Object.defineProperty(window, "__tbnbStable", { value: S });
  const epoch = () => performance.timeOrigin + performance.now();
  const FALLBACK_MS = 100;

  // The user's Shift+Enter, seen before JupyterLab handles it.
  window.addEventListener(
    "keydown",
    (e) => {
      if (e.key === "Enter" && e.shiftKey && S.keyAt === null) S.keyAt = epoch();
    },
    true,
  );

  // lines(card): how many runs the card's chart shows (null while it says it is loading).
  const KINDS = {
    tbnb: {
      cards: ".tbnb-card",
      lines(card) {
        const plot = card.querySelector(".tbnb-plot");
        const data = plot && plot._fullLayout ? plot.data || [] : [];
        return Math.floor(data.filter((t) => t.x && t.x.length).length / 2); // raw and smoothed per run
      },
    },
    tensorboard: {
      cards: "scalar-card",
      lines(card) {
        if (card.querySelector("mat-spinner, mat-progress-bar, .spinner, mat-progress-spinner")) return null;
        // SVG lines (the page is opened with ?forceSVG=true): with TensorBoard's default
        // smoothing, two per run (the faded raw line and the smoothed one); axes are short paths.
        const paths = [...card.querySelectorAll("line-chart svg path")].filter((p) => (p.getAttribute("d") || "").length > 1000);
        return Math.floor(paths.length / 2);
      },
    },
  };

  // The ancestors that clip a card (overflow other than visible), found once per card and
  // parent: reading every ancestor's computed style on every frame cost the page ~15 % of a core
  // while it was being measured (the observer stealing from what it observes, on both pages).
  const clippers = new WeakMap();

  function clippingAncestors(el) {
    const known = clippers.get(el);
    if (known && known.parent === el.parentElement) return known.list;
    const list = [];
    for (let a = el.parentElement; a && a !== document.body && a !== document.documentElement; a = a.parentElement) {
      const s = getComputedStyle(a);
      if (s.overflowX !== "visible" || s.overflowY !== "visible") list.push(a);
    }
    clippers.set(el, { parent: el.parentElement, list });
    return list;
  }

  function clipRect(el) {
    let r = { l: 0, t: 0, r: window.innerWidth, b: window.innerHeight };
    for (const a of clippingAncestors(el)) {
      const q = a.getBoundingClientRect();
      r = { l: Math.max(r.l, q.left), t: Math.max(r.t, q.top), r: Math.min(r.r, q.right), b: Math.min(r.b, q.bottom) };
    }
    return r;
  }

  function visibleCards(kind) {
    const out = [];
    for (const card of document.querySelectorAll(kind.cards)) {
      const q = card.getBoundingClientRect();
      if (q.width <= 0 || q.height <= 0) continue;
      const c = clipRect(card);
      if (Math.min(q.right, c.r) > Math.max(q.left, c.l) && Math.min(q.bottom, c.b) > Math.max(q.top, c.t)) out.push(card);
    }
    return out;
  }

  S.reset = () => {
    S.result = null;
    S.keyAt = null;
    return true;
  };

  /** Watch until the visible cards are drawn and quiet for `quietMs`, or `timeoutMs` passes. */
  S.watch = ({ kind: name, runs = 0, quietMs = 1000, partialMs = 35000, timeoutMs = 60000 }) => {
    const kind = KINDS[name];
    const started = epoch();
    const w = { ok: null, end: null, readyAt: null, lastChange: null, firstPaint: null, partial: false,
      someReadyAt: null, visible: [], drawnVisible: 0, linesVisible: [], frames: 0, started };
    S.result = w;
    let visible = [];
    let visibleSet = new Set();
    let done = false;
    let pending = false;
    // A check runs at the start of the frame after anything changed in the document (or was
    // scrolled, or resized), and every FALLBACK_MS: not on every frame, which made the page
    // render 60 frames a second while it was being measured (the observer taking a core's
    // share from what it observes, on both pages).
    const request = () => {
      if (done || pending) return;
      pending = true;
      requestAnimationFrame(tick);
    };
    const observer = new MutationObserver((records) => {
      request();
      for (const rec of records) {
        const node = rec.target.nodeType === 1 ? rec.target : rec.target.parentElement;
        const card = node && node.closest(kind.cards);
        if (card && visibleSet.has(card)) {
          w.lastChange = epoch();
          return;
        }
      }
    });
    // The document itself, not its root element: TensorBoard's page is watched from the moment its
    // navigation commits, when the root element may not exist yet.
    observer.observe(document, { childList: true, subtree: true, attributes: true, characterData: true });
    window.addEventListener("scroll", request, true);
    window.addEventListener("resize", request);
    const fallback = setInterval(request, FALLBACK_MS);
    const finish = (ok) => {
      done = true;
      observer.disconnect();
      clearInterval(fallback);
      window.removeEventListener("scroll", request, true);
      window.removeEventListener("resize", request);
      w.ok = ok;
      w.visible = visible.map((c) => (c.dataset && c.dataset.tag) || c.innerText.split("\n").slice(0, 2).join(""));
    };
    const tick = () => {
      pending = false;
      if (done) return;
      const t = epoch();
      w.frames += 1;
      const now = visibleCards(kind);
      const changed = now.length !== visible.length || now.some((c, i) => c !== visible[i]);
      if (changed) {
        visible = now;
        visibleSet = new Set(now);
        w.lastChange = t;
      }
      const lines = visible.map((c) => kind.lines(c));
      w.linesVisible = lines;
      const drawn = lines.filter((n) => n !== null && n >= runs).length;
      w.drawnVisible = drawn;
      const some = visible.length > 0 && lines.every((n) => n > 0);
      if (w.firstPaint === null && some) w.firstPaint = t;
      if (!some) w.someReadyAt = null;
      else if (w.someReadyAt === null) w.someReadyAt = t;
      const ready = visible.length > 0 && drawn === visible.length;
      if (!ready) w.readyAt = null;
      else if (w.readyAt === null) w.readyAt = t;
      if (ready) {
        w.end = Math.max(w.readyAt, w.lastChange || 0);
        if (t - w.end >= quietMs) return finish(true);
      } else if (some && t - Math.max(w.someReadyAt, w.lastChange || 0) >= partialMs) {
        // Lines drawn, some runs missing, nothing changing for partialMs (longer than TensorBoard's
        // 30 s reload): that is what the user gets; its end is the last change.
        w.end = Math.max(w.someReadyAt, w.lastChange || 0);
        w.partial = true;
        return finish(true);
      }
      if (t - started > timeoutMs) return finish(false);
    };
    request();
    return true;
  };
})();
