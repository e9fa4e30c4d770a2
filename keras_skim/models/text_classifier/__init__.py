"""The text classifier (embedding -> one recurrent layer, or a stack -> logits)
that `keras-skim train --cell` builds, trains and exports for the kinds of
the family (`keras_skim.model_kinds`): its builder, its trainer, its exporter
and its command options. It is the task the skim cells and the baselines
share, as keras-hub's classifiers are tasks over a backbone; it reaches the
cells only through the table (`ModelKind.layer`, `skim_gate()`)."""
