#!/bin/bash
# cacheab.sh : 1M B5 drains alternating cut.row-cache default (64 MiB) / 256 MiB
for i in 1 2; do
  for v in c64 c256; do
    if [ $v = c256 ]; then S="--set cut.row-cache=256mb"; else S=""; fi
    r=$(BUILD=m58 JOPTS="" bash /tmp/b48/d1m.sh cache-$v-$i $S)
    echo "$v $i $r"
  done
done
