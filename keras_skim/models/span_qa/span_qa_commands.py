"""`keras-skim train --task squad` and `keras-skim evaluate` of its model
folders (`keras_skim.model_kinds.TASKS` names this module).

    keras-skim train --task squad --data train-v1.1.json --model lstm-attention --cell lstm -o run
    keras-skim evaluate run --data dev-v1.1.json

`--data` is a SQuAD-format JSON file, or `squad` (tfds, with the web). The
folder holds `model.keras`, `tokenizer.json` and `task.json` (the task, the
reader's settings and the results on the held-out questions). The word
embedding is trained from scratch (no GloVe for this task yet).
"""

import json
import pathlib

import numpy as np

from keras_skim.cli.errors import CliError
from keras_skim.cli.task_args import TASK_RECORD, refuse_unused_options, task_settings, write_task_record
from keras_skim.datasets.errors import DatasetUnavailableError, DataSourceError
from keras_skim.model_kinds import TASKS, cli_kind, load
from keras_skim.models.span_qa.bidirectional_reader import READER_CELLS

TASK = "squad"
TFDS_NAMES = ("squad", "tfds:squad")
DEFAULTS = {"units": 100, "small_units": 20, "gamma": 0.01, "epochs": 5, "batch_size": 32, "learning_rate": 1e-3}
DEFAULT_CONTEXT_LENGTH = 400
HELD_OUT = 0.1  # the fraction of a training file's questions held out to report F1 / EM on


def load_examples(data, split):
    """The `SquadExample`s of `--data`: a SQuAD-format file, or tfds' squad `split`."""
    from keras_skim.datasets.squad import load_squad_tfds, read_squad_file

    try:
        if data in TFDS_NAMES:
            return load_squad_tfds(split)
        if data is None or not pathlib.Path(data).suffix.lower() == ".json":
            raise CliError(f"--task {TASK} needs --data FILE.json (SQuAD format) or squad (tfds); got {data!r}")
        examples = read_squad_file(data)
    except (DatasetUnavailableError, DataSourceError) as err:
        raise CliError(" ".join(str(err).split())) from None
    if not examples:
        raise CliError(f"{data}: no questions")
    return examples


# Train options of text classification that this task has no use for, with the value each has when not given.
_UNUSED = {"limit": None, "split_seed": None, "freeze_embedding": False, "early_stopping": True}


def _settings(args):
    """The reader's settings from the train options (the task's defaults for those not given)."""
    refuse_unused_options(args, TASK, DEFAULTS, _UNUSED)
    if args.cell not in READER_CELLS:
        raise CliError(f"--cell {args.cell} cannot read for --task {TASK} (one of {', '.join(READER_CELLS)})")
    settings = task_settings(args, DEFAULTS)
    if cli_kind(args.cell).skims and settings["small_units"] >= settings["units"]:
        raise CliError(f"--small-units ({settings['small_units']}) must be smaller than --units ({settings['units']})")
    return settings


def _held_out(count, seed):
    """(train rows, test rows): `HELD_OUT` of the questions (at least one) held out at random by `seed`."""
    order = np.random.default_rng(seed).permutation(count)
    cut = max(1, int(round(count * HELD_OUT))) if count > 1 else 0
    return np.sort(order[cut:]), np.sort(order[:cut])


def train(args):
    """`keras-skim train --task squad`: fit, score the held-out questions, write the folder."""
    from keras_skim import output_folder
    from keras_skim.datasets.tokenizer import Tokenizer
    from keras_skim.models.span_qa.span_qa_data import encode_spans
    from keras_skim.models.span_qa.span_qa_training import SpanTrainingConfig, evaluate_span_reader, fit_span_reader

    settings = _settings(args)
    model_name = args.task_model or next(iter(TASKS[TASK].models))
    examples = load_examples(args.data, "train")
    context_length = args.max_length or DEFAULT_CONTEXT_LENGTH
    train_rows, test_rows = _held_out(len(examples), args.seed)
    training = [examples[i] for i in train_rows]
    tokenizer = Tokenizer(max_length=context_length).fit(
        [text for example in training for text in (example.context, example.question)], max_tokens=args.max_tokens
    )
    config = SpanTrainingConfig(
        TASKS[TASK].models[model_name], cells=args.cell, embedding_dim=settings["units"], seed=args.seed, **settings
    )
    encoded = encode_spans(examples, tokenizer, context_length)
    model = fit_span_reader(config, tokenizer.vocabulary_size, encoded.subset(train_rows), 0 if args.quiet else 2)
    results = {}
    if len(test_rows):
        results = evaluate_span_reader(model, encoded.subset(test_rows), settings["batch_size"])
        results.pop("predictions")
    record = {
        "task": TASK,
        "model": model_name,
        "cell": args.cell,
        "context_length": context_length,
        "data": str(args.data),
        "seed": args.seed,
        "settings": settings,
        "held_out": results,
    }
    with output_folder.staged_output_dir(args.output, force=args.force) as stage:
        model.save(str(pathlib.Path(stage) / "model.keras"))
        tokenizer.save(pathlib.Path(stage) / "tokenizer.json")
        write_task_record(stage, record)
    if results:
        print(report_lines(results, f"held-out questions of {args.data}"))
    print(f"wrote {args.output}")
    return 0


def evaluate(args):
    """`keras-skim evaluate FOLDER --data FILE.json`: F1, EM and the skim rate per layer and direction."""
    from keras_skim.models.span_qa.span_qa_data import encode_spans
    from keras_skim.models.span_qa.span_qa_training import evaluate_span_reader

    model, tokenizer, record = _load_folder(args.model)
    data = args.data or record["data"]
    examples = load_examples(data, "validation")[: args.limit]
    encoded = encode_spans(examples, tokenizer, record["context_length"])
    results = evaluate_span_reader(model, encoded, threshold=args.threshold)
    results.pop("predictions")
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        print(report_lines(results, data))
    return 0


def report_lines(results, source):
    """F1, EM and the skim rate per layer and direction, one line each."""
    lines = [
        f"{source}: {results['questions']} questions",
        f"F1 {results['f1']:.2f}  EM {results['exact_match']:.2f}  skim rate {100 * results['skim_rate']:.1f}%",
    ]
    for name, row in results["layers"].items():
        lines.append(
            f"  {name}: skim rate {100 * row['skim_rate']:.1f}% (forward {100 * row['forward']['skim_rate']:.1f}%, "
            f"backward {100 * row['backward']['skim_rate']:.1f}%)"
        )
    return "\n".join(lines)


def show(args):
    """`keras-skim show FOLDER --context TEXT --question TEXT`: the answer, and
    the context with what each layer and direction read marked (terminal and
    `--html`)."""
    import sys

    from keras_skim.cli import show_command
    from keras_skim.datasets.squad import span_text, tokens_with_offsets
    from keras_skim.models.span_qa.span_qa_data import QUESTION_LENGTH, best_spans
    from keras_skim.models.span_qa.span_qa_show import reading_masks

    if not args.question:
        raise CliError("--context needs --question")
    model, tokenizer, record = _load_folder(args.model)
    offsets = tokens_with_offsets(args.context)[: record["context_length"]]
    context_ids = tokenizer.encode_one(args.context, record["context_length"])
    question_ids = tokenizer.encode_one(args.question, QUESTION_LENGTH)
    if not len(context_ids) or not len(question_ids):
        raise CliError("the context and the question must each have a token")
    start, end, masks = reading_masks(model, context_ids, question_ids, args.threshold)
    first, last = best_spans(start[None], end[None])[0]
    answer = span_text(args.context, offsets, int(first), int(last))
    tokens = [args.context[begin:finish] for _, begin, finish in offsets]
    sections = [(f"{name} {way}: {100 * (1 - mask.mean()):.1f}% skimmed", mask) for (name, way), mask in masks.items()]
    color = args.color == "always" or (args.color == "auto" and sys.stdout.isatty())
    summary = f"answer: {answer!r} (characters {offsets[first][1]}-{offsets[last][2]} of the context)"
    print(summary)
    for heading, mask in sections:
        print(heading)
        print("  " + show_command.render_terminal(tokens, mask, color))
    if not color:
        print("(word: read, [word]: skimmed)")
    if args.html:
        title = "Span reader: what each layer read"
        show_command.write_html(args, show_command.render_html_sections(tokens, sections, title, summary))
    return 0


def _load_folder(path):
    """(model, tokenizer, task record) of a folder written by `train`."""
    import keras

    from keras_skim.datasets.tokenizer import Tokenizer

    folder = pathlib.Path(path)
    record = json.loads((folder / TASK_RECORD).read_text(encoding="utf-8"))
    for model_path in TASKS[TASK].models.values():
        load(model_path)  # registers the readers' classes before loading
    model = keras.saving.load_model(str(folder / "model.keras"), compile=False)
    return model, Tokenizer.load(folder / "tokenizer.json"), record
