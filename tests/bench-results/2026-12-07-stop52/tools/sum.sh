#!/bin/bash
# sum.sh RUN... : rows/s, JVM CPU/M, jit, writer, w/o jit+gc, silver/lineage bytes tenant-0
for r in "$@"; do
  m=$(ls /tmp/b49/runs/$r/*.md 2>/dev/null | head -1); [ -z "$m" ] && { echo "$r: no report"; continue; }
  rate=$(grep '^| B5 | full' $m | awk -F'|' '{print $4, $8}')
  thr=$(grep -A6 'JVM CPU by thread' $m | grep '^| B5' | awk -F'|' '{print "jit",$3,"gc",$4,"writer",$7,"woJG",$10}')
  sil=$(grep 'tenant-0/silver/memories' $m | awk -F'|' '{print $4}')
  lin=$(grep 'tenant-0/gold/lineage' $m | awk -F'|' '{print $4}')
  echo "$r: rows/s,cpu $rate | $thr | silver0 $sil lineage0 $lin | $(cat /tmp/b49/runs/$r/lake-size.txt | awk '{print $1}')"
done
