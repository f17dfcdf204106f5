// Link by step for cards that show one step at a time: when it is on, which step they show.
import test from "node:test";
import assert from "node:assert/strict";
import { atOrBefore, LINK_TRAITS, linkedStep } from "../../js/src/cards/step_link.js";

test("the linked step: the selected step unless link_step is off or none is selected", () => {
  assert.equal(linkedStep({ link_step: true, selected_step: 40 }), 40);
  assert.equal(linkedStep({ selected_step: 0 }), 0, "link_step defaults to on; step 0 is a step");
  assert.equal(linkedStep({ link_step: false, selected_step: 40 }), null);
  assert.equal(linkedStep({ link_step: true, selected_step: null }), null, "nothing selected: cards stay put");
  assert.equal(linkedStep({ link_step: true, selected_step: 2.5 }), null);
  assert.equal(linkedStep(null), null);
  assert.deepEqual(LINK_TRAITS, ["selected_step", "link_step"]);
});

test("the nearest logged step at or before the selected one", () => {
  const steps = [0, 20, 40, 60];
  assert.equal(atOrBefore(steps, 40), 2, "a logged step: itself");
  assert.equal(atOrBefore(steps, 59), 2, "between: the earlier one, never a step not yet reached");
  assert.equal(atOrBefore(steps, 1e9), 3);
  assert.equal(atOrBefore(steps, -5), 0, "before every step: the first");
  assert.equal(atOrBefore([7], 3), 0);
  assert.equal(atOrBefore([], 3), -1);
  const many = Array.from({ length: 10001 }, (_, i) => i * 3);
  for (const target of [0, 1, 2, 3, 299, 300, 30000, 29999]) {
    assert.equal(atOrBefore(many, target), Math.floor(target / 3), String(target));
  }
});
