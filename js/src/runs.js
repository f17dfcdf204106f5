// Which runs are shown: the `runs` trait is a list of regexes and a run is shown when it fully
// matches one of them (Python's re.fullmatch), is not in `hidden_runs` and fully matches none of
// `hidden_patterns` (tbnb/board/run_visibility.py says why patterns). Invalid regexes are
// ignored; when none of `runs` is valid, every run matches. Pure functions: no DOM.

const ALL = [".*"];

/** Python regex syntax that JS spells differently: (?P<name>...) and (?P=name). */
function fromPython(pattern) {
  return pattern.replace(/\(\?P</g, "(?<").replace(/\(\?P=(\w+)\)/g, "\\k<$1>");
}

/** RegExps fully matching each valid pattern (an invalid one is skipped: the kernel refuses it). */
function compileFull(patterns) {
  const out = [];
  for (const pattern of Array.isArray(patterns) ? patterns : []) {
    try {
      if (typeof pattern === "string") out.push(new RegExp(`^(?:${fromPython(pattern)})$`));
    } catch {
      // an invalid pattern matches nothing: skip it
    }
  }
  return out;
}

/** RegExps that fully match, or null for "every run" (empty, [".*"] or nothing valid). */
export function compileRunPatterns(patterns) {
  if (!Array.isArray(patterns) || patterns.includes(".*")) return null;
  const out = compileFull(patterns);
  return out.length ? out : null;
}

/** Whether `run` matches compiled patterns (null matches everything). */
export function runMatches(run, compiled) {
  return compiled === null || compiled.some((re) => re.test(run));
}

/** A regex fully matching `run` alone, in Python's re as in JS. */
export function exactPattern(run) {
  return String(run).replace(/[\\^$.*+?()[\]{}|]/g, "\\$&");
}

/** (run) => whether it is switched off: named in `hidden` or matching a hidden pattern. */
export function hiddenTest(hidden, hiddenPatterns) {
  const off = new Set(hidden || []);
  const compiled = compileFull(hiddenPatterns);
  return (run) => off.has(run) || compiled.some((re) => re.test(run));
}

/** The runs to draw, in the order given: matching a pattern and not hidden. */
export function shownRuns(runs, patterns, hidden, hiddenPatterns) {
  const compiled = compileRunPatterns(patterns);
  const isHidden = hiddenTest(hidden, hiddenPatterns);
  return runs.filter((run) => runMatches(run, compiled) && !isHidden(run));
}

/** The filter box text -> the `runs` trait: [text], or [".*"] when the box is empty. */
export function filterTextToPatterns(text) {
  const t = (text || "").trim();
  return t ? [t] : ALL.slice();
}

/** The `runs` trait -> the filter box text (several patterns join as alternatives). */
export function patternsToFilterText(patterns) {
  if (!Array.isArray(patterns) || patterns.length === 0) return "";
  if (patterns.length === 1) return patterns[0] === ".*" ? "" : patterns[0];
  return patterns.map((p) => `(?:${p})`).join("|");
}

/**
 * Whether the filter box text is a valid regex (empty is valid). The kernel checks `runs` with
 * Python's re, so JS-only syntax (named groups as (?<name>...), \k<name>) is refused here.
 */
export function isValidRunFilter(text) {
  const t = (text || "").trim();
  if (!t) return true;
  if (/\(\?<[A-Za-z_]|\\k</.test(t)) return false;
  try {
    new RegExp(fromPython(t));
    return true;
  } catch {
    return false;
  }
}

/** `pattern` no longer matching what `except` fully matches. */
function narrowed(pattern, except) {
  return `(?!(?:${except})$)(?:${pattern})`;
}

/** A filter's named groups made plain, so that it can sit in a pattern twice (not with a backreference). */
function anonymous(pattern) {
  return pattern.includes("(?P=") ? pattern : pattern.replace(/\(\?P<\w+>/g, "(?:");
}

/**
 * {hidden_runs, hidden_patterns} after switching the runs `runs` on or off by name (a run's or a
 * group's checkbox): off names them in hidden_runs; on takes them out and narrows each hidden
 * pattern matching one of them, so that it stops matching them.
 */
export function setRunsVisible(state, runs, visible) {
  const hidden = new Set(state.hidden_runs || []);
  for (const run of runs) {
    if (visible) hidden.delete(run);
    else hidden.add(run);
  }
  let patterns = [...(state.hidden_patterns || [])];
  if (visible) {
    patterns = patterns.map((p) => {
      const [re] = compileFull([p]);
      const caught = re ? runs.filter((run) => re.test(run)) : [];
      return caught.length ? narrowed(p, caught.map(exactPattern).join("|")) : p;
    });
  }
  return { hidden_runs: [...hidden], hidden_patterns: patterns };
}

/**
 * {hidden_runs, hidden_patterns} after the "all" box switched every run the filter lists on or
 * off (`filter`: the filter's text, "" when it lists every run). However many runs that is, the
 * traits change by one pattern: off hides the filter itself (the listed names leave hidden_runs,
 * which it covers); on takes the listed names out of hidden_runs and narrows every hidden
 * pattern that matches a listed run to leave out what the filter matches.
 */
export function setListedVisible(state, listed, filter, visible) {
  const inList = new Set(listed);
  const hidden = (state.hidden_runs || []).filter((run) => !inList.has(run));
  const f = anonymous(filter || "");
  let patterns = [...(state.hidden_patterns || [])];
  if (!f) patterns = visible ? [] : [".*"];
  else if (!visible) {
    if (!patterns.includes(f)) patterns.push(f);
  } else {
    patterns = patterns.filter((p) => p !== f).map((p) => {
      const [re] = compileFull([p]);
      return re && listed.some((run) => re.test(run)) ? narrowed(p, f) : p;
    });
  }
  return { hidden_runs: hidden, hidden_patterns: patterns };
}
