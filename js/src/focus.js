// The focused run (the `focus` trait): one rule for every control that sets it, a click on a
// chart's line and the run selector's focus button alike.

/** The `focus` a click on `run` sets: that run, or none when it is focused already. */
export function nextFocus(current, run) {
  return run === null || run === current ? null : run;
}
