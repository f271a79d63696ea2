#!/bin/bash
# Tune every parametrised built-in strategy in self-play at 2, 4 and 6 players (win rate in full
# games, 1,000,000 rounds each, seed 1), then replicate every pick that the final check separated
# from the defaults with an independent `compare` (20,000 games, seed 2).
# About 10 minutes on 2 cores. Usage: benchmarks/tune_builtins.sh OUTDIR
set -euo pipefail
out=${1:?usage: $0 OUTDIR}
mkdir -p "$out"
for gs in lama:threshold lama:smart party:threshold party:chain kadabra:threshold kadabra:showman \
          dice:threshold dice:keep_llama dice:solo_optimal; do
  g=${gs%%:*}; s=${gs##*:}
  for p in 2 4 6; do
    f="$out/${g}_${s}_${p}"
    llamasim tune -g "$g" --strategy "$s" -p "$p" --vs self --budget 1000000 --seed 1 -q \
      --format json --plot "$f.png" --force > "$f.json"
    read -r verdict pick < <(python -c "import json,sys; d=json.load(open(sys.argv[1]))['summary']; print(d['verdict'].replace(' ', '_'), d['pick'])" "$f.json")
    if [ "$verdict" = better ] || [ "$verdict" = worse ]; then
      llamasim compare -g "$g" -p "$p" "$pick" "$s" --games 20000 --seed 2 -q --format json --view paired \
        > "$out/rep_${g}_${s}_${p}.json"
    fi
  done
done
