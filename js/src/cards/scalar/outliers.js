// The y domain of a scalar chart, as TensorBoard computes it: the finite values of the visible
// series, optionally cut to the 5%..95% order statistics ("ignore outliers"), then padded and
// made nice (linear) or halved/doubled (log10, positive values only).

const PADDING = 0.05;

/** d3's tickIncrement(start, stop, count): the nice tick step, negative for 1/step below 1. */
export function tickIncrement(start, stop, count) {
  const step = (stop - start) / Math.max(0, count);
  const power = Math.floor(Math.log10(step));
  const error = step / Math.pow(10, power);
  const factor = error >= Math.sqrt(50) ? 10 : error >= Math.sqrt(10) ? 5 : error >= Math.sqrt(2) ? 2 : 1;
  return power >= 0 ? factor * Math.pow(10, power) : -Math.pow(10, -power) / factor;
}

/** d3's linear scale nice(count): extend [lo, hi] outwards to round tick steps (d3-scale 4). */
export function nice(lo, hi, count = 10) {
  let start = lo;
  let stop = hi;
  if (stop < start) [start, stop] = [stop, start];
  let previous;
  for (let i = 0; i < 10; i++) {
    const step = tickIncrement(start, stop, count);
    if (step === previous) return lo <= hi ? [start, stop] : [stop, start];
    if (step > 0) {
      start = Math.floor(start / step) * step;
      stop = Math.ceil(stop / step) * step;
    } else if (step < 0) {
      start = Math.ceil(start * step) / step;
      stop = Math.floor(stop * step) / step;
    } else {
      break;
    }
    previous = step;
  }
  return [lo, hi]; // no convergence (or a zero/NaN step): d3 leaves the domain as it was
}

/** TensorBoard's linear niceDomain: pad by 5% of the spread, then nice(); special min == max. */
export function linearDomain(min, max) {
  if (max === min) {
    if (min === 0) return [-1, 1];
    return min < 0 ? [2 * min, 0] : [0, 2 * min];
  }
  const padding = (max - min + Number.EPSILON) * PADDING;
  return nice(min - padding, max + padding);
}

/** TensorBoard's log10 niceDomain over positive values: [min / 2, max * 2]. */
export function logDomain(min, max) {
  if (!(max > 0)) return [Number.MIN_VALUE, 1];
  const low = Math.max(min, Number.MIN_VALUE);
  return [Math.max(Number.MIN_VALUE, low * 0.5), max * 2];
}

/**
 * [min, max] of the values TensorBoard keeps: finite (and > 0 when `positive`), cut to the
 * order statistics at ceil((n-1)*0.05) and floor((n-1)*0.95) when ignoring outliers and n > 2.
 * `sorted` must be ascending and hold only kept values. null when nothing is kept.
 */
export function extentOfSorted(sorted, ignoreOutliers) {
  const n = sorted.length;
  if (n === 0) return null;
  if (ignoreOutliers && n > 2) {
    return [sorted[Math.ceil((n - 1) * 0.05)], sorted[Math.floor((n - 1) * 0.95)]];
  }
  return [sorted[0], sorted[n - 1]];
}

/**
 * The y domain of a chart. `series` is a list of {y, x?} (array-likes); with `xRange` only the
 * points whose x lies in it count. Returns [lo, hi] in data units, or null when no value counts
 * (then the chart falls back to its own autorange).
 */
export function yDomain(series, { ignoreOutliers = true, log = false, xRange = null } = {}) {
  let total = 0;
  for (const s of series) total += s.y.length;
  const values = new Float64Array(total);
  let n = 0;
  const [x0, x1] = xRange || [-Infinity, Infinity];
  for (const s of series) {
    const { x, y } = s;
    for (let i = 0; i < y.length; i++) {
      const v = y[i];
      if (!Number.isFinite(v) || (log && !(v > 0))) continue;
      if (xRange && x && !(x[i] >= x0 && x[i] <= x1)) continue;
      values[n++] = v;
    }
  }
  const sorted = values.subarray(0, n).sort();
  const extent = extentOfSorted(sorted, ignoreOutliers);
  if (!extent) return null;
  return log ? logDomain(extent[0], extent[1]) : linearDomain(extent[0], extent[1]);
}
