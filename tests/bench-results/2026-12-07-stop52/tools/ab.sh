#!/bin/bash
# ab51.sh A B N : alternate 1M B5 runs of builds A and B, N each
A=$1; B=$2; N=$3
for i in $(seq 1 $N); do
  for b in $A $B; do
    echo "== $b-$i $(date +%T)"; BUILD=$b bash /tmp/b49/d1m.sh $b-$i
  done
done
echo ALLDONE
