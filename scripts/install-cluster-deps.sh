#!/usr/bin/env bash
# install-cluster-deps.sh fetches what the Flink and Spark cluster tests run,
# at the versions pinned in scripts/versions.env, into a cache outside the
# repository (RECRAWL_CACHE, default ~/.cache/recrawl):
#
#   flink-FLINK_VERSION/              a Flink distribution (FLINK_HOME): bin/ and
#                                     conf/ from PyPI's apache-flink wheel, lib/
#                                     and bin/bash-java-utils.jar from PyPI's
#                                     apache-flink-libraries sdist
#   spark-SPARK_VERSION/              a Spark distribution (SPARK_HOME): bin/, sbin/
#                                     and jars/ from PyPI's pyspark sdist
#   beam-flink-FLINK_MINOR-job-server-BEAM_JOB_SERVER_VERSION/lib/
#   beam-spark-3-job-server-BEAM_JOB_SERVER_VERSION/lib/
#                                     Beam's job servers: the runner jar
#                                     (org.apache.beam:beam-runners-flink-FLINK_MINOR,
#                                     org.apache.beam:beam-runners-spark-3) with its
#                                     runtime dependencies, from Maven Central
#                                     through mvn dependency:copy-dependencies
#                                     (the shaded *-job-server jars are not served
#                                     by this project's registry; see versions.env)
#
# Each piece is fetched once; a finished piece has a .complete marker. The
# JDK must be there already (java 17: `java -version`; Flink 1.19 and
# Spark 3.5 run on 17, not on 25); its javac and jar, which
# scripts/beam-jobserver.sh uses for scripts/flink-planner, and mvn are
# installed from Debian if missing. Needs pip (python3 -m pip).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
# shellcheck source=versions.env
. "$here/versions.env"
cache="${RECRAWL_CACHE:-$HOME/.cache/recrawl}"
me=install-cluster-deps
die() { echo "$me: $*" >&2; exit 1; }
log() { echo "$me: $*" >&2; }

command -v java >/dev/null || die "no java on PATH: install a JDK 17 (Debian: openjdk-17-jdk-headless)"
jv="$(java -version 2>&1 | awk -F'"' '/version/ { print $2; exit }')"
case "$jv" in
  17|17.*) ;;
  *) die "java is $jv; Flink $FLINK_VERSION and Spark $SPARK_VERSION need Java 17 (set PATH or JAVA_HOME to a JDK 17)" ;;
esac
# javac and jar: scripts/beam-jobserver.sh compiles scripts/flink-planner.
if ! command -v javac >/dev/null || ! command -v jar >/dev/null; then
  log "no javac/jar: installing Debian's openjdk-17-jdk-headless"
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends openjdk-17-jdk-headless >&2 ||
    die "javac is missing and apt-get install openjdk-17-jdk-headless failed"
fi
if ! command -v mvn >/dev/null; then
  log "no mvn: installing Debian's maven"
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends maven >&2 || die "mvn is missing and apt-get install maven failed"
fi
python3 -m pip --version >/dev/null 2>&1 || die "no pip for python3"

mkdir -p "$cache/dl"
dl="$cache/dl"

# pip_fetch SPEC: downloads one PyPI distribution (no dependencies) into dl/.
pip_fetch() {
  log "pip download $1"
  python3 -m pip download --quiet --no-deps --dest "$dl" "$1" >&2 || die "pip download $1 failed"
}

# Flink: apache-flink's wheel carries bin/ and conf/, apache-flink-libraries'
# sdist lib/ (flink-dist, log4j) and bash-java-utils.jar.
flink_home="$cache/flink-$FLINK_VERSION"
if [ ! -e "$flink_home/.complete" ]; then
  pyver="$(python3 -c 'import sys; print(f"{sys.version_info[0]}{sys.version_info[1]}")')"
  ls "$dl"/apache_flink-"$FLINK_VERSION"-*.whl >/dev/null 2>&1 ||
    python3 -m pip download --quiet --no-deps --only-binary=:all: --dest "$dl" "apache-flink==$FLINK_VERSION" >&2 ||
    die "pip download apache-flink==$FLINK_VERSION (a wheel for CPython $pyver) failed"
  [ -e "$dl/apache-flink-libraries-$FLINK_VERSION.tar.gz" ] || pip_fetch "apache-flink-libraries==$FLINK_VERSION"
  tmp="$(mktemp -d "$cache/.flink-XXXXXX")"
  trap 'rm -rf "$tmp"' EXIT
  tar -xzf "$dl/apache-flink-libraries-$FLINK_VERSION.tar.gz" -C "$tmp" \
    "apache-flink-libraries-$FLINK_VERSION/deps/lib" "apache-flink-libraries-$FLINK_VERSION/deps/bin"
  whl="$(ls "$dl"/apache_flink-"$FLINK_VERSION"-*.whl | head -n 1)"
  python3 - "$whl" "$tmp" <<'EOF'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z:
    for n in z.namelist():
        if n.startswith(("pyflink/bin/", "pyflink/conf/")):
            z.extract(n, sys.argv[2])
EOF
  mkdir -p "$tmp/home"
  mv "$tmp/pyflink/bin" "$tmp/pyflink/conf" "$tmp/home/"
  mv "$tmp/apache-flink-libraries-$FLINK_VERSION/deps/lib" "$tmp/home/lib"
  mv "$tmp/apache-flink-libraries-$FLINK_VERSION/deps/bin/bash-java-utils.jar" "$tmp/home/bin/"
  chmod +x "$tmp/home/bin/"*.sh "$tmp/home/bin/flink"
  ls "$tmp/home/lib/flink-dist-$FLINK_VERSION.jar" >/dev/null || die "apache-flink-libraries==$FLINK_VERSION has no flink-dist jar"
  touch "$tmp/home/.complete"
  rm -rf "$flink_home"
  mv "$tmp/home" "$flink_home"
  rm -rf "$tmp"
  trap - EXIT
fi
log "Flink $FLINK_VERSION: $flink_home"

# Spark: pyspark's sdist carries the distribution under deps/.
spark_home="$cache/spark-$SPARK_VERSION"
if [ ! -e "$spark_home/.complete" ]; then
  [ -e "$dl/pyspark-$SPARK_VERSION.tar.gz" ] ||
    python3 -m pip download --quiet --no-deps --no-binary=:all: --dest "$dl" "pyspark==$SPARK_VERSION" >&2 ||
    die "pip download pyspark==$SPARK_VERSION failed"
  tmp="$(mktemp -d "$cache/.spark-XXXXXX")"
  trap 'rm -rf "$tmp"' EXIT
  tar -xzf "$dl/pyspark-$SPARK_VERSION.tar.gz" -C "$tmp" \
    "pyspark-$SPARK_VERSION/deps/bin" "pyspark-$SPARK_VERSION/deps/sbin" "pyspark-$SPARK_VERSION/deps/jars"
  home="$tmp/pyspark-$SPARK_VERSION/deps"
  ls "$home/jars/spark-core_2.12-$SPARK_VERSION.jar" >/dev/null || die "pyspark==$SPARK_VERSION has no spark-core_2.12 jar"
  chmod +x "$home/bin/"* "$home/sbin/"*
  touch "$home/.complete"
  rm -rf "$spark_home"
  mv "$home" "$spark_home"
  rm -rf "$tmp"
  trap - EXIT
fi
log "Spark $SPARK_VERSION: $spark_home"

# job_server NAME ARTIFACT: resolves org.apache.beam:ARTIFACT at
# BEAM_JOB_SERVER_VERSION with its runtime dependencies (and slf4j-simple
# for its log) into cache/NAME/lib.
job_server() {
  local dir="$cache/$1" tmp
  if [ -e "$dir/.complete" ]; then
    log "$2 $BEAM_JOB_SERVER_VERSION: $dir"
    return
  fi
  tmp="$(mktemp -d "$cache/.jobserver-XXXXXX")"
  cat >"$tmp/pom.xml" <<EOF
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>recrawl</groupId>
  <artifactId>$1</artifactId>
  <version>0</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency>
      <groupId>org.apache.beam</groupId>
      <artifactId>$2</artifactId>
      <version>$BEAM_JOB_SERVER_VERSION</version>
    </dependency>
    <dependency>
      <groupId>org.slf4j</groupId>
      <artifactId>slf4j-simple</artifactId>
      <version>$SLF4J_VERSION</version>
    </dependency>
  </dependencies>
</project>
EOF
  log "mvn: org.apache.beam:$2:$BEAM_JOB_SERVER_VERSION and its runtime dependencies"
  if ! (cd "$tmp" && mvn -q -B dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory="$tmp/lib" >&2); then
    rm -rf "$tmp"
    die "mvn could not resolve org.apache.beam:$2:$BEAM_JOB_SERVER_VERSION with its dependencies"
  fi
  touch "$tmp/.complete"
  rm -rf "$dir"
  mv "$tmp" "$dir"
  log "$2 $BEAM_JOB_SERVER_VERSION: $dir"
}
job_server "beam-flink-$FLINK_MINOR-job-server-$BEAM_JOB_SERVER_VERSION" "beam-runners-flink-$FLINK_MINOR"
job_server "beam-spark-3-job-server-$BEAM_JOB_SERVER_VERSION" beam-runners-spark-3
