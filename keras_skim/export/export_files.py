"""What every export writes and returns, whatever its model: the checked
tokenizer, the parity record, the export folder (staged: all of it or
nothing) and the `ExportResult` (`exporter.export_model`, `task_export`)."""

import dataclasses
import os
import shutil

from keras_skim import contracts, output_folder
from keras_skim.export.errors import ExportError


@dataclasses.dataclass
class ExportResult:
    output_dir: str
    files: list
    metadata: contracts.ExportMetadata
    parity: object
    notes: list


def checked_tokenizer(tokenizer_file, plan, tokenizer=None):
    """The export's tokenizer (the caller's `tokenizer`, else the file's; None
    without either), checked against the embedding."""
    if tokenizer is None and tokenizer_file is None:
        return None
    if tokenizer is None:
        from keras_skim.datasets.tokenizer import Tokenizer

        try:
            tokenizer = Tokenizer.load(tokenizer_file)
        except ValueError as err:
            raise ExportError(str(err).splitlines()[0]) from None
    if tokenizer.vocabulary_size > plan.vocabulary_size:
        raise ExportError(
            f"{tokenizer_file or 'the tokenizer'}: {tokenizer.vocabulary_size} tokens but the model's embedding "
            f"has {plan.vocabulary_size} rows"
        )
    return tokenizer


def write_export(output_dir, force, model_file, tokenizer_file, flatbuffer, metadata, tokenizer=None):
    """Writes the export folder (staged: all of it or nothing); the caller's
    in-memory `tokenizer` is saved there when there is no `tokenizer_file`."""
    try:
        with output_folder.staged_output_dir(output_dir, force=force, inputs=[model_file, tokenizer_file]) as stage:
            with open(os.path.join(stage, contracts.TFLITE_FILE), "wb") as f:
                f.write(flatbuffer)
            if tokenizer_file:
                shutil.copyfile(tokenizer_file, os.path.join(stage, contracts.TOKENIZER_FILE))
            elif tokenizer is not None:
                tokenizer.save(os.path.join(stage, contracts.TOKENIZER_FILE))
            contracts.write_json(os.path.join(stage, contracts.METADATA_FILE), metadata.to_json())
    except contracts.ContractError as err:
        raise ExportError(str(err)) from None
    except OSError as err:
        raise ExportError(f"{output_dir}: cannot write the export ({err.strerror})") from None


def parity_record(parity, real_texts, against, tolerance):
    """The metadata's `parity`: the check's result, how many real texts it
    ran, what it compared against and with which tolerance."""
    return dict(
        parity.as_dict(),
        real_texts=real_texts,
        against=against,
        tolerance={"decisions": tolerance.decisions, "atol": tolerance.atol},
    )
