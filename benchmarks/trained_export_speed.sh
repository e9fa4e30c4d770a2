#!/usr/bin/env bash
# Trains the Rotten Tomatoes and IMDB Skim-LSTMs that trained_export_speed.py
# benchmarks (d=100, d'=10, gamma 0.02; IMDB on 6,000 reviews cut at 200
# tokens), then runs it. About an hour on 2 cores; the models go to
# ${KERAS_SKIM_BENCH_MODELS:-benchmarks/build}.
set -euo pipefail
cd "$(dirname "$0")/.."
models="${KERAS_SKIM_BENCH_MODELS:-benchmarks/build}"
keras-skim train --data rotten_tomatoes --cell skim-lstm -d 100 --small-units 10 --gamma 0.02 \
  --epochs 6 --quiet -o "$models/rt_skim" --force
keras-skim train --data imdb --cell skim-lstm -d 100 --small-units 10 --gamma 0.02 \
  --epochs 4 --limit 6000 --max-length 200 --quiet -o "$models/imdb_skim" --force
python benchmarks/trained_export_speed.py --model rotten_tomatoes="$models/rt_skim" \
  --model imdb="$models/imdb_skim" --cpu 1
