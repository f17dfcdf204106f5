// Which runs are shown: the `runs` trait is a list of regexes and a run is shown when it fully
// matches one of them (Python's re.fullmatch) and is not in `hidden_runs`. Invalid regexes are
// ignored; when none is valid, every run matches. Pure functions: no DOM.

const ALL = [".*"];

/** Python regex syntax that JS spells differently: (?P<name>...) and (?P=name). */
function fromPython(pattern) {
  return pattern.replace(/\(\?P</g, "(?<").replace(/\(\?P=(\w+)\)/g, "\\k<$1>");
}

/** RegExps that fully match, or null for "every run" (empty, [".*"] or nothing valid). */
export function compileRunPatterns(patterns) {
  if (!Array.isArray(patterns)) return null;
  const out = [];
  for (const pattern of patterns) {
    if (typeof pattern !== "string") continue;
    if (pattern === ".*") return null;
    try {
      out.push(new RegExp(`^(?:${fromPython(pattern)})$`));
    } catch {
      // an invalid pattern matches nothing and filters nothing: skip it
    }
  }
  return out.length ? out : null;
}

/** Whether `run` matches compiled patterns (null matches everything). */
export function runMatches(run, compiled) {
  return compiled === null || compiled.some((re) => re.test(run));
}

/** The runs to draw, in the order given: matching a pattern and not hidden. */
export function shownRuns(runs, patterns, hidden) {
  const compiled = compileRunPatterns(patterns);
  const off = new Set(hidden || []);
  return runs.filter((run) => runMatches(run, compiled) && !off.has(run));
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

/** hidden_runs after toggling `run` on (visible) or off. */
export function toggleHidden(hidden, run, visible) {
  const set = new Set(hidden || []);
  if (visible) set.delete(run);
  else set.add(run);
  return [...set];
}

/** hidden_runs after switching every run of `runs` on or off (others keep their state). */
export function setAllHidden(hidden, runs, visible) {
  const set = new Set(hidden || []);
  for (const run of runs) {
    if (visible) set.delete(run);
    else set.add(run);
  }
  return [...set];
}
