"""What a Structural-Jump-LSTM export's `metadata.json` holds beyond a
skim model's: the FLOPs of its pieces and how Flop-r follows from the
export's outputs, its agent settings, punctuation and four per-token codes,
and the `visited_count` output (asked through `structural_jump_exporter`)."""

from keras_skim import contracts
from keras_skim.contracts import FlopCounts, TensorInfo

# Where the Flop-r rule's formula lives, as the first exports wrote it: `metadata.json` keeps this text so that
# exports stay byte-identical across the move of the family into `keras_skim/models/structural_jump/` (issue 29);
# the formula is `structural_jump_flops.structural_jump_flop_report` in this folder.
FLOP_RULE_SOURCE = "keras_skim.analysis.structural_jump_flops"


def structural_jump_flops_section(plan):
    """FLOPs of a Structural-Jump-LSTM's pieces (keras_skim.models.structural_jump.structural_jump_flops)
    and how Flop-r follows from the export's outputs."""
    from keras_skim.models.structural_jump.structural_jump_flops import structural_jump_step_flops

    emitter = plan.emitter
    step = structural_jump_step_flops(emitter.units, plan.embedding_dim, emitter.agent_units)
    return FlopCounts(
        kind=emitter.model_kind,
        baseline_flops_per_token=step["baseline_lstm"],
        skip_agent_flops=step["skip_agent"],
        lstm_flops=step["lstm"],
        jump_agent_flops=step["jump_agent"],
        read_step_flops=step["read_step"],
        flop_r_rule=(
            "per text: words = tokens whose read_mask is not 3; FLOPs = visited_count x "
            "skip_agent_flops + read_count x read_step_flops; full read = words x "
            "baseline_flops_per_token (a vanilla LSTM of the same size); Flop-r = sum of full-read "
            f"FLOPs / sum of FLOPs over a corpus ({FLOP_RULE_SOURCE})"
        ),
    )


def add_structural_jump_entries(plan, metadata):
    """What a Structural-Jump-LSTM export adds to or changes in the metadata."""
    emitter = plan.emitter
    codes = {str(code): name for code, name in contracts.TOKEN_CODES.items()}
    codes[str(contracts.TOKEN_SKIMMED)] = "skipped"
    codes[str(contracts.TOKEN_NOT_A_WORD)] = "not a word (punctuation or padding)"
    metadata.agent_units = emitter.agent_units
    metadata.speed_reading = emitter.speed_reading
    metadata.punctuation = dict(plan.structure)
    metadata.token_codes = codes
    metadata.inputs[contracts.INPUT_TOKEN_IDS].note = (
        "raw tokenizer ids, punctuation included (it steers the jumps and is never read); id 0 is "
        f"padding (ignored); ids must be < vocabulary_size ({plan.vocabulary_size}); texts longer "
        "than max_length are cut there, as in training"
    )
    metadata.outputs[contracts.OUTPUT_READ_MASK].note = (
        "per token: 1 = read, 0 = skipped by the skip agent, 2 = jumped over (never touched), "
        "3 = not a word (punctuation or padding)"
    )
    metadata.outputs[contracts.OUTPUT_READ_COUNT].note = "words read (LSTM steps)"
    metadata.outputs[contracts.OUTPUT_VISITED_COUNT] = TensorInfo(
        [1], "int32", note="words not jumped over (read or skipped)"
    )
    return metadata
