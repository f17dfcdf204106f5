// Tag order as in TensorBoard: component by component (split at "/"), numbers inside a
// component compared by value ("step2" < "step10", "lr0.05" < "lr0.1"), other text by code unit.

const TOKENS = /\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|\D+/g;

function tokenize(component) {
  return (component.match(TOKENS) || []).map((text) =>
    text.charCodeAt(0) >= 48 && text.charCodeAt(0) <= 57 ? { num: parseFloat(text), text } : { text },
  );
}

function key(name) {
  return String(name).split("/").map(tokenize);
}

function compareText(a, b) {
  return a < b ? -1 : a > b ? 1 : 0;
}

function compareComponent(a, b) {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const [p, q] = [a[i], b[i]];
    const pn = p.num !== undefined;
    const qn = q.num !== undefined;
    if (pn && qn) {
      if (p.num !== q.num) return p.num < q.num ? -1 : 1;
      const c = compareText(p.text, q.text); // "01" vs "1": stable, deterministic
      if (c) return c;
    } else if (pn !== qn) {
      return pn ? -1 : 1; // numbers before text
    } else {
      const c = compareText(p.text, q.text);
      if (c) return c;
    }
  }
  return a.length - b.length;
}

function compareKeys(a, b) {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const c = compareComponent(a[i], b[i]);
    if (c) return c < 0 ? -1 : 1;
  }
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}

/** Comparator: negative, zero or positive as `a` sorts before, with or after `b`. */
export function naturalCompare(a, b) {
  return compareKeys(key(a), key(b));
}

/** A sorted copy of `names` (or of items by `by(item)`). */
export function naturalSort(names, by = (x) => x) {
  return names
    .map((item) => ({ item, k: key(by(item)) }))
    .sort((a, b) => compareKeys(a.k, b.k))
    .map(({ item }) => item);
}
