// A "blobs" reply's run entry (protocol.md) as rows sorted by step: what image and audio cards and
// their "compare runs" row list.

/** A "blobs" reply's run entry -> parallel arrays, steps in order. */
export function blobSteps(entry) {
  const steps = Array.isArray(entry && entry.steps) ? entry.steps.map(Number) : [];
  const pick = (list, i, fallback) => (Array.isArray(list) && list[i] !== undefined && list[i] !== null ? list[i] : fallback);
  const rows = steps
    .map((step, i) => ({
      step,
      wall: Number(pick(entry.wall_times, i, NaN)),
      count: Math.max(0, Math.floor(Number(pick(entry.counts, i, 1))) || 0),
      label: pick(entry.labels, i, null),
      rate: Number(pick(entry.sample_rates, i, NaN)),
    }))
    .filter((row) => Number.isFinite(row.step))
    .sort((a, b) => a.step - b.step);
  return rows;
}
