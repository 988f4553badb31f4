#!/bin/bash
# mkjars.sh NAME REV : package REV in its own clone; /tmp/b48/NAME/bench.cp = tests' test classpath
set -e
N=$1; R=$2; d=/tmp/b48/$N; rm -rf $d; mkdir -p $d
git clone -q /work/main $d/src && cd $d/src && git checkout -q $R
mvn -o -q package dependency:build-classpath -DskipTests -Dmdep.includeScope=test -Dmdep.outputFile=$d/cp.txt -pl tests -am > $d/build.log 2>&1
# tests' classpath lists the sibling modules' jars from ~/.m2; point them at this clone's jars
cp_=$(cat $d/cp.txt)
for m in operators sinks app; do
  j=$(ls $d/src/$m/target/*.jar | grep -v -E 'sources|tests' | head -1)
  cp_=$(echo "$cp_" | tr ':' '\n' | sed -E "s#^.*/oml-lakewriter-$m/[^/]+/oml-lakewriter-$m-[^/]+\.jar\$#$j#" | paste -sd:)
done
echo "$d/src/tests/target/test-classes:$d/src/tests/target/classes:$cp_" > $d/bench.cp
echo built $N at $(git rev-parse --short HEAD)
