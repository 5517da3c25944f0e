"""The options the commands share, declared once, and the values made from them.

--horizon, --semantics, --encoding and --max-delay become the question's
`Bounds` once (`bounds`), which every phase then receives whole; PROG and
--input become the loaded or prepared program (`load`, `prepare`), their
diagnostics reported and the command ended with exit 2; --at and --fact are
read with the input parser.
"""

from __future__ import annotations

import functools
import inspect
from enum import Enum
from pathlib import Path
from typing import Optional

import typer

from .. import pipeline
from ..bounds import MAX_STEP, Bounds, Encoding, Network, Semantics
from ..lang import parser
from ..lang.diagnostics import Diagnostic, DiagnosticError
from .console import fail, usage, warn


class Dialect(str, Enum):
    """The notation of PROG: see `parser.parse_source` and `located`."""

    AUTO = "auto"
    TRANSPARENT = "transparent"
    LOCATED = "located"
    MOLLY = "molly"


ENGINES = ("local", "spark")

Prog = typer.Argument(..., help="Dedalus program (.ded)", show_default=False)
InputOpt = typer.Option(
    None, "--input", "-i", show_default=False,
    help="Input instance H (.facts or .json); not needed when PROG (located or Molly) carries its own facts",
)
HorizonOpt = typer.Option(..., "--horizon", "-T", min=0, max=MAX_STEP, help="Every node performs local steps 0..T", show_default=False)
SemanticsOpt = typer.Option(Semantics.CAUSAL_FINITE, "--semantics", "-s", help="choice = pure_ch, causal = pure_ca, causal-finite = pure")
EncodingOpt = typer.Option(Encoding.FAST, "--encoding", "-e", help="fast: choice rules and #edge; paper: rule by rule as in tplp2016 (same models)")
DelayOpt = typer.Option(None, "--max-delay", "-D", min=0, max=MAX_STEP, help="A message sent at step s arrives by step s+D (default: no bound)")
DeliveryOpt = typer.Option(
    "async", "--delivery", help="async: any delay (tplp2016; --max-delay bounds it); sync: Molly's rounds, a message arrives at the next step"
)
LossOpt = typer.Option(
    None, "--loss-until", min=0, max=MAX_STEP, show_default=False,
    help="E: a message to another node sent before step E may be lost (docs/faults.md)",
)
EffOpt = typer.Option(None, "--eff", min=0, max=MAX_STEP, show_default=False, help="Molly's end of finite failures F: --loss-until F-1")
CrashesOpt = typer.Option(0, "--crashes", min=0, max=MAX_STEP, help="Up to C nodes crash, each at a step it chooses (docs/faults.md)")
NodesOpt = typer.Option(
    None, "--nodes", show_default=False, help="a,b,c: nodes of the network besides those of the input (Molly's -N)"
)
NETWORK = None
"""The default of a command's `network` parameter: `network_options` puts the network's options in its place."""
TimeoutOpt = typer.Option(None, "--timeout", min=0.0, help="Stop solving after this many seconds")
JsonOpt = typer.Option(False, "--json", help="Print JSON instead of text")
MasterOpt = typer.Option(None, "--master", help="Spark master URL (default: $SPARK_MASTER, else local[*])")
ModelsOpt = typer.Option(10, "--models", "-n", min=0, help="How many models (0: all)")
ModelOpt = typer.Option(1, "--model", "-k", min=1, help="Which model, 1 for the first (the order of `models`)")
DialectOpt = typer.Option(
    Dialect.AUTO, "--dialect", help="transparent (tplp2016), located (tr2009, '#' location specifiers) or molly; auto detects it"
)


def bounds(
    horizon: int, semantics: Semantics = Semantics.CAUSAL_FINITE, encoding: Encoding = Encoding.FAST,
    network: Network | int | None = None,
) -> Bounds:
    """The bounds of the command's question, made once from its options (`network`: the command's
    `Network`, or a delay bound alone); a bad value exits 2."""
    try:
        return Bounds(horizon, semantics, encoding, network if isinstance(network, Network) else Network(max_delay=network))
    except ValueError as error:
        usage("bad-option", str(error))


def network(
    max_delay: int | None = None, delivery: str = "async", loss_until: int | None = None, eff: int | None = None,
    crashes: int = 0, nodes: str | None = None,
) -> Network:
    """--max-delay, --delivery, --loss-until or --eff (Molly's F is E = F - 1: Molly counts time from 1), --crashes
    and --nodes as one `Network`; a bad value exits 2."""
    if eff is not None and loss_until is not None:
        usage("bad-option", "--eff F is --loss-until F-1: give one of them, not both", "--eff")
    if eff is not None:
        loss_until = max(eff - 1, 0)
    names = () if nodes is None else tuple(name.strip() for name in nodes.split(","))
    try:
        return Network(delivery, max_delay, loss_until, crashes, names)
    except ValueError as error:
        usage("bad-option", str(error))


def network_options(command):
    """Give `command` the options of the network in place of its parameter `network = NETWORK`:
    --max-delay, --delivery, --loss-until, --eff, --crashes, --nodes. It receives one `Network`
    (`network`), declared here once for every command that solves or explores."""
    options = [
        ("max_delay", Optional[int], DelayOpt), ("delivery", str, DeliveryOpt), ("loss_until", Optional[int], LossOpt),
        ("eff", Optional[int], EffOpt), ("crashes", int, CrashesOpt), ("nodes", Optional[str], NodesOpt),
    ]
    signature = inspect.signature(command)
    parameters = []
    for parameter in signature.parameters.values():
        if parameter.name == "network":
            parameters += [inspect.Parameter(name, parameter.kind, default=default, annotation=kind) for name, kind, default in options]
        else:
            parameters.append(parameter)

    @functools.wraps(command)
    def with_network(*args, **kwargs):
        values = {name: kwargs.pop(name) for name, _, _ in options}
        return command(*args, network=network(**values), **kwargs)

    with_network.__signature__ = signature.replace(parameters=parameters)
    annotations = {k: v for k, v in command.__annotations__.items() if k != "network"}
    with_network.__annotations__ = annotations | {name: kind for name, kind, _ in options}
    return with_network


def check_engine(name: str) -> str:
    """--engine: local or spark."""
    if name not in ENGINES:
        usage("bad-option", f"--engine must be one of {', '.join(ENGINES)}, not {name!r}")
    return name


def load(program: Path, input_: Path | None = None, dialect: Dialect = Dialect.AUTO):
    """PROG and --input parsed and checked (`pipeline.load`), H required, the warnings printed."""
    try:
        prog, instance, warnings = pipeline.load(program, input_, dialect.value)
    except DiagnosticError as error:
        fail(error)
    need_instance(program, instance)
    warn(warnings)
    return prog, instance


def prepare(program: Path, input_: Path | None, bounds_: Bounds, dialect=Dialect.AUTO, needs_input=True) -> pipeline.Prepared:
    """PROG and --input parsed, checked and compiled within the bounds (`pipeline.prepare`)."""
    try:
        prepared = pipeline.prepare(program, input_, bounds_, dialect.value)
    except DiagnosticError as error:
        fail(error)
    if needs_input:
        need_instance(program, prepared.instance)
    warn(prepared.warnings)
    return prepared


def need_instance(program: Path, instance) -> None:
    """Solving needs H: from --input, or from the facts a located or Molly program carries."""
    if instance is None:
        fail(DiagnosticError([Diagnostic(
            "missing-input", "no input instance: give --input F (only a located or Molly program can carry its own facts)",
            filename=str(program),
        )]))


def point(at: str) -> tuple:
    """--at NODE:STEP as (node symbol, step)."""
    node, sep, step = at.rpartition(":")
    if not sep or not node or not step.strip().isdigit():
        usage("bad-option", f"--at must be NODE:STEP with a step 0, 1, 2, ... (e.g. a:3), not {at!r}", "--at")
    try:
        instance = parser.parse_facts(f"{node} {{ }}", filename="--at")
    except DiagnosticError as error:
        fail(error)
    return instance.network[0], int(step)


def fact(text: str) -> tuple:
    """--fact R(a1, ..., ak) as (R, (a1..ak))."""
    try:
        facts = next(iter(parser.parse_facts(f"{text.strip().rstrip('.')}.\nx {{ }}", filename="--fact").facts.values()))
    except DiagnosticError as error:
        fail(error)
    if len(facts) != 1:
        usage("bad-option", f"--fact must be one fact such as 'covered()' or 'marked(v1)', not {text!r}", "--fact")
    return facts[0].predicate, facts[0].args
