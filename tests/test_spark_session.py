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
