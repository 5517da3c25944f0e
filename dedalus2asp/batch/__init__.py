"""Batches: sweeps of many analysis jobs on Spark, and summaries of result directories.

A batch is read from a manifest (`manifest`: jobs and grids of jobs, each
job with its `Bounds`), executed one Spark task per job into Parquet parts
that make a killed batch resumable (`execute`), and summarised by
`report DIR` (`report`).
"""

from .execute import GRACE, Interrupted, done, execute_bounded, execute_job, precheck, run_and_write, run_batch
from .manifest import DEFAULTS, DIALECTS, KEYS, TASKS, Job, read_manifest
from .report import summarize

__all__ = [
    "DEFAULTS", "DIALECTS", "GRACE", "KEYS", "TASKS", "Interrupted", "Job", "done", "precheck", "execute_bounded", "execute_job",
    "read_manifest", "run_and_write", "run_batch", "summarize",
]
