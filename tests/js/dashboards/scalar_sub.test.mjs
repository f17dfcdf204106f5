// The line under a scalar card's title counts the points the card draws from: a run's own, and
// for a group line its members' points (the kernel's `points`), whose series are not sent.
import test from "node:test";
import assert from "node:assert/strict";
import { subText } from "../../../js/src/cards/scalar/scalar_sub.js";
import { groupMap, groupNote } from "../../../js/src/run_groups.js";

const series = (n, sent = n) => ({ x: new Float64Array(sent), y: new Float64Array(sent), step: new Float64Array(sent), total: n, sent, exact: sent >= n });

/** A decoded "series" reply's `groups`: group -> [members, member points, grid steps, sent]. */
function groups(spec) {
  const entries = Object.entries(spec).map(([group, [members, points, total, sent = total]]) => ({
    group, members, points, total, sent, exact: sent >= total,
    x: new Float64Array(sent), y: new Float64Array(sent), step: new Float64Array(sent), n: new Float64Array(sent),
  }));
  return groupMap({ groups: entries });
}

const MEMBERS_A = ["a/0", "a/1", "a/2"];
const MEMBERS_B = ["b/0", "b/1", "b/2"];

test("every run in a group: the card counts its members' points, not 0", () => {
  const fullGroups = groups({ a: [MEMBERS_A, 400, 101], b: [MEMBERS_B, 250, 101] });
  const runs = [...MEMBERS_A, ...MEMBERS_B];
  const text = subText({ runs, full: new Map(), zoom: null, zoomData: null, points: 0, xAxis: "step", loading: false,
    groups: groupNote(fullGroups), fullGroups });
  assert.equal(text, "650 points · 2 groups (6 runs)");
});

test("runs alone and groups add up; a thinned group line says how many points are drawn", () => {
  const full = new Map([["alone", series(30)]]);
  const fullGroups = groups({ a: [MEMBERS_A, 400, 300, 100] });
  const text = subText({ runs: ["alone", ...MEMBERS_A], full, points: 0, xAxis: "step", fullGroups, groups: groupNote(fullGroups) });
  assert.equal(text, "430 points (130 drawn) · 1 group (3 runs)");
});

test("zoomed: in view counts the members' points in the range", () => {
  const full = new Map([["alone", series(30)]]);
  const fullGroups = groups({ a: [MEMBERS_A, 400, 101] });
  const zoomData = new Map([["alone", series(5)]]);
  const zoomGroups = groups({ a: [MEMBERS_A, 42, 11] });
  const text = subText({ runs: ["alone", ...MEMBERS_A], full, zoom: { x: [10, 20] }, zoomData, points: 0, xAxis: "step",
    fullGroups, zoomGroups });
  assert.equal(text, "430 points · in view: 47 (every point)");
  const thinned = groups({ a: [MEMBERS_A, 42, 11, 5] });
  assert.equal(subText({ runs: ["alone", ...MEMBERS_A], full, zoom: { x: [10, 20] }, zoomData, points: 0, xAxis: "step",
    fullGroups, zoomGroups: thinned }), "430 points · in view: 47 (10 drawn: zoom in for every point)");
});
