"""`keras-skim show`: a text with its read and skimmed words marked (a
stacked or bidirectional model's once per layer and direction, the skim
paper's Figure 3 for one text: Seo et al. 2018); a model family with its own report
(the read, skipped and jumped words of a jump model) has it in its commands
module (`keras_skim.model_kinds.FAMILIES`).

Tokens are marked by the codes of the exports' per-token mask
(`keras_skim.contracts.TOKEN_*`), the same codes the Android app shows.
"""

import html
import sys

from keras_skim import contracts, output_folder
from keras_skim.cli.data_args import add_data_argument, add_split_arguments, data_error
from keras_skim.cli.errors import CliError
from keras_skim.cli.model_args import (
    add_threshold_argument,
    family_command,
    load_text_model,
    model_record,
    non_negative_int,
    output_path,
    text_tokenizer,
)
from keras_skim.contracts import HTML_MARKER
from keras_skim.model_kinds import skim_gate

_BOLD, _DIM, _RESET = "\033[1m", "\033[2;37m", "\033[0m"
_STRUCK = "\033[2;9;37m"  # dim and struck through

# How each mask code looks: (terminal style, plain-text form, HTML class).
_LOOKS = {
    contracts.TOKEN_READ: (_BOLD, "{}", "read"),
    contracts.TOKEN_SKIMMED: (_DIM, "[{}]", "skim"),
    contracts.TOKEN_JUMPED: (_STRUCK, "{{{}}}", "jump"),
    contracts.TOKEN_NOT_A_WORD: ("", "{}", "punct"),
}
SKIM_LEGEND = "<p><b>bold</b>: read by the big cell; <span class='skim'>grey</span>: skimmed.</p>"
JUMP_LEGEND = (
    "<p><span class='read'>bold</span>: read (updated the LSTM); <span class='skim'>grey</span>: "
    "skipped (only the skip agent ran); <span class='jump'>struck through</span>: jumped over "
    "(nothing ran); <span class='punct'>punctuation</span>: never read, it tells where a jump lands "
    "(<code>, ;</code> end a sub-sentence, <code>. ! ?</code> a sentence).</p>"
)


def add_arguments(parser):
    parser.add_argument(
        "model",
        metavar="MODEL",
        help="model folder, .keras/.h5 file, preset (keras-skim presets) or export folder (keras-skim export)",
    )
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--text", help="the text to read")
    source.add_argument("--file", help="a file holding the text")
    add_data_argument(source)
    source.add_argument("--context", help="a model of keras-skim train --task: the context to read (with --question)")
    parser.add_argument("--question", help="with --context: the question")
    add_split_arguments(parser, "seed of the held-out split (default: the one recorded at training)")
    parser.add_argument(
        "--index",
        type=non_negative_int,
        default=0,
        metavar="K",
        help="with --data: show the K-th text of the split (default 0)",
    )
    add_threshold_argument(parser)
    parser.add_argument("--tokenizer", default=None, help="tokenizer.json (default: next to MODEL)")
    parser.add_argument("--html", type=output_path, default=None, help="also write an HTML page here")
    parser.add_argument("--force", action="store_true", help="replace an HTML file that keras-skim show wrote before")
    parser.add_argument("--color", choices=["auto", "always", "never"], default="auto")


def render_terminal(tokens, decisions, color):
    """The tokens marked by their mask codes (`contracts.TOKEN_*`; a skim
    model's True/False read decisions are codes 1/0). Without colour: read
    words as they are, skimmed or skipped ones in [brackets], jumped ones in
    {braces}, punctuation as it is; with colour: bold, grey, grey struck
    through, plain."""
    looks = [_LOOKS[int(d)] for d in decisions]
    if not color:
        return " ".join(plain.format(t) for t, (_, plain, _) in zip(tokens, looks))
    return " ".join(f"{style}{t}{_RESET}" if style else t for t, (style, _, _) in zip(tokens, looks))


def render_html(tokens, decisions, title, summary, legend=SKIM_LEGEND):
    """A page with the tokens marked by their mask codes (`render_terminal`'s)."""
    return render_html_sections(tokens, [(None, decisions)], title, summary, legend)


def render_html_sections(tokens, sections, title, summary, legend=SKIM_LEGEND):
    """A page with the tokens marked once per section: [(heading or None,
    mask codes)] (a stacked model: one per layer and direction)."""
    body = "".join(
        (f"<h2>{html.escape(heading)}</h2>" if heading else "")
        + "<p>"
        + " ".join(f'<span class="{_LOOKS[int(d)][2]}">{html.escape(t)}</span>' for t, d in zip(tokens, decisions))
        + "</p>"
        for heading, decisions in sections
    )
    summary_html = "<br>".join(html.escape(line) for line in summary.split("\n"))
    return (
        f"<!DOCTYPE html>\n{HTML_MARKER}\n<html><head><meta charset='utf-8'>"
        f"<title>{html.escape(title)}</title><style>"
        "body{font-family:Georgia,serif;max-width:48em;margin:2em auto;line-height:1.6}"
        ".read{font-weight:bold;color:#000}.skim{color:#aaa}"
        ".jump{color:#ccc;text-decoration:line-through}.punct{color:#000}h2{font-size:1em}</style></head><body>"
        f"<h1>{html.escape(title)}</h1><p>{summary_html}</p>"
        f"{legend}"
        f"{body}</body></html>\n"
    )


# The most text `--file` reads (an endless stream is refused, not read whole).
MAX_TEXT_BYTES = 16 << 20


def read_text_file(path):
    """The text of `--file PATH`: UTF-8 text of at most `MAX_TEXT_BYTES`, or
    one line saying what it is."""
    from keras_skim.contract_fields import read_limited

    try:
        data = read_limited(path, MAX_TEXT_BYTES)
    except IsADirectoryError:
        raise CliError(f"{path}: is a folder (expected a UTF-8 text file)") from None
    except OSError as err:
        raise CliError(f"{path}: cannot read ({err.strerror})") from None
    except ValueError as err:
        raise CliError(f"{path}: {err} (expected a UTF-8 text file)") from None
    if b"\0" in data:
        raise CliError(f"{path}: is a binary file (expected a UTF-8 text file)")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = data[: err.start].count(b"\n") + 1
        raise CliError(f"{path}: line {line} is not UTF-8 text (expected a UTF-8 text file)") from None


def write_html(args, page):
    """Writes the `--html` page (atomically); a full disk is one line."""
    try:
        output_folder.write_output_file(args.html, page.encode("utf-8"), force=args.force, marker=HTML_MARKER)
    except OSError as err:
        raise CliError(f"{args.html}: cannot write the page ({err.strerror or err})") from None


def _text_from_data(args, recorded):
    """(text, its label's class name or None) of `--data` at `--split`/`--index`
    (unlabelled texts, which have no held-out split, are read whole)."""
    from keras_skim.datasets import DatasetUnavailableError, DataSourceError
    from keras_skim.datasets.registry import resolve_data

    try:
        source = resolve_data(args.data, split_seed=args.split_seed, recorded=recorded)
        texts, labels = source.load(args.split if source.labelled else "all")
    except (DatasetUnavailableError, DataSourceError) as err:
        raise data_error(err) from None
    if args.index >= len(texts):
        raise CliError(f"--index {args.index}: {source.describe(args.split)} has {len(texts)} texts")
    label = None if labels is None else source.classes[int(labels[args.index])]
    return texts[args.index], label


def _text_of(args, recorded):
    """(text, its label's class name or None) of `--text`, `--file` or `--data`."""
    if args.data is not None:
        return _text_from_data(args, recorded)
    if args.file is not None:
        return read_text_file(args.file), None
    return args.text, None


def _prediction(logits, class_names):
    """'name (p=0.83)' of the most likely class, from one logit or k logits."""
    import numpy as np

    logits = np.asarray(logits, np.float64).reshape(-1)
    if logits.size == 1:
        positive = 1.0 / (1.0 + np.exp(-logits[0]))
        probabilities = np.array([1.0 - positive, positive])
    else:
        exp = np.exp(logits - logits.max())
        probabilities = exp / exp.sum()
    best = int(np.argmax(probabilities)) if logits.size > 1 else int(logits[0] >= 0)
    names = list(class_names or [])
    if len(names) != len(probabilities):
        names = ["negative", "positive"] if logits.size == 1 else [f"class {i}" for i in range(logits.size)]
    detail = f", logit {logits[0]:+.3f}" if logits.size == 1 else ""
    return f"{names[best]} (p={probabilities[best]:.2f}{detail})"


def run(args):
    if args.html:
        output_folder.check_output_file(args.html, force=args.force, marker=HTML_MARKER)
    from keras_skim.cli.export_reading import export_path
    from keras_skim.cli.task_args import recorded_task

    task = recorded_task(args.model)
    if task is not None:  # a model folder of `keras-skim train --task` (keras_skim.model_kinds.TASKS)
        if args.context is None:
            raise CliError(f"{args.model}: a model of keras-skim train --task reads --context and --question")
        return task.show(args)
    if args.context is not None or args.question is not None:
        raise CliError("--context and --question apply only to a model of keras-skim train --task")
    export = export_path(args.model)
    if export is not None:  # an export folder: read through the runtime, without TensorFlow
        return _show_export(args, export, *_text_of(args, {}))
    folder, config, recorded = model_record(args.model)
    text, label = _text_of(args, recorded)
    model_file = folder.model
    model = load_text_model(folder, "show")
    tokenizer = text_tokenizer(model, args.tokenizer, folder)
    ids = tokenizer.encode_one(text, max_length=config.max_length if config else None)
    if len(ids) == 0:
        raise CliError("the text has no tokens")
    own_report = family_command(model, "show")
    if own_report is not None:
        return own_report(args, model, model_file, tokenizer, text, ids, label, recorded)
    return _show_skims(args, model, model_file, tokenizer, text, ids, label, recorded)


def _show_export(args, path, text, label):
    """`keras-skim show EXPORT`: the text with its read, skimmed (or skipped)
    and jumped words marked, as a Keras model's (`export_reading`)."""
    from keras_skim.cli.export_reading import marked_sections, read_text

    runner, tokens, masks, logits = read_text(args, path, text)
    head = f"prediction: {_prediction(logits, runner.metadata.class_names)}"
    head += (f", label: {label}" if label is not None else "") + "; "
    sections, summary, title = marked_sections(runner, masks, head, path)
    color = args.color == "always" or (args.color == "auto" and sys.stdout.isatty())
    for heading, mask in sections:
        if heading:
            print(heading)
        print(("  " if heading else "") + render_terminal(tokens, mask, color))
    if runner.jumps and not color:
        print("(word: read, [word]: skipped, {word}: jumped over)")
    print(summary)
    if args.html:
        write_html(
            args, render_html_sections(tokens, sections, title, summary, JUMP_LEGEND if runner.jumps else SKIM_LEGEND)
        )
        print(f"wrote {args.html}")
    return 0


def _show_skims(args, model, model_file, tokenizer, text, ids, label, recorded):
    """A skim model's read and skimmed words: one marked line, or, for a
    stacked or bidirectional model, one per layer and direction (the
    paper's Figure 3 for one text)."""
    import numpy as np

    gate = skim_gate()
    if not gate.gated_cells(model):
        raise CliError(f"{model_file}: has no skim layer, so every word is read")
    max_length = model.inputs[0].shape[1]
    if max_length is not None and len(ids) > max_length:
        ids = ids[:max_length]
    stacked = gate.is_stack(model)
    try:
        masks = gate.direction_decisions(model, ids, threshold=args.threshold, first_only=not stacked)
    except ValueError as err:  # a skim cell outside a top-level RNN or Bidirectional layer
        raise CliError(f"{model_file}: {err}") from None
    tokens = tokenizer.tokenize(text)[: len(ids)]
    padded = np.zeros((1, max_length or len(ids)), "int32")
    padded[0, : len(ids)] = ids
    with gate.thresholds_set_to(gate.gated_cells(model), args.threshold):
        prediction = _prediction(model.predict(padded, verbose=0)[0], recorded.get("classes"))
    read, steps = sum(int(m.sum()) for m in masks), len(masks) * len(ids)
    over = ""
    if stacked:  # a stack with one skim layer (after plain ones) has one skim direction
        over = f" over {len(masks)} skim " + ("layers and directions" if len(masks) > 1 else "direction")
    summary = (
        f"prediction: {prediction}" + (f", label: {label}" if label is not None else "") + "; "
        f"read {read} of {steps} tokens{over}, skimmed {1 - read / steps:.0%}"
    )
    color = args.color == "always" or (args.color == "auto" and sys.stdout.isatty())
    sections = [(None, masks[0])]
    if stacked:
        sections = [(_direction_line(d, m), m) for d, m in zip(gate.skim_directions(model), masks)]
    for heading, mask in sections:
        if heading:
            print(heading)
        print(("  " if heading else "") + render_terminal(tokens, mask, color))
    print(summary)
    if args.html:
        page = render_html_sections(tokens, sections, gate.REPORT_TITLE, summary)
        write_html(args, page)
        print(f"wrote {args.html}")
    return 0


def _direction_line(direction, mask):
    """'layer 0 (bidirectional) backward: read 4 of 6 tokens, skimmed 33%'."""
    read, tokens = int(mask.sum()), len(mask)
    return f"{direction.label}: read {read} of {tokens} tokens, skimmed {1 - read / tokens:.0%}"
