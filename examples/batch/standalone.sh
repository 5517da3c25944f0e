#!/usr/bin/env bash
# A Spark standalone cluster on this machine - one master, one worker - and a batch run against it.
#
#   examples/batch/standalone.sh MANIFEST OUT [CORES]      # e.g. examples/batch/sweep.toml sweep 2
#
# The master and the worker are the daemons of the Spark that PySpark ships (no separate Spark
# install): started with its sbin/spark-daemon.sh, their pid files, logs and work directory in a
# temporary directory, and stopped when the script ends, whatever way it ends (the EXIT trap; INT
# and TERM end the script through it). The batch is `dedalus2asp batch MANIFEST --out OUT --master
# spark://127.0.0.1:PORT`; the script exits with its status. On a real cluster the same command
# runs with the master's URL: see docs/spark.md, "On a cluster".
#
# Environment: PYTHON (the interpreter with dedalus2asp, default python3); SPARK_HOME (default
# PySpark's own); the rest of the arguments after CORES go to `batch` (--quiet, --retry-failed).
set -euo pipefail

if [ $# -lt 2 ]; then
    echo "usage: $0 MANIFEST OUT [CORES] [batch options...]" >&2
    exit 2
fi
manifest=$1
out=$2
cores=${3:-2}
shift $(( $# < 3 ? $# : 3 ))
python=${PYTHON:-python3}
SPARK_HOME=${SPARK_HOME:-$("$python" -c 'import os, pyspark; print(os.path.dirname(pyspark.__file__))')}
state=$(mktemp -d "${TMPDIR:-/tmp}/dedalus2asp-standalone.XXXXXX")
export SPARK_HOME SPARK_PID_DIR="$state" SPARK_LOG_DIR="$state/logs" SPARK_WORKER_DIR="$state/work"
export SPARK_IDENT_STRING="dedalus2asp-$$" SPARK_LOCAL_IP=127.0.0.1
host=127.0.0.1
port=$("$python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
daemon="$SPARK_HOME/sbin/spark-daemon.sh"
master_class=org.apache.spark.deploy.master.Master
worker_class=org.apache.spark.deploy.worker.Worker

stop() {
    "$daemon" stop "$worker_class" 1 >/dev/null 2>&1 || true
    "$daemon" stop "$master_class" 1 >/dev/null 2>&1 || true
    rm -rf "$state"
}
trap stop EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

"$daemon" start "$master_class" 1 --host "$host" --port "$port" --webui-port 0 >/dev/null
"$daemon" start "$worker_class" 1 --host "$host" --webui-port 0 --cores "$cores" --memory 2g \
    "spark://$host:$port" >/dev/null

# The worker has registered when the master's log says so (a minute at most).
for _ in $(seq 600); do
    if grep -q "Registering worker" "$SPARK_LOG_DIR"/*Master*.out 2>/dev/null; then
        break
    fi
    sleep 0.1
done
if ! grep -q "Registering worker" "$SPARK_LOG_DIR"/*Master*.out 2>/dev/null; then
    echo "standalone.sh: the worker did not register with the master within a minute; logs:" >&2
    tail -n 20 "$SPARK_LOG_DIR"/*.out >&2 || true
    exit 1
fi
echo "standalone.sh: master spark://$host:$port, one worker with $cores core(s)" >&2

status=0
"$python" -m dedalus2asp batch "$manifest" --out "$out" --master "spark://$host:$port" "$@" || status=$?
exit "$status"
