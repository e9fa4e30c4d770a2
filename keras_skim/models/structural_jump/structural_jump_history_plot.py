"""A picture of a Structural-Jump-LSTM run: validation accuracy and reading against step."""

import os


def plot_structural_jump_history(history, path, title=None):
    """Writes a PNG of the validation records of `fit_structural_jump_steps`.

    Top: validation accuracy (and reward); bottom: the read, skip and jump
    fractions and delta, against the step counted over both phases, with
    a line where speed reading starts.

    Args:
        history: the list of validation records (`phase`, `total_step`,
            `accuracy`, `reward`, `read_fraction`, `skip_fraction`,
            `jump_fraction`, `entropy_weight`).
        path: the .png file to write (replaced if it exists).
        title: optional figure title.

    Returns:
        `path`.
    """
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    if not history:
        raise ValueError("no validation records to plot")
    steps = [r["total_step"] for r in history]
    figure, (top, bottom) = plt.subplots(2, 1, sharex=True, figsize=(8, 6))
    top.plot(steps, [r["accuracy"] for r in history], "o-", markersize=2, label="validation accuracy")
    top.plot(steps, [r["reward"] for r in history], "-", alpha=0.6, label="validation reward")
    top.set_ylabel("accuracy / reward")
    top.grid(alpha=0.3)
    top.legend(loc="lower right")
    for key, label in (("read_fraction", "read"), ("skip_fraction", "skipped"), ("jump_fraction", "jumped")):
        bottom.plot(steps, [r[key] for r in history], "-", label=label)
    bottom.set_ylabel("fraction of the validation words")
    bottom.set_ylim(-0.02, 1.02)
    bottom.set_xlabel("training step (full read, then speed read)")
    bottom.grid(alpha=0.3)
    delta = bottom.twinx()
    delta.plot(steps, [r["entropy_weight"] for r in history], ":", color="gray", label="delta")
    delta.set_ylabel("delta (dotted)")
    bottom.legend(loc="upper right")
    speed = [r["total_step"] for r in history if r["phase"] == "speed_read"]
    full = [r["total_step"] for r in history if r["phase"] == "full_read"]
    if speed and full:
        for axis in (top, bottom):
            axis.axvline(max(full), color="black", linewidth=0.8, linestyle="--")
    if title:
        figure.suptitle(title)
    figure.tight_layout()
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    figure.savefig(path, dpi=100)
    plt.close(figure)
    return path
