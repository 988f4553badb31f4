#!/bin/bash
# usage: threadcpu.sh PID OUT  -- every 30 s, per thread group: cumulative utime+stime ticks
pid=$1; out=$2
while kill -0 $pid 2>/dev/null; do
  ts=$(date +%s)
  for t in /proc/$pid/task/*; do
    c=$(cat $t/comm 2>/dev/null) || continue
    s=$(cat $t/stat 2>/dev/null) || continue
    s=${s##*) }; set -- $s
    echo "$ts|$c|$((${12}+${13}))"
  done >> $out
  sleep 30
done
