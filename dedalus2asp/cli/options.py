"""The options the commands share, declared once, and the values made from them.

--horizon, --semantics, --encoding and --max-delay become the question's
`Bounds` once (`bounds`), which every phase then receives whole; --eventual,
in place of --horizon or --eot, asks for every horizon at once (`program_options`
checks that only one of them is given, `eventual_bounds` makes the eventual bounds); PROG and
--input become the loaded or prepared program (`load`, `prepare`), their
diagnostics reported and the command ended with exit 2; --at and --fact are
read with the input parser.
"""

from __future__ import annotations

import functools
import inspect
import re
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Optional

import typer

from .. import pipeline
from ..asp import budget
from ..bounds import MAX_STEP, Bounds, Encoding, Mode, Network, NodeNameError, Semantics
from ..lang import analysis, parser
from ..lang.diagnostics import Diagnostic, DiagnosticError, Severity
from .console import fail, usage, warn


class Dialect(str, Enum):
    """The notation of PROG: see `parser.parse_source` and `located`."""

    AUTO = "auto"
    TRANSPARENT = "transparent"
    LOCATED = "located"
    MOLLY = "molly"


ENGINES = ("local", "spark")

Prog = typer.Argument(
    ..., help="Dedalus program (.ded); several files are read as one program (a Molly protocol and its invariants)",
    show_default=False,
)
InputOpt = typer.Option(
    None, "--input", "-i", show_default=False,
    help="Input instance H (.facts or .json); not needed when PROG (located or Molly) carries its own facts",
)
HorizonOpt = typer.Option(..., "--horizon", "-T", min=0, max=MAX_STEP, help="Every node performs local steps 0..T", show_default=False)
EotOpt = typer.Option(
    None, "--eot", min=1, max=MAX_STEP + 1, show_default=False,
    help="Molly's end of time N, instead of --horizon: Molly counts time from 1, so it is --horizon N-1",
)
EventualOpt = typer.Option(
    False, "--eventual",
    help="Instead of --horizon/--eot: answer for the infinite runs, every horizon at once (lasso models and the ultimate "
    "facts, jcss2014 §2.5.5), with the completeness threshold K and whether the answer is exact; needs --delivery sync or "
    "--max-delay D (docs/semantics.md)",
)
"""--eventual, one option for every command that answers for every horizon (cron, verify, models, count): a command
with a parameter whose default is `EventualOpt` and a parameter `horizon` gets --horizon/--eot made optional, and exactly one
of --horizon, --eot and --eventual required (`program_options`); in eventual mode it receives `horizon = None`."""
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
OmissionOpt = typer.Option(
    None, "--omission", show_default=False,
    help="message: an omission loses one message; channel: every message from x to y sent at one step (Molly's; the default under sync)",
)
CrashTimesOpt = typer.Option(
    None, "--crash-times", show_default=False,
    help="any: a node may crash at any step; after-send: only before the last step, once it has sent to another node (Molly's; the default under sync)",
)
CrashModelOpt = typer.Option(
    "clock", "--crash-model",
    help="clock: a crashed node keeps its state and clock, its messages to others are lost (Molly's); fail-stop: it does nothing more",
)
NodesOpt = typer.Option(
    None, "--nodes", show_default=False, help="a,b,c: nodes of the network besides those of the input (Molly's -N)"
)
NETWORK = None
"""The default of a command's `network` parameter: `network_options` puts the network's options in its place."""
MAX_TIMEOUT = 1_000_000
"""The longest --timeout, in seconds (11 days): a wait's deadline is a C int of milliseconds."""
TimeoutOpt = typer.Option(
    None, "--timeout", min=0.0, max=MAX_TIMEOUT, help="Stop after this many seconds, grounding included (exit 3)", show_default=False
)
JsonOpt = typer.Option(False, "--json", help="Print JSON instead of text")
MasterOpt = typer.Option(None, "--master", help="Spark master URL (default: $SPARK_MASTER, else local[*])")
SplitEngineOpt = typer.Option("local", "--engine", help="Where the --split parts run: local (in turn) or spark (executors)")
MAX_MODELS = 2**31 - 1
"""The most models a command asks clingo for: its number of models is a C int."""
ModelsOpt = typer.Option(10, "--models", "-n", min=0, max=MAX_MODELS, help="How many models (0: all)")
ModelOpt = typer.Option(1, "--model", "-k", min=1, max=MAX_MODELS, help="Which model, 1 for the first (the order of `models`)")
MaxGroundOpt = typer.Option(
    budget.DEFAULT_MAX_GROUND, "--max-ground", min=0, max=2**63 - 1,
    help="Refuse a question whose ground program is estimated above N rule instances (0: no limit)",
)
MaxMemoryOpt = typer.Option(
    None, "--max-memory", show_default=False,
    help="Stop the solver when it needs more memory than this, e.g. 2G or 500M (exit 3)",
)
LIMITS = None
"""The default of a command's `limits` parameter: `limit_options` puts --max-ground and --max-memory in its place."""
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
    crashes: int = 0, nodes: str | None = None, omission: str | None = None, crash_times: str | None = None,
    crash_model: str = "clock",
) -> Network:
    """--max-delay, --delivery, --loss-until or --eff (Molly's F is E = F - 1: Molly counts time from 1), --crashes
    and --nodes as one `Network`; a bad value exits 2."""
    if eff is not None and loss_until is not None:
        usage("bad-option", "--eff F is --loss-until F-1: give one of them, not both", "--eff")
    if eff is not None:
        loss_until = max(eff - 1, 0)
    names = () if nodes is None else tuple(name.strip() for name in nodes.split(","))
    try:
        return Network(delivery, max_delay, loss_until, crashes, names, omission, crash_times, crash_model)
    except ValueError as error:
        usage("bad-option", str(error))


def network_options(command):
    """Give `command` the options of the network in place of its parameter `network = NETWORK`:
    --max-delay, --delivery, --loss-until, --eff, --crashes, --nodes, --omission, --crash-times,
    --crash-model. It receives one `Network`
    (`network`), declared here once for every command that solves or explores."""
    options = [
        ("max_delay", Optional[int], DelayOpt), ("delivery", str, DeliveryOpt), ("loss_until", Optional[int], LossOpt),
        ("eff", Optional[int], EffOpt), ("crashes", int, CrashesOpt), ("nodes", Optional[str], NodesOpt),
        ("omission", Optional[str], OmissionOpt), ("crash_times", Optional[str], CrashTimesOpt),
        ("crash_model", str, CrashModelOpt),
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


class ProgramFiles(type(Path())):
    """PROG as the commands receive it: the path of the first program file (which names the program in
    messages and outputs), carrying every file given (`files`), which `pipeline.load` reads as one program."""

    files: tuple[Path, ...]


def program_files(paths: list[Path]) -> ProgramFiles:
    """The PROG arguments as one `ProgramFiles`."""
    first = ProgramFiles(paths[0])
    first.files = tuple(paths)
    return first


def horizon_of(horizon: int | None, eot: int | None, required: bool, eventual: bool | None = None) -> int | None:
    """--horizon T, or Molly's --eot N (T = N - 1: Molly counts time from 1); both, or neither when one is
    `required`, exit 2. `eventual`: the value of --eventual for a command that has it (None: it has not), which
    excludes the horizon and, given, stands for it (`horizon_or_eventual`)."""
    if horizon is not None and eot is not None:
        usage("bad-option", f"--eot {eot} is --horizon {eot - 1}: give one of them, not both", "--eot")
    if eventual is not None:
        return horizon_or_eventual(horizon, eot, eventual, required)
    if eot is not None:
        return eot - 1
    if horizon is None and required:
        usage("missing-option", "give the horizon: --horizon T (steps 0..T), or Molly's end of time --eot N (T = N-1)",
              "--horizon")
    return horizon


def horizon_or_eventual(horizon: int | None, eot: int | None, eventual: bool, required: bool = True) -> int | None:
    """Exactly one of --horizon T, --eot N and --eventual: the horizon T, or None under --eventual; both exit 2
    (--eventual answers for every horizon, so a horizon beside it would be read as one), and neither exits 2
    when the command needs one (`required`)."""
    if eventual and (horizon is not None or eot is not None):
        given = f"--horizon {horizon}" if horizon is not None else f"--eot {eot}"
        usage("bad-option", f"--eventual answers for every horizon at once (the infinite runs): give it without {given}, "
              "or drop --eventual for the answer cut at that horizon", "--eventual")
    if eventual:
        return None
    if eot is not None:
        return eot - 1
    if horizon is None and required:
        usage("missing-option", "give the horizon: --horizon T (steps 0..T), Molly's end of time --eot N (T = N-1), "
              "or --eventual (the infinite runs: every horizon at once)", "--horizon")
    return horizon


def eventual_bounds(network: Network, semantics: Semantics = Semantics.CAUSAL_FINITE,
                    encoding: Encoding = Encoding.FAST) -> Bounds:
    """The bounds of an --eventual question (`Mode.EVENTUAL`; its horizon, K - 1 for lassos of K steps, is set by
    the question once it knows K). The infinite runs are finitely many configurations only under --delivery sync
    or a delay bound: otherwise, and for any other bad value, exit 2."""
    if not network.sync and network.max_delay is None:
        usage("bad-option", "--eventual needs a finite-state network: give --delivery sync (Molly's rounds) or a delay "
              "bound --max-delay D; without one a message may stay in flight forever and the runs are not finitely many "
              "configurations (docs/semantics.md)", "--eventual")
    try:
        return Bounds(0, semantics, encoding, network, mode=Mode.EVENTUAL)
    except ValueError as error:
        usage("bad-option", str(error), "--eventual")


def program_options(command):
    """Give `command` the shapes of PROG and --horizon that every command shares: PROG takes one file or
    several (`program_files`), and a parameter `horizon` gets Molly's --eot beside it (`horizon_of`); with a
    parameter whose default is `EventualOpt`, exactly one of --horizon, --eot and --eventual (`horizon_or_eventual`)."""
    signature = inspect.signature(command)
    parameters, required = [], False
    annotations = dict(command.__annotations__)
    eventual = next((p.name for p in signature.parameters.values() if p.default is EventualOpt), None)
    alternatives = " (or --eot N, or --eventual)" if eventual else " (or --eot N)"
    for parameter in signature.parameters.values():
        if parameter.name == "program" and parameter.default is Prog:
            parameters.append(parameter.replace(annotation=list[Path]))
            annotations["program"] = list[Path]
        elif parameter.name == "horizon":
            required = parameter.default is HorizonOpt
            option = parameter.default if not required else typer.Option(
                None, *HorizonOpt.param_decls, min=0, max=MAX_STEP, show_default=False,
                help=HorizonOpt.help + alternatives,
            )
            parameters += [parameter.replace(default=option, annotation=Optional[int]),
                           inspect.Parameter("eot", parameter.kind, default=EotOpt, annotation=Optional[int])]
            annotations |= {"horizon": Optional[int], "eot": Optional[int]}
        else:
            parameters.append(parameter)
    has_eot = "eot" in annotations

    @functools.wraps(command)
    def with_program(*args, **kwargs):
        if isinstance(kwargs.get("program"), (list, tuple)):
            kwargs["program"] = program_files(list(kwargs["program"]))
        if has_eot:
            kwargs["horizon"] = horizon_of(kwargs.get("horizon"), kwargs.pop("eot"), required,
                                           kwargs.get(eventual) if eventual else None)
        return command(*args, **kwargs)

    with_program.__signature__ = signature.replace(parameters=parameters)
    with_program.__annotations__ = annotations
    return with_program


@dataclass(frozen=True)
class Limits:
    """--max-ground (rule instances, 0: no limit) and --max-memory (bytes, None: no limit) of a question."""

    max_ground: int = budget.DEFAULT_MAX_GROUND
    max_memory: int | None = None


MIN_MEMORY = 64 * 2**20  # below, the solver's process cannot even start
UNITS = {"": 1, "K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}


def memory(text: str | None) -> int | None:
    """--max-memory SIZE in bytes: digits with an optional unit K, M, G or T (powers of 1024); a bad one exits 2."""
    if text is None:
        return None
    found = re.fullmatch(r"\s*(\d{1,15})\s*([KMGT]?)(?:i?B)?\s*", text, re.IGNORECASE)
    size = int(found[1]) * UNITS[found[2].upper()] if found else None
    if size is None or not MIN_MEMORY <= size <= 2**50:
        usage("bad-option", f"--max-memory must be a size such as 2G, 512M or 100000000 (bytes), from 64M to 1P, not {text!r}",
              "--max-memory")
    return size


def limit_options(command):
    """Give `command` --max-ground and --max-memory in place of its parameter `limits = LIMITS`: it receives one `Limits`."""
    options = [("max_ground", int, MaxGroundOpt), ("max_memory", Optional[str], MaxMemoryOpt)]
    signature = inspect.signature(command)
    parameters = []
    for parameter in signature.parameters.values():
        if parameter.name == "limits":
            parameters += [inspect.Parameter(name, parameter.kind, default=default, annotation=kind) for name, kind, default in options]
        else:
            parameters.append(parameter)

    @functools.wraps(command)
    def with_limits(*args, max_ground: int, max_memory: str | None, **kwargs):
        return command(*args, limits=Limits(max_ground, memory(max_memory)), **kwargs)

    with_limits.__signature__ = signature.replace(parameters=parameters)
    annotations = {k: v for k, v in command.__annotations__.items() if k != "limits"}
    with_limits.__annotations__ = annotations | {name: kind for name, kind, _ in options}
    return with_limits


def within(program: Path, prog, instance, bounds_: Bounds, limits: Limits | None) -> None:
    """The ground size estimated before grounding (`asp.budget`): above --max-ground, the rule to blame and exit 2."""
    if limits is not None:
        try:
            budget.check(prog, instance, bounds_, limits.max_ground)
        except DiagnosticError as error:
            fail(error)


def check_engine(name: str) -> str:
    """--engine: local or spark."""
    if name not in ENGINES:
        usage("bad-option", f"--engine must be one of {', '.join(ENGINES)}, not {name!r}")
    return name


def load(program: Path, input_: Path | None = None, dialect: Dialect = Dialect.AUTO, network_: Network | None = None):
    """PROG and --input parsed and checked (`pipeline.load`), H required (or --nodes, `network_`), the warnings
    printed."""
    try:
        prog, instance, warnings = pipeline.load(program, input_, dialect.value)
    except DiagnosticError as error:
        fail(error)
    need_instance(program, instance, network_)
    warn(warnings + nodes_warnings(program, prog, instance, network_))
    return prog, instance


def prepare(
    program: Path, input_: Path | None, bounds_: Bounds, dialect=Dialect.AUTO, needs_input=True, limits: Limits | None = None
) -> pipeline.Prepared:
    """PROG and --input parsed, checked and compiled within the bounds (`pipeline.prepare`); with `limits`,
    refused when its ground program would be larger than --max-ground (`within`)."""
    try:
        prepared = pipeline.prepare(program, input_, bounds_, dialect.value)
    except DiagnosticError as error:
        fail(error)
    except NodeNameError as error:  # a --nodes name that is no constant of the program (`Network.node_symbols`)
        usage("bad-option", str(error), "--nodes")
    if needs_input:
        need_instance(program, prepared.instance, bounds_.network)
    warn(list(prepared.warnings) + nodes_warnings(program, prepared.program, prepared.instance, bounds_.network))
    within(program, prepared.program, prepared.instance, bounds_, limits)
    return prepared


def nodes_warnings(program: Path, prog, instance, network_: Network | None) -> list[Diagnostic]:
    """A warning for each --nodes name that no fact or rule mentions (`Network.unmentioned`), and for each
    message rule whose input facts name addressees that are no nodes (`analysis.unknown_addressees`); a name
    that is no constant of the program exits 2."""
    if network_ is None or not network_.nodes:
        return [] if instance is None else analysis.unknown_addressees(prog, instance)
    try:
        unmentioned = network_.unmentioned(prog, instance)
        unlisted = network_.unlisted(instance)
        strangers = [] if instance is None else analysis.unknown_addressees(prog, network_.populate(instance))
    except NodeNameError as error:
        usage("bad-option", str(error), "--nodes")
    return strangers + [unlisted_node(node, fact, instance) for node, fact in unlisted] + [
        Diagnostic("unmentioned-node", f"--nodes names '{name}', which no fact or rule of the program mentions: it "
                   "is a node nothing sends to (check its spelling"
                   + (", and its quotes: in Molly's dialect a bare name is the string the program writes" if
                      instance is not None and instance.molly else "") + ")",
                   filename=str(program), severity=Severity.WARNING)
        for name in unmentioned
    ]


def unlisted_node(node, fact, instance) -> Diagnostic:
    """A node that holds input facts but that --nodes leaves out: Molly, whose -N is the whole node list, would
    give it no clock, so its facts would never persist nor send; here it is a node of the network."""
    return Diagnostic(
        "unlisted-node",
        f"node {node} holds input facts (the first one below) but --nodes does not name it: it is a node of the "
        f"network here, while Molly, whose -N lists every node, gives it no clock: its facts hold at their own time "
        f"only, never persist, and it sends nothing (add {node} to --nodes to say it is a node, as it is here)",
        fact.span, instance.filename, instance.text, Severity.WARNING)


def need_instance(program: Path, instance, network_: Network | None = None) -> None:
    """Solving needs H: from --input, or from the facts a located or Molly program carries, or the nodes of
    --nodes (`network_`) for a located or Molly program without facts."""
    carried = instance is not None and (instance.network or not (instance.molly or instance.identity))
    if not carried and not (instance is not None and network_ is not None and network_.nodes):
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
