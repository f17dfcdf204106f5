import test from "node:test";
import assert from "node:assert/strict";
import { compileTagFilter, filterTags, groupTags, isValidFilter, pinnedTags, tagGroup } from "../../js/src/groups.js";

const TAGS = ["train/loss", "eval/acc", "train/acc", "lr", "eval/loss", "layer10/w", "layer2/w", "train/sub/x"];

test("group = prefix before the first slash", () => {
  assert.equal(tagGroup("train/loss"), "train");
  assert.equal(tagGroup("train/sub/x"), "train");
  assert.equal(tagGroup("lr"), "lr");
  assert.equal(tagGroup("/abs"), "");
});

test("groups and tags in natural order", () => {
  assert.deepEqual(groupTags(TAGS), [
    { name: "eval", tags: ["eval/acc", "eval/loss"] },
    { name: "layer2", tags: ["layer2/w"] },
    { name: "layer10", tags: ["layer10/w"] },
    { name: "lr", tags: ["lr"] },
    { name: "train", tags: ["train/acc", "train/loss", "train/sub/x"] },
  ]);
});

test("the tag filter is a case-insensitive regex search", () => {
  assert.deepEqual(filterTags(TAGS, "LOSS"), ["eval/loss", "train/loss"]);
  assert.deepEqual(filterTags(TAGS, "^train/(acc|sub)"), ["train/acc", "train/sub/x"]);
  assert.deepEqual(groupTags(TAGS, "acc$").map((g) => g.name), ["eval", "train"]);
});

test("an invalid or empty filter filters nothing", () => {
  assert.equal(compileTagFilter("train/(loss"), null);
  assert.equal(compileTagFilter(""), null);
  assert.equal(filterTags(TAGS, "train/(loss").length, TAGS.length);
  assert.equal(filterTags(TAGS, "").length, TAGS.length);
  assert.equal(isValidFilter("a["), false);
  assert.equal(isValidFilter(""), true);
});

test("pinned tags keep pin order, skip unknown tags and duplicates", () => {
  assert.deepEqual(pinnedTags(["train/loss", "gone", "eval/acc", "train/loss"], TAGS), ["train/loss", "eval/acc"]);
  assert.deepEqual(pinnedTags(undefined, TAGS), []);
});
