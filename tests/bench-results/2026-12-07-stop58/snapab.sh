#!/bin/bash
# snapab.sh : 1M B5 drains alternating cut.snapshot-phase-rows default (100,000) / 35,000
for i in 1 2; do
  for v in s100k s35k; do
    if [ $v = s35k ]; then S="--set cut.snapshot-phase-rows=35000"; else S=""; fi
    r=$(BUILD=m58 JOPTS="" bash /tmp/b48/d1m.sh snap-$v-$i $S)
    echo "$v $i $r"
  done
done
