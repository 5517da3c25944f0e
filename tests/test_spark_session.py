"""How the project starts Spark: quietly (no start-up lines of Spark or of the JVM), its later log relayed."""

import subprocess
import sys

START = """
from dedalus2asp.runs.session import spark_session
session = spark_session("local[1]")
assert session.range(3).count() == 3
session.sparkContext._jvm.java.lang.System.err.println("a line of the JVM after the start")
session.stop()
"""


def test_spark_starts_without_start_up_lines_and_relays_the_jvm_standard_error():
    done = subprocess.run([sys.executable, "-c", START], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "a line of the JVM after the start" in done.stderr  # the relay passes the JVM's standard error on
    for line in ("Using incubator modules", "Setting default log level", "To adjust logging level"):
        assert line not in done.stderr, done.stderr
    assert done.stdout == ""


ENGINE = [sys.executable, "-m", "dedalus2asp", "maintain", "examples/psn2010/reachable.ddlog", "--input",
          "examples/psn2010/reachable.facts", "--updates",
          "examples/psn2010/reachable.updates", "--engine", "spark"]


def _without_spark(**environment):
    import os
    from pathlib import Path

    env = {k: v for k, v in os.environ.items() if k not in ("SPARK_REMOTE", "SPARK_CONNECT_MODE_ENABLED")}
    return subprocess.run(ENGINE, capture_output=True, text=True, timeout=300, env={**env, **environment},
                          cwd=Path(__file__).resolve().parent.parent)


def test_a_java_that_is_not_there_is_said_with_what_to_fix():
    """No traceback and no "internal error" when the JVM cannot start: exit 2, and which Java was tried."""
    done = _without_spark(JAVA_HOME="/nonexistent-java-home")
    assert done.returncode == 2, done.stderr
    assert "<environment>: error: Spark's JVM did not start" in done.stderr
    assert "Java 17 or later: JAVA_HOME is /nonexistent-java-home, which has no bin/java" in done.stderr
    assert "Traceback" not in done.stderr and "internal error" not in done.stderr


def test_spark_connect_in_the_environment_is_refused_before_anything_starts():
    done = _without_spark(SPARK_REMOTE="sc://localhost:15002")
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("<environment>: error: SPARK_REMOTE is set, which asks for a Spark Connect session")
