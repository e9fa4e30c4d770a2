"""Runs damaged copies of real exports through the TF-free runtime, in one
process: `python -m tests.runtime.fuzz_exports PLAN.json`.

PLAN.json: {"exports": [folder, ...], "cases": N, "seed": S, "work": DIR,
"targeted": [[folder, name, [[byte, value], ...]], ...], "first_case": K,
"case_seconds": T}. Each case copies an export folder into DIR with its
model.tflite damaged (bits flipped, bytes overwritten, or cut short;
seeded), opens it with `SkimRunner` and runs it on a few inputs. Every
outcome must be a clean run or one `RuntimeModelError` line; anything else
is printed as a FAIL line. A crash (a signal) ends the process, and the
last "CASE" line printed says which case did it. A case still running
after `case_seconds` (optional) is a hang: its model is saved as
DIR/hang.tflite, a "HANG" line names it, and the process exits with code 3
(LiteRT's run cannot be interrupted from Python). `first_case` (optional)
skips the seeded cases before it, to go on after a hang with the same
seed. The last line is "SUMMARY {json}".

To hunt for rare failures, run it with many seeds and a few thousand cases
each (about 100 cases a second on an idle core).
"""

import json
import os
import random
import shutil
import sys
import threading
import time

import numpy as np

INPUTS = ([5, 9, 3, 7], [1], list(range(1, 25)), [])


def weight_ranges(data):
    """[start, end) of every constant buffer's bytes in a .tflite (damage
    there changes numbers, not structure)."""
    from ai_edge_litert import schema_py_generated as schema

    model = schema.Model.GetRootAsModel(data, 0)
    base = np.frombuffer(data, np.uint8).ctypes.data
    ranges = []
    for i in range(model.BuffersLength()):
        buffer = model.Buffers(i)
        if buffer.DataLength():
            start = buffer.DataAsNumpy().ctypes.data - base
            ranges.append((start, start + buffer.DataLength()))
    return ranges


def damage(data, rng, weights):
    """(damaged bytes, description): mostly bit flips outside the weights."""
    data = bytearray(data)
    roll = rng.random()
    if roll < 0.15:
        cut = rng.randrange(len(data))
        return bytes(data[:cut]), f"cut at {cut}"

    def structural_byte():
        for _ in range(100):
            pos = rng.randrange(len(data))
            if not any(start <= pos < end for start, end in weights):
                return pos
        return rng.randrange(len(data))

    if roll < 0.30:
        pos = structural_byte() & ~3
        value = rng.choice([0xFFFFFFFF, 0x7FFFFFFF, 0x80000000, rng.randrange(1 << 32), 0])
        data[pos : pos + 4] = value.to_bytes(4, "little")[: len(data) - pos]
        return bytes(data), f"word {value:#x} at {pos}"
    flips = []
    for _ in range(rng.choice([1, 1, 1, 2, 3])):
        pos = structural_byte() if rng.random() < 0.85 else rng.randrange(len(data))
        bit = rng.randrange(8)
        data[pos] ^= 1 << bit
        flips.append(f"{pos}.{bit}")
    return bytes(data), "flip " + " ".join(flips)


def run_case(folder):
    """ "ran", or "refused: <line>"; raises what the runtime lets escape."""
    from keras_skim.runtime import RuntimeModelError, SkimRunner

    try:
        runner = SkimRunner(folder)
        for ids in INPUTS:
            runner.run_ids(np.asarray(ids, np.int64) % runner.vocabulary_size, 0.5)
        if runner.tokenizer is not None:
            runner.classify("the movie was good , and fun .")
    except RuntimeModelError as err:
        return f"refused: {err}"
    return "ran"


def check_outcome(outcome):
    """None when `outcome` keeps the runtime's promise, else what broke it."""
    if outcome == "ran":
        return None
    line = outcome[len("refused: ") :]
    if "\n" in line or not line.strip():
        return f"not one line: {line!r}"
    return None


class Watchdog:
    """Ends the process (exit 3) when one case runs longer than `seconds`,
    after saving its model and printing a HANG line."""

    def __init__(self, seconds, work):
        self.seconds, self.work, self.case = seconds, work, None
        if seconds:
            threading.Thread(target=self._watch, daemon=True).start()

    def start(self, name, data):
        self.case = (time.monotonic(), name, data)

    def stop(self):
        self.case = None

    def _watch(self):
        while True:
            time.sleep(min(1.0, self.seconds / 4))
            case = self.case
            if case is not None and time.monotonic() - case[0] > self.seconds:
                with open(os.path.join(self.work, "hang.tflite"), "wb") as f:
                    f.write(case[2])
                print("HANG", case[1], f"(still running after {self.seconds} s)", flush=True)
                os._exit(3)


def main(plan_path):
    with open(plan_path) as f:
        plan = json.load(f)
    rng = random.Random(plan["seed"])
    work = plan["work"]
    watchdog = Watchdog(plan.get("case_seconds"), work)
    counts = {}
    failures = []

    def one(name, source, data):
        folder = os.path.join(work, "case")
        shutil.rmtree(folder, ignore_errors=True)
        shutil.copytree(source, folder, ignore=shutil.ignore_patterns("model.tflite", ".keras-skim-output.json"))
        with open(os.path.join(folder, "model.tflite"), "wb") as f:
            f.write(data)
        print("CASE", name, flush=True)
        watchdog.start(name, data)
        try:
            outcome = run_case(folder)
            problem = check_outcome(outcome)
        except Exception as err:  # noqa: BLE001 (the promise is: nothing else escapes)
            outcome, problem = "escaped", f"{type(err).__name__}: {err}"
        watchdog.stop()
        print("OUTCOME", name, "=>", " ".join(outcome.split("\n")), flush=True)
        key = outcome.split(":")[0]
        counts[key] = counts.get(key, 0) + 1
        if problem:
            failures.append(f"{name}: {problem}")
            print("FAIL", name, problem, flush=True)

    for source, name, edits in plan.get("targeted", []):
        data = bytearray(open(os.path.join(source, "model.tflite"), "rb").read())
        for pos, value in edits:
            data[pos : pos + 4] = int(value).to_bytes(4, "little", signed=True)
        one(f"{os.path.basename(source)} {name}", source, bytes(data))
    exports = plan["exports"]
    originals = {e: open(os.path.join(e, "model.tflite"), "rb").read() for e in exports}
    weights = {e: weight_ranges(d) for e, d in originals.items()}
    first = plan.get("first_case", 0)
    for k in range(first + plan["cases"]):
        source = exports[k % len(exports)]
        data, what = damage(originals[source], rng, weights[source])
        if k >= first:
            one(f"{os.path.basename(source)} {what}", source, data)
    loaded = sorted(m for m in sys.modules if m.split(".")[0] in ("tensorflow", "keras", "tf_keras"))
    print("SUMMARY", json.dumps({"counts": counts, "failures": failures, "heavy_modules": loaded}), flush=True)


if __name__ == "__main__":
    main(sys.argv[1])
