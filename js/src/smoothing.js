// TensorBoard's smoothing: a debiased exponential moving average over the points in index order
// (x spacing is ignored). Non-finite values pass through and do not enter the average; a series
// whose values all equal the first one is returned unchanged (TensorBoard issue #786).

/** The weight TensorBoard uses: non-finite -> 0, then clamped to [0, 1]. */
export function clampWeight(weight) {
  const w = Number.isFinite(weight) ? weight : 0;
  return Math.min(1, Math.max(0, w));
}

/** Smoothed copy of `ys` (any array-like of numbers) as a Float64Array. */
export function smooth(ys, weight) {
  const w = clampWeight(weight);
  const n = ys.length;
  const out = new Float64Array(n);
  if (n === 0) return out;
  const first = ys[0];
  let constant = true;
  for (let i = 1; i < n; i++) {
    if (ys[i] != first) {
      constant = false;
      break;
    }
  }
  if (constant) {
    for (let i = 0; i < n; i++) out[i] = ys[i];
    return out;
  }
  let last = 0;
  let count = 0;
  for (let i = 0; i < n; i++) {
    const y = ys[i];
    if (!Number.isFinite(y)) {
      out[i] = y;
      continue;
    }
    last = last * w + (1 - w) * y;
    count += 1;
    out[i] = w === 1 ? last : last / (1 - Math.pow(w, count));
  }
  return out;
}
