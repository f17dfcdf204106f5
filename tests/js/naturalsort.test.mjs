import test from "node:test";
import assert from "node:assert/strict";
import { naturalCompare, naturalSort } from "../../js/src/naturalsort.js";

test("numbers inside names sort by value", () => {
  assert.deepEqual(naturalSort(["step10", "step9", "step100", "step1"]), ["step1", "step9", "step10", "step100"]);
  assert.deepEqual(naturalSort(["layer_10/w", "layer_2/w", "layer_1/w"]), ["layer_1/w", "layer_2/w", "layer_10/w"]);
});

test("decimals and exponents", () => {
  assert.deepEqual(naturalSort(["lr0.1", "lr0.05", "lr0.001", "lr1"]), ["lr0.001", "lr0.05", "lr0.1", "lr1"]);
  assert.deepEqual(naturalSort(["lr_1e-2", "lr_1e-4", "lr_1e-3"]), ["lr_1e-4", "lr_1e-3", "lr_1e-2"]);
});

test("component by component: a prefix component sorts first", () => {
  assert.deepEqual(naturalSort(["a+/b", "a/b", "a/a", "a"]), ["a", "a/a", "a/b", "a+/b"]);
  assert.deepEqual(naturalSort(["loss/train/2", "loss/train/10", "loss/eval", "acc"]), [
    "acc",
    "loss/eval",
    "loss/train/2",
    "loss/train/10",
  ]);
});

test("numbers before text, equal values by their spelling, equal names compare 0", () => {
  assert.ok(naturalCompare("a1", "ab") < 0);
  assert.ok(naturalCompare("x01", "x1") < 0);
  assert.equal(naturalCompare("same/7", "same/7"), 0);
  assert.ok(naturalCompare("B", "a") < 0, "code unit order, as TensorBoard");
});

test("a total order: sorting is stable under shuffles", () => {
  const names = ["run_2", "run_10", "run_1", "eval/acc", "eval/loss", "train/loss", "train/loss_2", "x", "x/0.5", "x/0.25"];
  const once = naturalSort(names);
  for (let k = 0; k < 20; k++) {
    const shuffled = names.slice().sort(() => Math.random() - 0.5);
    assert.deepEqual(naturalSort(shuffled), once);
  }
  const byItem = naturalSort([{ t: "b10" }, { t: "b9" }], (o) => o.t);
  assert.deepEqual(byItem.map((o) => o.t), ["b9", "b10"]);
});
