// Link by step for cards that show one step at a time (image, audio, segmentation cards) or
// mark one (histograms): with `link_step` on (the default), the step the scalar cards select
// (`selected_step`, dragged on any scalar card or set from Python) picks the step these cards
// show: the nearest logged step at or before it, as a training log has nothing newer to show.
// Pure functions of the Board's traits and a card's sorted steps.

/** The traits whose change moves linked cards (their dashboards' `redrawOn`). */
export const LINK_TRAITS = ["selected_step", "link_step"];

/** The step linked cards show, or null when not linked (link_step off, or no step selected:
 * then each card stays where it is, on its latest step by default). */
export function linkedStep(traits) {
  if (!traits || traits.link_step === false) return null;
  const step = traits.selected_step;
  return Number.isInteger(step) ? step : null;
}

/** linkedStep of a Board's model. */
export function boardLinkedStep(board) {
  const get = (name) => board.model.get(name);
  return linkedStep({ link_step: get("link_step"), selected_step: get("selected_step") });
}

/** The index in ascending `steps` of the last step at or before `target`; the first step when
 * all are after it; -1 for no steps. Binary search: a card may hold thousands of steps. */
export function atOrBefore(steps, target) {
  if (!steps.length) return -1;
  let lo = 0;
  let hi = steps.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (steps[mid] <= target) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found >= 0 ? found : 0;
}
