"""The Spark session the engines, `count --split` and `verify --split` run on, and the jobs of a run's steps.

`spark_session` makes the session once: its master, its configuration (the node partitioning the
back end relies on, `spark.Spark`), its log level. **A quiet start.** The JVM starts with this package's
`log4j2.properties` (nothing of Spark's start-up lines) and its standard error relayed line by line to
ours (`_launch`) without the one notice the JVM prints of its own, `WARNING: Using incubator modules`
(Spark's launcher adds that module, and no option of the JVM silences the notice): a notebook's output
and a command's standard error show what they are about only. **A JVM for two cores.** The driver's JVM (which
runs the tasks in local mode) uses the parallel collector: G1's concurrent threads took a core from the
tasks, and Alg. 1 at 3,000 edges ran 63 s with G1 against 54 s. `DEDALUS2ASP_JAVA_OPTIONS` replaces
that option. `Jobs` counts the Spark jobs of each step of a run with the status tracker.
"""

from __future__ import annotations

import os
import re
import sys
import threading
from pathlib import Path

VERBOSE = ("ALL", "TRACE", "DEBUG", "INFO")
"""Log levels at which the JVM starts with Spark's own logging profile (and its start-up lines)."""


class SparkUnavailable(RuntimeError):
    """Spark cannot start here, and why in words a user can act on (the command line says it, exit 2)."""


REMOTE = ("SPARK_REMOTE", "SPARK_CONNECT_MODE_ENABLED")
"""The environment variables that make pyspark's builder return a Spark Connect session, which has no JVM here."""


def _configuration(master: str | None, log_level: str | None, java_options: str | None) -> tuple[dict, str]:
    """The options the JVM and the SparkContext start with (`spark_session`, `spark_context`), and the log level.

    SparkUnavailable when the environment asks for Spark Connect: the engines drive a classic session's JVM
    (its DataFrames' plans and the SparkContext, through py4j), which a Connect client does not have."""
    remote = [name for name in REMOTE if os.environ.get(name)]
    if remote:
        raise SparkUnavailable(f"{remote[0]} is set, which asks for a Spark Connect session; dedalus2asp's Spark engines "
                               "run on a classic session (they drive its JVM): unset it, and give a cluster with --master "
                               "or $SPARK_MASTER")
    os.environ.setdefault("PYSPARK_PYTHON", _python())
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", _python())
    level = (log_level or "ERROR").upper()
    options = {
        "spark.master": master or os.environ.get("SPARK_MASTER") or "local[*]",
        "spark.app.name": "dedalus2asp",
        "spark.ui.enabled": "false",
        "spark.ui.showConsoleProgress": "false",
        "spark.sql.adaptive.enabled": os.environ.get("DEDALUS2ASP_SPARK_AQE", "false"),
        "spark.sql.caseSensitive": "true",
        "spark.sql.ansi.enabled": "false",  # a cast or a division that fails is null: no value, as in clingo
        "spark.sql.requireAllClusterKeysForCoPartition": "false",  # joins on (node, ...) keep the node partitioning
        "spark.sql.autoBroadcastJoinThreshold": "-1",  # a broadcast is a job of its own: co-partitioned joins need none
        "spark.driver.memory": os.environ.get("DEDALUS2ASP_DRIVER_MEMORY", "4g"),
        "spark.sql.codegen.wholeStage": os.environ.get("DEDALUS2ASP_SPARK_CODEGEN", "false"),
    }
    java = os.environ.get("DEDALUS2ASP_JAVA_OPTIONS", java_options or JAVA_OPTIONS)
    if level not in VERBOSE:
        java += f" -Dlog4j2.configurationFile={LOG4J}"
    options["spark.driver.extraJavaOptions"] = java.strip()
    return options, level


def spark_session(master: str | None = None, partitions: int | None = None, log_level: str | None = None,
                  java_options: str | None = None):
    """The SparkSession (created once): `master`, else $SPARK_MASTER, else local[*]; UI off, case-sensitive columns.

    `log_level` (OFF, FATAL, ERROR, WARN, or `VERBOSE`; default ERROR) is Spark's log level once the
    session is up; before that, the JVM starts with `log4j2.properties` of this
    package (warnings and errors only, and nothing of the usual start-up chatter)
    unless `log_level` asks for INFO or more. `java_options`: the driver JVM's options (default
    `JAVA_OPTIONS`; `PYTHON_TASKS` for a session whose tasks are Python jobs); $DEDALUS2ASP_JAVA_OPTIONS
    replaces either.
    """
    from pyspark.sql import SparkSession

    options, level = _configuration(master, log_level, java_options)
    _launch(options)
    builder = SparkSession.builder
    for key, value in options.items():
        builder = builder.config(key, value)
    session = builder.getOrCreate()
    session.sparkContext.setLogLevel(level)
    session.conf.set("spark.sql.shuffle.partitions", str(partitions or session.sparkContext.defaultParallelism))
    return session


def spark_context(master: str | None = None, log_level: str | None = None, java_options: str | None = None):
    """The SparkContext alone, started as `spark_session` starts it, for work that needs no DataFrame: a batch,
    whose tasks are Python jobs. A SparkSession's SQL state is seconds of the JVM's start that such work never
    uses (on the shared machine: the context 3.5 s, the session on it 5.2 s more, 2.7 s of the JVM's CPU).
    A session made later in the same process is made on this context."""
    from pyspark import SparkContext

    options, level = _configuration(master, log_level, java_options)
    _launch(options)
    context = SparkContext.getOrCreate()
    context.setLogLevel(level)
    return context


JAVA_OPTIONS = "-XX:+UseParallelGC"
"""The driver JVM's options ($DEDALUS2ASP_JAVA_OPTIONS replaces them): the throughput collector, for G1's
concurrent threads compete with the tasks on a machine of two cores (docs/spark.md)."""

PYTHON_TASKS = JAVA_OPTIONS + " -XX:TieredStopAtLevel=1"
"""The driver JVM's options for a session whose tasks are Python jobs (`batch`): the JVM only schedules them,
so the optimising compiler (C2), whose threads take CPU from the jobs while it compiles, buys it nothing; the
first tier (C1) starts faster. A session start and one job of twelve Python tasks cost the JVM 12.7 and 13.4 s
of CPU with both compilers, 8.2 and 7.8 s with C1 only (`benchmarks/sweep.py --jvm-cpu 2`, alternating, on
the shared machine at a load average of 12 to 19). `run` keeps C2: its
steps are the JVM's own work (C1 only: 39 s against 34 s at 3,000 edges)."""

LOG4J = Path(__file__).with_name("log4j2.properties")
"""Spark's logging at start-up: warnings and errors of Spark on standard error, nothing of its INFO lines."""


NOTICES = re.compile(r"WARNING: Using incubator modules: ")
"""Lines the JVM prints at start on its own (not Spark's log), left out of the standard error it shares."""


def _launch(options: dict) -> None:
    """Start the JVM and the SparkContext of `options` (the builder's), unless one runs already, with the
    JVM's standard error relayed to `sys.stderr` without the lines of `NOTICES`.

    The relay reads a pipe of its own from before the JVM starts, so the JVM never waits on a full pipe;
    the daemon thread ends with the JVM (end of file). `builder.getOrCreate` then takes this context."""
    from pyspark import SparkConf, SparkContext
    from pyspark.java_gateway import launch_gateway

    if SparkContext._active_spark_context is not None or SparkContext._gateway is not None:
        return
    conf = SparkConf()
    for key, value in options.items():
        conf.set(key, str(value))
    read, write = os.pipe()
    threading.Thread(target=_relay, args=(read,), name="jvm-stderr", daemon=True).start()
    try:
        gateway = launch_gateway(conf, {"stderr": write})
    except Exception as error:  # noqa: BLE001 - pyspark's error types differ by version; the JVM said why above
        raise SparkUnavailable(f"Spark's JVM did not start ({' '.join(str(error).split())}); Spark needs Java 17 or later: "
                               f"{_java()}") from error
    finally:
        os.close(write)
    SparkContext(conf=conf, gateway=gateway)


def _java() -> str:
    """Which Java Spark's launcher takes ($JAVA_HOME's, else the one on PATH), in words."""
    import shutil

    home = os.environ.get("JAVA_HOME")
    if home:
        found = Path(home, "bin", "java")
        return f"JAVA_HOME is {home}, " + ("whose bin/java is there: is it 17 or later?" if found.exists() else
                                           "which has no bin/java")
    on_path = shutil.which("java")
    return f"java on PATH is {on_path}: is it 17 or later?" if on_path else "no java on PATH and JAVA_HOME is not set"


def _relay(fd: int) -> None:
    """Copy the lines of `fd` to `sys.stderr` as they come, except `NOTICES`."""
    with open(fd, "rb") as lines:
        for line in lines:
            text = line.decode("utf-8", "replace")
            if not NOTICES.match(text):
                sys.stderr.write(text)
                sys.stderr.flush()


def _python() -> str:
    return sys.executable


class Jobs:
    """The Spark jobs of each step of a run, counted with the status tracker (each step is a job group)."""

    def __init__(self, session):
        self.context = session.sparkContext
        self.prefix = f"dedalus2asp-{id(self)}"
        self.per_step: list[int] = []
        self.group: str | None = None

    def step(self, t: int | None) -> None:
        """Close the group of the current step (counting its jobs) and open that of step `t` (None: no more).

        `engine.run` calls it before step 0 and when each step is done. The status tracker learns of a job from
        Spark's listener bus, which runs behind the jobs: a short job that follows one of many tasks (a
        compaction after the job that writes a burst's deltas) could end before its start was heard of, and go
        uncounted; so the bus is drained first (`LiveListenerBus.waitUntilEmpty`, milliseconds)."""
        if self.group is not None:
            self.context._jsc.sc().listenerBus().waitUntilEmpty()
            self.per_step.append(len(self.context.statusTracker().getJobIdsForGroup(self.group)))
        self.group = None if t is None else f"{self.prefix}-{t}"
        if self.group is not None:
            self.context.setJobGroup(self.group, f"step {t}")
        else:
            self.context.setLocalProperty("spark.jobGroup.id", None)
