"""The Structural-Jump-LSTM op's own gain from its agents: the `KerasSjLSTM`
export with its agents acting against the same export with its agents off,
each over Flop-r (issue 36, item 2).

"Reading every word" is a real mode of the op: its `options` input is the
cell's `speed_reading` flag, and with it off (a full-read model, as in the
paper's full-read pretraining) every word runs the LSTM step and is followed
by the next one, no agent runs. Both exports of one configuration share every
weight; only that flag differs.

The weights are random, in the emitter's folded form
(`keras_skim.models.structural_jump.structural_jump_emitter`: the op's speed
does not depend on what they learned), so no TensorFlow is needed. The
skip agent's read-minus-skip bias is set by bisection so that the agents read
about `--read` of the words; the jump agent's head biases are fixed so that
it moves to the next word or jumps to the next separator or sentence end
(at 20% read: about half the words skipped and a third jumped). Texts are random ids of `--length`
tokens, about one in eight a separator (",") and one in fifteen a sentence
end ("."), so that jumps land.

Per configuration (m, e, float32 or int8), through the runtime's LiteRT C API
signature runner (batch 1, one thread), each export running all the texts in
a row in each round (the order alternating between rounds), median over
`--rounds` rounds of the per-text time:
gain = full-read time / agents time, Flop-r from the counts the export
returns (`structural_jump_flop_report`), target gain / Flop-r >= 0.85.

    python benchmarks/sj_op_skip_gain.py [--rounds 15] [--texts 40] [--cpu 1] [--out STEM] [--note TEXT]

Writes benchmarks/results/sj_op_skip_gain.{json,md} (or --out STEM).
"""

import argparse
import os
import sys
import time
import types

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import litert_report  # noqa: E402

# (m, e): the paper's LSTM 128 on 50-d and 300-d vectors, and a larger LSTM.
CONFIGS = ((128, 50), (128, 300), (256, 50))
QUANTIZE = (None, "int8")
VOCABULARY = 20000
AGENT_UNITS = 25
SEPARATOR_ID, SENTENCE_END_ID = 1, 2
# The jump agent's head biases (separator, sentence end, end of text); the next word's is picked from
# JUMP_NEXT_BIASES by `calibrate`.
JUMP_HEAD_BIAS = (-0.2, 0.0, -6.0)
JUMP_NEXT_BIASES = (0.1, 0.3, 0.6, 1.0, 2.0)
TARGET = 0.85
CLOCKS = ("cpu", "wall")


def random_emitter(m, e, seed, skip_bias, jump_next, speed_reading=True):
    """An emitter-shaped namespace (what `structural_jump_flatbuffer` reads) of random weights."""
    from keras_skim.models.structural_jump.structural_jump_emitter import (
        KIND_PADDING,
        KIND_SENTENCE_END,
        KIND_SEPARATOR,
        KIND_WORD,
    )

    rng = np.random.default_rng(seed)
    a, V = AGENT_UNITS, VOCABULARY

    def normal(*shape, fan_in):
        return rng.normal(0.0, 1.0 / np.sqrt(fan_in), shape)

    kinds = np.full(V, KIND_WORD, np.int8)
    kinds[0], kinds[SEPARATOR_ID], kinds[SENTENCE_END_ID] = KIND_PADDING, KIND_SEPARATOR, KIND_SENTENCE_END
    embedding = rng.normal(0.0, 0.5, (V, e))
    return types.SimpleNamespace(
        units=m,
        agent_units=a,
        embedding_dim=e,
        speed_reading=speed_reading,
        kinds=kinds,
        embedding=embedding,
        skip_rows=embedding @ normal(e, a, fan_in=m + e),
        skip_previous=normal(5, a, fan_in=6),
        skip_recurrent=normal(m, a, fan_in=m + e),
        skip_head=normal(a, fan_in=a),
        skip_head_bias=float(skip_bias),
        lstm_input=normal(e, 4 * m, fan_in=e + m),
        lstm_recurrent=normal(m, 4 * m, fan_in=e + m),
        lstm_previous=normal(5, 4 * m, fan_in=6),
        jump_kernel=normal(m, a, fan_in=m),
        jump_bias=np.zeros(a),
        jump_head=3.0 * normal(a, 4, fan_in=a),
        jump_head_bias=np.asarray((jump_next, *JUMP_HEAD_BIAS)),
    )


def export(emitter, quantize):
    """The `KerasSjLSTM` export's bytes (a classifier head of 2 classes on h)."""
    from keras_skim.models.structural_jump.structural_jump_op import structural_jump_flatbuffer

    rng = np.random.default_rng(1)
    m = emitter.units
    head = ((rng.normal(0, 0.1, (m, 16)), np.zeros(16), "relu"), (rng.normal(0, 0.1, (16, 2)), np.zeros(2), None))
    plan = types.SimpleNamespace(emitter=emitter, head=head)
    return structural_jump_flatbuffer(plan, length=1, quantize=quantize)


class Runner:
    """One export through the runtime's signature runner (what `keras-skim bench` calls)."""

    def __init__(self, content):
        from keras_skim.runtime.interpreter_loader import make_interpreter

        self.signature = make_interpreter(model_content=content, num_threads=1).get_signature_runner("serving_default")

    def __call__(self, ids):
        return self.signature(token_ids=ids)


def random_texts(count, length, seed):
    """[1, T] int32 ids: words in [3, V), about 1/8 separators and 1/15 sentence ends."""
    rng = np.random.default_rng(seed)
    texts = []
    for _ in range(count):
        ids = rng.integers(3, VOCABULARY, length)
        u = rng.random(length)
        ids[u < 1 / 8] = SEPARATOR_ID
        ids[u > 1 - 1 / 15] = SENTENCE_END_ID
        texts.append(ids.astype(np.int32)[None])
    return texts


def counts(runner, texts):
    """Per text (words, visited, read)."""
    rows = []
    for ids in texts:
        out = runner(ids)
        mask = np.asarray(out["read_mask"]).reshape(-1)
        rows.append((int(np.sum(mask != 3)), int(out["visited_count"][0]), int(out["read_count"][0])))
    return np.asarray(rows)


def calibrate(m, e, texts, read):
    """(skip bias, next-word bias) at which the agents read about `read` of the words (float32). For each
    next-word bias of the jump agent in turn (the lowest jumps most), a grid finds the first skip bias where the
    read fraction reaches `read` (it is not monotonic: a higher bias also makes the jump agent act more often),
    and bisection refines it; a next-word bias at which no skip bias reaches it is passed over."""

    def read_fraction(bias, jump_next):
        c = counts(Runner(export(random_emitter(m, e, 0, bias, jump_next), None)), texts).sum(axis=0)
        return c[2] / c[0]

    grid = np.linspace(-1.5, 1.5, 16)
    for jump_next in JUMP_NEXT_BIASES:
        reached = [b for b in grid if read_fraction(b, jump_next) >= read]
        if reached:
            break
    else:
        raise SystemExit(f"m={m}, e={e}: no bias of the agents reads {read:.0%} of the words")
    high = reached[0]
    low = high - (grid[1] - grid[0])
    for _ in range(8):
        middle = (low + high) / 2
        if read_fraction(middle, jump_next) > read:
            high = middle
        else:
            low = middle
    return (low + high) / 2, jump_next


def time_pair(runners, texts, rounds):
    """Per round and clock, the mean seconds per text of each runner. In a round each runner runs all the texts
    in a row, as an app serving one model does (its weights stay in the caches between texts; calling the two
    exports in turn on each text would start every call on the other export's weights, a cost the short agents
    call would bear more than the full read); the order of the runners alternates between rounds. Clocks: `wall`
    (perf_counter) and `cpu` (this thread's CPU time, which leaves out the time other processes of a shared
    machine hold the CPU)."""
    names = list(runners)
    for n in names:  # warm-up
        for ids in texts[:3]:
            runners[n](ids)
    per_round = {clock: {n: [] for n in names} for clock in CLOCKS}
    for r in range(rounds):
        for n in names if r % 2 == 0 else names[::-1]:
            wall, cpu = time.perf_counter(), time.thread_time()
            for ids in texts:
                runners[n](ids)
            per_round["cpu"][n].append((time.thread_time() - cpu) / len(texts))
            per_round["wall"][n].append((time.perf_counter() - wall) / len(texts))
    return per_round


def measure(m, e, quantize, biases, texts, rounds):
    """One configuration: both modes' times, the gain and Flop-r."""
    from keras_skim.models.structural_jump.structural_jump_flops import structural_jump_flop_report

    runners = {
        "agents": Runner(export(random_emitter(m, e, 0, *biases), quantize)),
        "full_read": Runner(export(random_emitter(m, e, 0, *biases, speed_reading=False), quantize)),
    }
    c = counts(runners["agents"], texts)
    full = counts(runners["full_read"], texts)
    assert (full[:, 2] == full[:, 0]).all(), "the full-read mode must read every word"
    flops = structural_jump_flop_report(c[:, 0], c[:, 1], c[:, 2], m, e, AGENT_UNITS)
    per_round = time_pair(runners, texts, rounds)
    words = int(c[:, 0].sum())
    row = {
        "units": m,
        "embedding_dim": e,
        "quantize": quantize or "float32",
        "skip_bias": round(biases[0], 4),
        "jump_next_bias": biases[1],
        "words": words,
        "read": round(float(c[:, 2].sum() / words), 4),
        "skipped": round(float((c[:, 1] - c[:, 2]).sum() / words), 4),
        "jumped": round(float((c[:, 0] - c[:, 1]).sum() / words), 4),
        "flop_r": round(flops["flop_r"], 3),
    }
    for clock, times in per_round.items():
        gain = float(np.median(np.asarray(times["full_read"]) / np.asarray(times["agents"])))
        row[clock] = {
            "us_per_text": {n: round(1e6 * float(np.median(v)), 2) for n, v in times.items()},
            "gain": round(gain, 3),
            "gain_over_flop_r": round(gain / flops["flop_r"], 3),
        }
    return row


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--read", type=float, default=0.2, help="the read fraction the skip bias is set for")
    ap.add_argument("--length", type=int, default=400, help="tokens per text")
    ap.add_argument("--texts", type=int, default=40)
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--cpu", type=int, default=None, help="pin the process to this CPU")
    ap.add_argument("--out", default=os.path.join(litert_report.RESULTS, "sj_op_skip_gain"))
    ap.add_argument("--note", default=None, help="a line for the report, e.g. which op library was measured")
    a = ap.parse_args()
    if a.cpu is not None:
        os.sched_setaffinity(0, {a.cpu})
    load_before = [round(x, 2) for x in os.getloadavg()]
    started = time.time()
    texts = random_texts(a.texts, a.length, seed=7)
    rows = []
    for m, e in CONFIGS:
        biases = calibrate(m, e, texts, a.read)
        rows += [measure(m, e, q, biases, texts, a.rounds) for q in QUANTIZE]
    from keras_skim.runtime.interpreter_loader import runtime_versions

    report = {
        "command": litert_report.command(),
        "machine": litert_report.timed_machine(load_before),
        "versions": {**runtime_versions(), "numpy": np.__version__},
        "seconds": round(time.time() - started, 1),
        "note": a.note,
        "settings": {"read": a.read, "length": a.length, "texts": a.texts, "rounds": a.rounds, "target": TARGET},
        "rows": rows,
    }
    litert_report.write_files(a.out, report, markdown(report))


def markdown(report):
    s = report["settings"]
    lines = [
        "# The Structural-Jump-LSTM op's gain from its agents, over Flop-r",
        "",
        f"- command: `{report['command']}`",
        f"- machine: {report['machine']}",
        f"- versions: {report['versions']}",
        *([f"- note: {report['note']}"] if report.get("note") else []),
        f"- {s['texts']} random texts of {s['length']} tokens (1/8 separators, 1/15 sentence ends), random weights, "
        f"the skip bias set for about {s['read']:.0%} read; {s['rounds']} rounds, batch 1, one thread, the runtime's "
        "LiteRT C API signature runner; in each round each export of a row runs all the texts in a row (as an app "
        "serving one model does), the order alternating between rounds.",
        "- `full_read`: the same export with its agents off (the op's `options` input = the cell's `speed_reading` "
        "= 0): every word read, no agent run. gain = median over rounds of full_read time / agents time; "
        f"target gain / Flop-r >= {s['target']}. Clocks: `cpu`, the timing thread's CPU time (what the op "
        "costs, without the time other processes of a shared machine take the CPU), and `wall`, elapsed time.",
        "",
        "| m | e | weights | read | skipped | jumped | Flop-r | clock | full_read us/text | agents us/text | gain "
        "| gain / Flop-r |",
        "|---:|---:|---|---:|---:|---:|---:|---|---:|---:|---:|---:|",
    ]
    for r in report["rows"]:
        for clock in CLOCKS:
            t = r[clock]
            lines.append(
                f"| {r['units']} | {r['embedding_dim']} | {r['quantize']} | {r['read']:.1%} | {r['skipped']:.1%} | "
                f"{r['jumped']:.1%} | {r['flop_r']:.2f} | {clock} | {t['us_per_text']['full_read']:.1f} | "
                f"{t['us_per_text']['agents']:.1f} | {t['gain']:.2f}x | {t['gain_over_flop_r']:.2f} |"
            )
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
