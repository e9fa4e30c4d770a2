"""The bookkeeping state a skim cell carries next to its RNN state: the
index of each entry. Its own module so that the per-step cell
(`skim_cell_base`) and the fused training loop (`skim_training_loop`) share
it without importing each other.

Keras reverts the whole state at padded steps, so after the loop each entry
sums over the real tokens only.
"""

STAT_TOKENS = 0  # real tokens so far
STAT_SKIMS = 1  # real tokens skimmed so far
STAT_SKIM_LOSS = 2  # sum of -log p_skim over the real tokens so far (keeps its gradient)
STAT_PENDING = 3  # this step's decision: 1 = skimmed
NUM_STATS = 4
