"""The text classifier (embedding -> one recurrent layer, or a stack -> logits)
that `keras-skim train --cell lstm|gru|skim-lstm|skim-gru` builds, trains and
exports: its builder, its trainer, its exporter and its command options. It
is the task the Skim-RNN cells and the baselines share, as keras-hub's
classifiers are tasks over a backbone."""
