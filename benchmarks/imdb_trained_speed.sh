#!/usr/bin/env bash
# Issue-3 target: a Skim-LSTM d=100, d'=10 trained on IMDB, exported, run at
# its own skim rate (batch 1, one thread, LiteRT) against the LSTM of the
# same d trained and exported the same way. Both models come from
# `keras-skim train` (IMDB, 6,000 training reviews, 200 tokens, 4 epochs),
# as the lines below say. Reports land in benchmarks/results/imdb_trained_speed/.
set -euo pipefail
work=${WORK:-/tmp/imdb_trained_speed}
results=$(cd "$(dirname "$0")" && pwd)/results/imdb_trained_speed
mkdir -p "$work"
cd "$work"
train="keras-skim train --data imdb --limit 6000 --max-length 200 --epochs 4 --quiet"
[ -d skim_lstm ] || $train --cell skim-lstm -d 100 --small-units 10 --gamma 0.02 -o skim_lstm
[ -d lstm ] || $train --cell lstm -d 100 -o lstm
keras-skim export skim_lstm -o skim_custom --backend custom --force
keras-skim export skim_lstm -o skim_builtin --backend builtin --force
keras-skim export lstm -o lstm_builtin --force
bench="keras-skim bench --data imdb --samples 100 --repeats 5 --thresholds 0,0.5 --force"
$bench skim_custom --baseline lstm_builtin -o "$results/custom_vs_lstm"
$bench skim_builtin --baseline lstm_builtin -o "$results/builtin_vs_lstm"
cp skim_lstm/train_config.json "$results/skim_lstm_train_config.json"
cp lstm/train_config.json "$results/lstm_train_config.json"
