"""The presets of issue 31 and the exact paper-protocol command that trains each one.

Every preset is trained by one command, run from the repository root; its
model folder goes to runs/<name> and `benchmarks/make_preset.py` turns it
into presets/<name> (the real test-split evaluation, preset.json, README.md).

* Skim-LSTM and its LSTM baselines (Seo et al., ICLR 2018): Adam 1e-4, batch
  128, d=100, d'=10, gamma 0.01, early stopping when validation accuracy has
  not improved for 3,000 steps (`--patience-steps 3000`, checked at each
  epoch's end, best epoch kept), up to 200 epochs; the test split once, at the end.
* Structural-Jump-LSTM (Hansen et al., ICLR 2019): the authors' step schedule
  (`--schedule authors`).

Every `keras-skim train` command here is resumable and says so itself
(`--resume --run-name preset_<name>`): its checkpoint lives in
~/.cache/keras_skim/runs/preset_<name> ($KERAS_SKIM_CACHE/runs), outside the
work tree; the skim cells and baselines write it at each epoch's end, the
Structural-Jump-LSTM at each validation and on SIGINT/SIGTERM. The first run
of a command starts the run; after a stop (Ctrl-C, a kill, a session's end,
a reboot) the very same command continues it, and the run ends as if it had
never stopped (the same weights and history). A command whose run finished
rewrites runs/<name> from its checkpoint without training (pass `--force`
once runs/<name> exists). Start over by deleting the run folder, or by the
command without `--resume` plus `--force`.
* scoRNN pixel MNIST (Helfrich et al., ICML 2018): `benchmarks/scornn_tasks.py
  mnist-model` with the paper's settings (n=170, RMSprop 1e-3, 1e-4 for the
  skew-symmetric A, batch 50, 70 epochs, the epoch of best validation accuracy
  kept, the test split once at the end). It writes runs/scornn_pixel_mnist, a
  model folder without tokenizer (it reads float sequences), and is resumable
  the same way (`--resume --run-name preset_scornn_pixel_mnist`, a checkpoint
  at each epoch's end); `make_preset.py ... --data mnist` evaluates it on the
  sequence data set `mnist` (keras_skim.datasets.sequence_data).

These runs take hours to days on a CPU: start them in the background, so
that they outlive the shell, and start the same line again after a stop:

    python benchmarks/train_presets.py --list            # every preset and its command
    python benchmarks/train_presets.py --command NAME    # one command, as a shell line
    python benchmarks/train_presets.py NAME              # run it (long; again to resume)
    mkdir -p runs && nohup nice -n 19 python benchmarks/train_presets.py NAME >> runs/NAME.log 2>&1 &

A run started here has TF_ENABLE_ONEDNN_OPTS=1 unless the environment sets it (`training_environment`).
"""

import argparse
import os
import shlex
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# The Skim-RNN paper's optimisation, for the skim models and their baselines alike.
SKIM_PROTOCOL = ["--learning-rate", "1e-4", "--batch-size", "128", "--epochs", "200", "--patience-steps", "3000"]
SKIM_CELL = ["--cell", "skim-lstm", "--units", "100", "--small-units", "10", "--gamma", "0.01"]
SKIM_CELL_RT = SKIM_CELL[:-1] + ["0.1"]  # the skim loss ten times the paper's (see the RT preset)
LSTM_CELL = ["--cell", "lstm", "--units", "100"]
JUMP = ["--cell", "sj-lstm", "--schedule", "authors"]
SEO = "Seo et al., ICLR 2018 (Skim-RNN)"
HANSEN = "Hansen et al., ICLR 2019 (Structural-Jump-LSTM)"
# The scoRNN paper's pixel-MNIST optimisation (Helfrich et al., ICML 2018): n=170, RMSprop 1e-3, 1e-4 for A,
# batch 50, 70 epochs.
SCORNN_PROTOCOL = ["--n", "170", "--epochs", "70", "--batch-size", "50", "--lr", "1e-3", "--skew-lr", "1e-4"]


def _train(name, data, options):
    # Resumable: the checkpoint goes to ~/.cache/keras_skim/runs/preset_<name>, outside the work tree, and
    # the same command continues the run after a stop (or starts it when there is no checkpoint yet).
    return [
        "keras-skim",
        "train",
        "--data",
        data,
        *options,
        "--resume",
        "--run-name",
        f"preset_{name}",
        "-o",
        f"runs/{name}",
    ]


PRESETS = {
    "skim_lstm_imdb": {
        "data": "imdb",
        "command": _train("skim_lstm_imdb", "imdb", SKIM_CELL + SKIM_PROTOCOL),
        "baseline": "lstm_imdb",
        "description": "A Skim-LSTM (d=100, d'=10, gamma 0.01) sentiment classifier of IMDB reviews: a small LSTM "
        "reads the tokens it judges unimportant, the full one the rest.",
        "paper": {"source": SEO, "test_accuracy": 0.912, "skim_rate": 0.839, "baseline_test_accuracy": 0.911},
    },
    "lstm_imdb": {
        "data": "imdb",
        "command": _train("lstm_imdb", "imdb", LSTM_CELL + SKIM_PROTOCOL),
        "baseline": None,
        "description": "An LSTM (d=100) sentiment classifier of IMDB reviews, trained as the Skim-LSTM is: "
        "the baseline of the IMDB presets.",
        "paper": {"source": SEO, "test_accuracy": 0.911},
    },
    "structural_jump_lstm_imdb": {
        "data": "imdb",
        "command": _train("structural_jump_lstm_imdb", "imdb", JUMP),
        "baseline": "lstm_imdb",
        "description": "A Structural-Jump-LSTM sentiment classifier of IMDB reviews: agents decide after each "
        "word whether to skip the next word or jump to the next punctuation mark or sentence end.",
        "paper": {
            "source": HANSEN,
            "test_accuracy": 0.882,
            "read_fraction_per_document": 0.197,
            "baseline_test_accuracy": 0.882,
        },
    },
    "skim_lstm_rotten_tomatoes": {
        "data": "rotten_tomatoes",
        # gamma 0.1: with the paper's 0.01 the gate read 78% of this corpus's tokens and the model missed the
        # LSTM (benchmarks/results/rt_skim_attempts.md holds every attempt).
        "command": _train("skim_lstm_rotten_tomatoes", "rotten_tomatoes", SKIM_CELL_RT + SKIM_PROTOCOL),
        "baseline": "lstm_rotten_tomatoes",
        "description": "A Skim-LSTM (d=100, d'=10, gamma 0.1) sentiment classifier of movie review snippets.",
        "paper": {"source": SEO, "test_accuracy": 0.842, "skim_rate": 0.52, "baseline_test_accuracy": 0.825},
        "limits": "Trained on keras-skim's Rotten Tomatoes corpus, not the paper's: its figures are beside ours "
        "for reference, not as a like-for-like comparison. Its skim loss weighs ten times the paper's (gamma 0.1): "
        "with 0.01 the gate read 78% of this corpus's tokens and the model stayed under the LSTM "
        "(benchmarks/results/rt_skim_attempts.md). Its lead over the LSTM compares one run of each "
        "model, not a mean over seeds.",
    },
    "lstm_rotten_tomatoes": {
        "data": "rotten_tomatoes",
        "command": _train("lstm_rotten_tomatoes", "rotten_tomatoes", LSTM_CELL + SKIM_PROTOCOL),
        "baseline": None,
        "description": "An LSTM (d=100) sentiment classifier of movie review snippets: the baseline of the "
        "Rotten Tomatoes presets.",
        "paper": {"source": SEO, "test_accuracy": 0.825},
        "limits": "Trained on keras-skim's Rotten Tomatoes corpus, not the paper's.",
    },
    "structural_jump_lstm_rotten_tomatoes": {
        "data": "rotten_tomatoes",
        "command": _train("structural_jump_lstm_rotten_tomatoes", "rotten_tomatoes", JUMP),
        "baseline": "lstm_rotten_tomatoes",
        "description": "A Structural-Jump-LSTM sentiment classifier of movie review snippets.",
        "paper": {
            "source": HANSEN,
            "test_accuracy": 0.790,
            "read_fraction_per_document": 0.578,
            "baseline_test_accuracy": 0.787,
        },
        "limits": "Trained on keras-skim's Rotten Tomatoes corpus, not the paper's.",
    },
    "scornn_pixel_mnist": {
        "data": "mnist",
        "command": [
            "python",
            "benchmarks/scornn_tasks.py",
            "mnist-model",
            *SCORNN_PROTOCOL,
            "--tag",
            "preset",
            "--resume",
            "--run-name",
            "preset_scornn_pixel_mnist",
            "-o",
            "runs/scornn_pixel_mnist",
        ],
        "baseline": None,
        "description": "A scoRNN (n=170, rho=17) classifier of MNIST digits read pixel by pixel (784 steps of one "
        "pixel), trained with the paper's protocol: RMSprop 1e-3, 1e-4 for the skew-symmetric A, batch 50, "
        "70 epochs, the epoch of best validation accuracy kept.",
        "paper": {"source": "Helfrich et al., ICML 2018 (scoRNN)", "test_accuracy": 0.973},
        "limits": "Reads float sequences, not text: `keras-skim show` and `bench` refuse it; export it and run it "
        "with keras_skim.runtime.SkimRunner(folder).run_sequence. Trained on the 10,000 MNIST digits a "
        "package registry carries (7,333 train, 667 validation, 2,000 test: keras_skim.datasets.sequence_data), "
        "not the paper's 55,000 / 5,000 / 10,000: the paper's figure is beside ours for reference, not as a "
        "like-for-like comparison.",
    },
}


def command_line(name):
    """The shell line of a preset's training command."""
    return shlex.join(PRESETS[name]["command"])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    what = parser.add_mutually_exclusive_group(required=True)
    what.add_argument("--list", action="store_true", help="print every preset and its command")
    what.add_argument("--command", choices=sorted(PRESETS), metavar="NAME", help="print one preset's command")
    what.add_argument("name", nargs="?", choices=sorted(PRESETS), metavar="NAME", help="run one preset's command")
    args = parser.parse_args(argv)
    if args.list:
        for name in PRESETS:
            print(f"{name}\n  {command_line(name)}")
        return 0
    if args.command:
        print(command_line(args.command))
        return 0
    command = PRESETS[args.name]["command"]
    if command[0] == "keras-skim":
        command = [sys.executable, "-m", "keras_skim", *command[1:]]
    elif command[0] == "python":  # this interpreter, the one with keras-skim's dependencies
        command = [sys.executable, *command[1:]]
    return subprocess.call(command, cwd=ROOT, env=training_environment())


def training_environment():
    """This process's environment, with oneDNN's CPU kernels on unless it says otherwise.

    They took 1.5x less CPU per Structural-Jump-LSTM training step, same losses
    (benchmarks/results/sj_training_speed.md); TensorFlow turns them on by itself
    only on CPUs with AVX-512, and reads the variable once, at its import.
    """
    env = dict(os.environ)
    env.setdefault("TF_ENABLE_ONEDNN_OPTS", "1")
    return env


if __name__ == "__main__":
    sys.exit(main())
