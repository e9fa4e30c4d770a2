"""A reading cost that follows the accuracy floor in Structural-Jump-LSTM's phase 2.

The rolling weight w prices every read word in the agents' reward, and the
reading level that a fixed w buys depends on the data: on 2,000 Rotten
Tomatoes documents the paper's 0.1 kept the agents reading most of the
words, while on the whole set 0.1 and 0.15 made them jump over most of them,
well below the full-read model's accuracy
(benchmarks/results/sj_default_schedule_rotten_tomatoes_*floor*.md). The control ties
w to what the schedule keeps anyway, the accuracy floor: after each
speed-read validation, w goes one rung up a geometric ladder when the
validation accuracy is at or above the floor (reading may cost more) and
one rung down when it is below (reading must pay again). The rungs are
`initial * factor**level` for `level` in [-levels, levels]: a finite set, so
that a training step traced for one weight is reused when the run comes
back to it.

Measured (default schedule, w from 0.1, factors 1.25 and 1.5;
benchmarks/results/sj_default_schedule_rotten_tomatoes_*control*.md): on
the whole Rotten Tomatoes set it kept the accuracy near the floor where a
fixed w jumped, and on the first 2,000-document slice it speed read. On two
other slices it read everything: their speed-read validations stayed under
the floor even at full reading (the floor comes from the best of many noisy
full-read validations), so w sank to the bottom rung. Replayed with the
default's promise (the least-read validation within one point of the full
reader, else the full reader; benchmarks/results/sj_selection_replay.md),
the control (w from 0.1, x1.5) speed read on the whole set and on one slice
of three, a fixed w = 0.15 on one slice only: the default preset runs the
control, and the full reader is what it keeps when the control finds no
point within the floor.

Example:

>>> from keras_skim.models.structural_jump.structural_jump_reading_cost import next_level, rung_weight
>>> level = next_level(0, accuracy=0.75, floor=0.70, levels=4)
>>> level, round(rung_weight(0.1, 1.5, level), 4)
(1, 0.15)
>>> next_level(level, accuracy=0.65, floor=0.70, levels=4), next_level(-4, accuracy=0.6, floor=0.7, levels=4)
(0, -4)
"""


def rung_weight(initial, factor, level):
    """The rolling weight on rung `level` of the ladder."""
    return float(initial) * float(factor) ** int(level)


def next_level(level, accuracy, floor, levels):
    """The rung after a validation: up when `accuracy` >= `floor`, else down, within [-levels, levels]."""
    step = 1 if accuracy >= floor else -1
    return max(-levels, min(levels, int(level) + step))
