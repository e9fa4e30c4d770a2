"""`SkimRunner`: runs an exported keras-skim model with LiteRT, the way a
phone app does. Imports neither TensorFlow nor Keras."""
import json
import os

import numpy as np

from keras_skim.runtime.interpreter_loader import make_interpreter

SIGNATURE_KEY = "serving_default"


class RuntimeModelError(ValueError):
    """An export folder or file that cannot be run; the message is one line."""


def resolve_export(path):
    """(model.tflite path, export folder) for a folder or a .tflite file."""
    path = os.path.abspath(os.fspath(path))
    if os.path.isdir(path):
        folder, model = path, os.path.join(path, "model.tflite")
    else:
        folder, model = os.path.dirname(path), path
    if not os.path.isfile(model):
        raise RuntimeModelError(f"{model}: no such file (expected an exported model.tflite)")
    return model, folder


def probabilities_from_logits(logits, activation):
    """Class probabilities from the `logits` output; a single sigmoid unit gives [1-p, p]."""
    logits = np.asarray(logits, dtype=np.float64).reshape(-1)
    if logits.size == 1:
        p = 1.0 / (1.0 + np.exp(-logits[0]))
        return np.array([1.0 - p, p])
    if activation == "sigmoid":
        return 1.0 / (1.0 + np.exp(-logits))
    e = np.exp(logits - logits.max())
    return e / e.sum()


class SkimRunner:
    """An exported model with its metadata and tokenizer.

    Args:
        path: the export folder or its `model.tflite` (`metadata.json` and
            `tokenizer.json` are read from the same folder).
        num_threads: interpreter threads.
    """

    def __init__(self, path, num_threads=1):
        self.model_path, folder = resolve_export(path)
        meta_path = os.path.join(folder, "metadata.json")
        try:
            with open(meta_path, encoding="utf-8") as f:
                self.metadata = json.load(f)
        except (OSError, ValueError) as err:
            raise RuntimeModelError(f"{meta_path}: cannot read the export metadata ({err})") from None
        if self.metadata.get("format") != "keras_skim.export":
            raise RuntimeModelError(f"{meta_path}: not a keras_skim.export metadata file")
        self.tokenizer = None
        tok_path = os.path.join(folder, "tokenizer.json")
        if os.path.isfile(tok_path):
            from keras_skim.datasets.tokenizer import Tokenizer

            self.tokenizer = Tokenizer.load(tok_path)
        try:
            self.interpreter = make_interpreter(model_path=self.model_path, num_threads=num_threads)
        except (ValueError, OSError) as err:  # not a TFLite model, unreadable
            raise RuntimeModelError(f"{self.model_path}: {str(err).splitlines()[0]}") from None
        except RuntimeError as err:  # LiteRT unavailable, or the model does not compile (unknown custom op)
            raise RuntimeModelError(f"{self.model_path}: {str(err).splitlines()[0]}") from None
        try:
            self._signature = self.interpreter.get_signature_runner(
                self.metadata.get("signature", SIGNATURE_KEY)
            )
        except (ValueError, RuntimeError) as err:
            raise RuntimeModelError(f"{self.model_path}: cannot prepare the model ({str(err).splitlines()[0]})") from None
        self.default_threshold = self.metadata.get("default_threshold")
        self.max_length = self.metadata.get("max_length")

    @property
    def backend(self):
        """"builtin" (builtin ops only) or "custom" (needs the KerasSkimLSTM op)."""
        return self.metadata.get("backend", "builtin")

    @property
    def skims(self):
        return self.metadata.get("model_kind", "").startswith("skim")

    def encode(self, text):
        """(token ids int32 [T], tokens) of one text, cut at `max_length`."""
        if self.tokenizer is None:
            raise RuntimeModelError("this export has no tokenizer.json: pass token ids to run_ids")
        tokens = self.tokenizer.tokenize(text)
        ids = self.tokenizer.encode_one(text, max_length=self.max_length)
        tokens = tokens[: len(ids)]
        keep = ids != 0
        return ids[keep], [t for t, k in zip(tokens, keep) if k]

    def run_ids(self, token_ids, threshold=None):
        """Raw outputs (`logits`, `read_mask`, `read_count`) for ids [T] or [1, T]."""
        ids = np.asarray(token_ids, dtype=np.int32).reshape(1, -1)
        if ids.shape[1] == 0:
            ids = np.ones((1, 1), np.int32)  # an empty text reads as one unknown token
        if threshold is None:
            threshold = self.default_threshold if self.default_threshold is not None else 0.0
        return self._signature(token_ids=ids, threshold=np.float32(threshold))

    def classify(self, text, threshold=None):
        """(probabilities, read_mask, tokens) of one text.

        `read_mask[i]` is 1 if the big cell read `tokens[i]`, 0 if skimmed.
        """
        ids, tokens = self.encode(text)
        out = self.run_ids(ids, threshold)
        probabilities = probabilities_from_logits(out["logits"], self.metadata.get("output_activation"))
        mask = np.asarray(out["read_mask"]).reshape(-1)[: len(tokens)]
        return probabilities, mask, tokens
