"""Structural-Jump-LSTM text classifier that trains with plain `model.fit`."""

from collections.abc import Sequence
from typing import Any

import keras
from keras import ops

from keras_skim.backends import current as backend
from keras_skim.models.structural_jump.actor_critic_loss import (
    ADVANTAGES,
    TARGET_LOSSES,
    check_target,
    structural_jump_losses,
)
from keras_skim.models.structural_jump.structural_jump_lstm_cell import (
    NEXT_WORD,
    NUM_NOISE,
    NUM_SKIP_ACTIONS,
    READ,
    STEP_EXTRA,
    StructuralJumpLSTMCell,
    pack_step_inputs,
)
from keras_skim.models.structural_jump.text_structure import TextStructure

# Noise that makes the agents' READ and NEXT_WORD certain (`read_words(read_all=True)`): argmax(logits +
# noise) with logits far below it; inf in float16, which still compares as certain.
_CERTAIN = 1e9
_READ_NEXT_NOISE = [0.0] * NUM_NOISE
_READ_NEXT_NOISE[READ] = _READ_NEXT_NOISE[NUM_SKIP_ACTIONS + NEXT_WORD] = _CERTAIN

_METRICS = (
    "accuracy",
    "read_fraction",
    "skip_fraction",
    "jump_fraction",
    "reward",
    "class_loss",
    "actor_loss",
    "critic_loss",
    "entropy_loss",
)


@keras.saving.register_keras_serializable(package="keras_skim")
class StructuralJumpLSTM(keras.Model):
    """Structural-Jump-LSTM text classifier (Hansen et al., ICLR 2019).

    Takes the same raw token ids as the other keras-skim models
    (`keras_skim.datasets.Tokenizer` ids, punctuation included, 0 =
    padding). `TextStructure` turns them into the word stream and the jump
    offsets; an embedding (dropout 0.1) feeds a
    `keras.layers.RNN(StructuralJumpLSTMCell)`; the last state reached
    goes through dropout 0.1, a ReLU layer of `units` and a softmax layer
    of `num_classes` (the paper's head).

    Training with `model.fit` (compile with an optimizer only): in
    training the agents sample their actions (Gumbel-max), and
    `compute_loss` adds the actor-critic loss of
    `keras_skim.models.structural_jump.actor_critic_loss.structural_jump_losses` with the
    paper's rewards to the cross-entropy. In evaluation and prediction the
    actions are greedy. `model.speed_reading = False` reads every word (the
    full-read pretraining; the agents' logits are then trained towards
    "read, next word" and the actor and critic losses are off). The fit
    logs hold `accuracy`, `read_fraction`, `skip_fraction`,
    `jump_fraction` (corpus-level over the words seen), `reward` and the
    partial losses. `keras_skim.models.structural_jump.structural_jump_training` runs
    both phases.

    Args:
        vocabulary_size: rows of the embedding (ids 0..vocabulary_size-1).
        separator_ids, sentence_end_ids, other_punctuation_ids: the
            punctuation ids of the tokenizer (see
            `keras_skim.models.structural_jump.text_structure.punctuation_ids`).
        num_classes: number of classes, >= 2.
        embedding_dim: word vector size (50 with GloVe 6B 50d).
        units: LSTM size m (128 in the paper); also the head's hidden size.
        agent_units: hidden size of each agent (25).
        embedding_dropout, output_dropout: dropout rates (0.1 and 0.1).
        speed_reading: whether the agents act (see above).
        skip_cost: cost of a skipped word relative to a read one (0.5).
        rolling_weight: weight w of the summed word costs in the return (0.1).
        actor_weight, critic_weight: beta and gamma of eq. 7 (10 and 1);
            beta is a non-trainable variable (`CriticWarmup` sets it to 0
            for the first steps of speed reading).
        entropy_weight: delta, weight of the target ("entropy") term; a
            non-trainable variable that `EntropyWeightDecay` anneals.
        advantage: "paper" (R_t - V_t) or "code" (R_0 - V_t).
        target_loss: "sigmoid_ce" (the authors' code) or "kl".
        explore_skip_target: (skip, read) target while speed reading.
        explore_jump_target: (next word, separator, sentence end, end)
            target while speed reading.
        train_embedding: whether the embedding is trained.
        seed: seed of the Gumbel noise and the dropout.
        **kwargs: `keras.Model` keyword arguments (`name`).

    Call arguments:
        token_ids: int tensor `(batch, T)`.
        training: sample actions and apply dropout (True) or act greedily.

    Returns:
        dict with `logits` `(batch, num_classes)`, `trace` `(batch, T, 14)`
        (the cell's per-step output over the word stream, zero past the
        words; see the `TRACE_*` constants of
        `keras_skim.models.structural_jump.structural_jump_lstm_cell`) and `word_count`
        `(batch,)`.

    Example:

    >>> import numpy as np
    >>> from keras_skim import StructuralJumpLSTM
    >>> model = StructuralJumpLSTM(30, separator_ids=[2], sentence_end_ids=[3],
    ...                            units=8, agent_units=4, embedding_dim=6)
    >>> out = model(np.array([[5, 6, 2, 7, 3, 8, 0]]))
    >>> tuple(out["logits"].shape), tuple(out["trace"].shape), int(out["word_count"][0])
    ((1, 2), (1, 7, 14), 4)

    Reference:
        Christian Hansen, Casper Hansen, Stephen Alstrup, Jakob Grue
        Simonsen, Christina Lioma. "Neural Speed Reading with
        Structural-Jump-LSTM". ICLR 2019. https://arxiv.org/abs/1904.00761
    """

    # Keras' attribute, declared for the type checker (Keras ships no hints)
    built: bool

    def __init__(
        self,
        vocabulary_size: int,
        separator_ids: Sequence[int],
        sentence_end_ids: Sequence[int],
        other_punctuation_ids: Sequence[int] = (),
        num_classes: int = 2,
        embedding_dim: int = 50,
        units: int = 128,
        agent_units: int = 25,
        embedding_dropout: float = 0.1,
        output_dropout: float = 0.1,
        speed_reading: bool = True,
        skip_cost: float = 0.5,
        rolling_weight: float = 0.1,
        actor_weight: float = 10.0,
        critic_weight: float = 1.0,
        entropy_weight: float = 0.1,
        advantage: str = "paper",
        target_loss: str = "sigmoid_ce",
        explore_skip_target: Sequence[float] = (0.5, 0.5),
        explore_jump_target: Sequence[float] = (0.25, 0.25, 0.25, 0.25),
        train_embedding: bool = True,
        seed: int | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        _check_int("vocabulary_size", vocabulary_size, 2)
        _check_int("num_classes", num_classes, 2)
        _check_int("embedding_dim", embedding_dim, 1)
        for name, value in (
            ("skip_cost", skip_cost),
            ("rolling_weight", rolling_weight),
            ("actor_weight", actor_weight),
            ("critic_weight", critic_weight),
            ("entropy_weight", entropy_weight),
        ):
            _check_number(name, value, 0.0)
        for name, value in (("embedding_dropout", embedding_dropout), ("output_dropout", output_dropout)):
            _check_number(name, value, 0.0)
            if value >= 1.0:
                raise ValueError(f"Argument `{name}` must be in [0, 1). Received: {name}={value}")
        if advantage not in ADVANTAGES:
            raise ValueError(f"Argument `advantage` must be one of {ADVANTAGES}. Received: {advantage!r}")
        if target_loss not in TARGET_LOSSES:
            raise ValueError(f"Argument `target_loss` must be one of {TARGET_LOSSES}. Received: {target_loss!r}")
        self.text_structure = TextStructure(
            separator_ids, sentence_end_ids, other_punctuation_ids, name="text_structure"
        )
        punctuation = (
            self.text_structure.separator_ids
            + self.text_structure.sentence_end_ids
            + self.text_structure.other_punctuation_ids
        )
        if punctuation and max(punctuation) >= vocabulary_size:
            raise ValueError(
                f"Punctuation ids must be < vocabulary_size={vocabulary_size}. Received: {sorted(punctuation)}"
            )
        self.vocabulary_size = vocabulary_size
        self.separator_ids = self.text_structure.separator_ids
        self.sentence_end_ids = self.text_structure.sentence_end_ids
        self.other_punctuation_ids = self.text_structure.other_punctuation_ids
        self.num_classes = num_classes
        self.embedding_dim = embedding_dim
        self.units = units
        self.agent_units = agent_units
        self.embedding_dropout = float(embedding_dropout)
        self.output_dropout = float(output_dropout)
        self.skip_cost = float(skip_cost)
        self.rolling_weight = float(rolling_weight)
        self._actor_weight_value = float(actor_weight)
        self.critic_weight = float(critic_weight)
        self._entropy_weight_value = float(entropy_weight)
        self.advantage = advantage
        self.target_loss = target_loss
        self.explore_skip_target = check_target("explore_skip_target", explore_skip_target, 2)
        self.explore_jump_target = check_target("explore_jump_target", explore_jump_target, 4)
        self.seed = seed
        self.seed_generator = keras.random.SeedGenerator(seed)
        self.embedding = keras.layers.Embedding(
            vocabulary_size,
            embedding_dim,
            embeddings_initializer=keras.initializers.RandomUniform(-0.05, 0.05, seed=seed),
            name="embedding",
        )
        self.embedding.trainable = bool(train_embedding)
        self.embedding_dropout_layer = keras.layers.Dropout(self.embedding_dropout, seed=seed, name="embedding_dropout")
        self.cell = StructuralJumpLSTMCell(
            units, agent_units, speed_reading=speed_reading, name="structural_jump_lstm_cell"
        )
        self.rnn = keras.layers.RNN(self.cell, return_sequences=True, return_state=True, name="structural_jump_rnn")
        self.output_dropout_layer = keras.layers.Dropout(self.output_dropout, seed=seed, name="output_dropout")
        self._make_head()
        self.trackers = {name: keras.metrics.Mean(name=name) for name in _METRICS}
        # No weight depends on the input length: built at once, so that
        # every loader (the legacy .h5 one included) finds the weights.
        self.build()

    # ------------------------------------------------------------------ build
    def build(self, input_shape: Any = None) -> None:
        if self.built:
            return
        self.embedding.build((None, None))
        self.rnn.build((None, None, self.embedding_dim + STEP_EXTRA))
        self._build_head()
        # Non-trainable variables, so that callbacks can schedule them
        # without retracing (EntropyWeightDecay, CriticWarmup).
        self._entropy_weight = self.add_weight(
            shape=(),
            name="entropy_weight",
            initializer=keras.initializers.Constant(self._entropy_weight_value),
            trainable=False,
        )
        self._actor_weight = self.add_weight(
            shape=(),
            name="actor_weight",
            initializer=keras.initializers.Constant(self._actor_weight_value),
            trainable=False,
        )
        self.built = True

    def load_own_variables(self, store: Any) -> None:
        # Models saved before `actor_weight` became a variable hold only
        # `entropy_weight`; beta then comes from the config.
        if len(store.keys()) == 1:
            self._entropy_weight.assign(store["0"])
            self._actor_weight.assign(self._actor_weight_value)
            return
        super().load_own_variables(store)

    # ------------------------------------------------------------- controls
    @property
    def speed_reading(self):
        """Whether the agents act (True) or every word is read (False)."""
        return self.cell.speed_reading

    @speed_reading.setter
    def speed_reading(self, value):
        self.cell.speed_reading = value

    @property
    def entropy_weight(self):
        """delta, the weight of the target term (a variable once built)."""
        if self.built:
            return float(ops.convert_to_numpy(self._entropy_weight))
        return self._entropy_weight_value

    @entropy_weight.setter
    def entropy_weight(self, value):
        _check_number("entropy_weight", value, 0.0)
        self._entropy_weight_value = float(value)
        if self.built:
            self._entropy_weight.assign(float(value))

    @property
    def actor_weight(self):
        """beta, the weight of the actor loss (a variable once built)."""
        if self.built:
            return float(ops.convert_to_numpy(self._actor_weight))
        return self._actor_weight_value

    @actor_weight.setter
    def actor_weight(self, value):
        _check_number("actor_weight", value, 0.0)
        self._actor_weight_value = float(value)
        if self.built:
            self._actor_weight.assign(float(value))

    def set_embedding_matrix(self, matrix: Any) -> None:
        """Copies pretrained word vectors (e.g. GloVe) into the embedding."""
        if not self.built:
            self.build()
        shape = tuple(self.embedding.embeddings.shape)
        if tuple(getattr(matrix, "shape", ())) != shape:
            raise ValueError(
                f"The embedding matrix must have shape {shape}. Received: "
                f"{getattr(matrix, 'shape', type(matrix).__name__)}"
            )
        self.embedding.embeddings.assign(ops.cast(matrix, self.embedding.embeddings.dtype))

    # ------------------------------------------------------------------ call
    def _make_head(self) -> None:
        """Creates the layers after the reader (the paper's classifier head); a subclass with another
        head overrides this, `_build_head` and `call`."""
        self.hidden = keras.layers.Dense(self.units, activation="relu", name="hidden")
        self.classifier = keras.layers.Dense(self.num_classes, name="logits")

    def _build_head(self) -> None:
        self.hidden.build((None, self.units))
        self.classifier.build((None, self.units))

    def call(self, token_ids: Any, training: bool | None = False) -> Any:
        trace, (h, _, _), word_count = self.read_words(token_ids, training=training)
        z = self.output_dropout_layer(h, training=training)
        logits = self.classifier(self.hidden(z))
        return {"logits": logits, "trace": trace, "word_count": word_count}

    def read_words(
        self, token_ids: Any, training: bool | None = False, initial_state: Any = None, read_all: bool = False
    ) -> Any:
        """Runs the reader over the word stream of `token_ids`.

        Args:
            token_ids: int tensor `(batch, T)` of raw ids.
            training: sample the actions (Gumbel-max) and apply dropout.
            initial_state: `[h, c, aux]` to start from (another text read
                before this one), or None: the cell's initial state.
            read_all: read every word whatever the agents' logits (and
                `speed_reading`) say: the noise makes READ and NEXT_WORD
                certain.

        Returns:
            `(trace (batch, T, 14), [h, c, aux] after the last word,
            word_count (batch,))`.
        """
        words, offsets, _ = self.text_structure(token_ids)
        word_count = offsets[:, 0, 2]
        length = ops.shape(words)[1]
        # Only as many steps as the longest word stream of the batch where
        # shapes may depend on values (TensorFlow); all steps elsewhere (the
        # steps past a text's words change nothing).
        steps = ops.maximum(ops.max(word_count), 1)
        words = backend.trim_time(words, steps)
        offsets = backend.trim_time(offsets, steps)
        x = self.embedding(words)
        x = self.embedding_dropout_layer(x, training=training)
        noise = None
        if read_all:
            noise = ops.broadcast_to(ops.convert_to_tensor(_READ_NEXT_NOISE, x.dtype), ops.shape(words) + (NUM_NOISE,))
        elif training:
            uniform = keras.random.uniform(
                ops.shape(words) + (NUM_NOISE,),
                minval=1e-7,
                maxval=1.0 - 1e-7,
                seed=self.seed_generator,
                dtype=x.dtype,
            )
            noise = -ops.log(-ops.log(uniform))
        trace, h, c, aux = self.rnn(pack_step_inputs(x, offsets, noise), initial_state=initial_state, training=training)
        return backend.pad_time(trace, length, steps), [h, c, aux], word_count

    def compute_output_spec(self, token_ids: Any, training: bool | None = False) -> Any:
        batch, length = token_ids.shape[0], token_ids.shape[1]
        return {
            "logits": keras.KerasTensor((batch, self.num_classes), dtype=self.compute_dtype),
            "trace": keras.KerasTensor((batch, length, self.cell.output_size), dtype=self.compute_dtype),
            "word_count": keras.KerasTensor((batch,), dtype="int32"),
        }

    # ------------------------------------------------------------------ loss
    def compute_loss(
        self, x: Any = None, y: Any = None, y_pred: Any = None, sample_weight: Any = None, training: bool = True
    ) -> Any:
        parts = structural_jump_losses(
            y_pred["trace"],
            y_pred["logits"],
            y,
            y_pred["word_count"],
            speed_reading=self.cell._speed_reading,
            entropy_weight=self._entropy_weight,
            skip_cost=self.skip_cost,
            rolling_weight=self.rolling_weight,
            actor_weight=self._actor_weight,
            critic_weight=self.critic_weight,
            advantage=self.advantage,
            target_loss=self.target_loss,
            explore_skip_target=self.explore_skip_target,
            explore_jump_target=self.explore_jump_target,
            sample_weight=sample_weight,
        )
        words = ops.maximum(parts["words"], 1.0)
        self.trackers["read_fraction"].update_state(parts["read"] / words, sample_weight=parts["words"])
        self.trackers["skip_fraction"].update_state(
            (parts["visited"] - parts["read"]) / words, sample_weight=parts["words"]
        )
        self.trackers["jump_fraction"].update_state(1.0 - parts["visited"] / words, sample_weight=parts["words"])
        batch = ops.cast(ops.shape(y_pred["logits"])[0], "float32")
        for name in ("accuracy", "reward", "class_loss", "actor_loss", "critic_loss", "entropy_loss"):
            self.trackers[name].update_state(parts[name], sample_weight=batch)
        loss = parts["loss"]
        if self.losses:
            loss = loss + ops.sum(self.losses)
        return loss

    # ---------------------------------------------------------------- config
    def get_config(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "trainable": self.trainable,
            "vocabulary_size": self.vocabulary_size,
            "separator_ids": list(self.separator_ids),
            "sentence_end_ids": list(self.sentence_end_ids),
            "other_punctuation_ids": list(self.other_punctuation_ids),
            "num_classes": self.num_classes,
            "embedding_dim": self.embedding_dim,
            "units": self.units,
            "agent_units": self.agent_units,
            "embedding_dropout": self.embedding_dropout,
            "output_dropout": self.output_dropout,
            "speed_reading": self.speed_reading,
            "skip_cost": self.skip_cost,
            "rolling_weight": self.rolling_weight,
            "actor_weight": self.actor_weight,
            "critic_weight": self.critic_weight,
            "entropy_weight": self.entropy_weight,
            "advantage": self.advantage,
            "target_loss": self.target_loss,
            "explore_skip_target": list(self.explore_skip_target),
            "explore_jump_target": list(self.explore_jump_target),
            "train_embedding": self.embedding.trainable,
            "seed": self.seed,
        }


def _check_int(name, value, minimum):
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ValueError(f"Argument `{name}` must be an integer >= {minimum}. Received: {name}={value!r}")


def _check_number(name, value, minimum):
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= minimum:
        raise ValueError(f"Argument `{name}` must be a number >= {minimum}. Received: {name}={value!r}")
