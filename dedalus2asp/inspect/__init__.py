"""Reading models: answer sets decoded into traces and messages (`model`; a message and the happens-before
closure, `message`), the run a causal model stands for (`run`), and why a fact holds (`explain`)."""

from .message import GroundFact, Message, Point, closure
from .model import Model, Models, decode, enumerate_models, show_fact, traces
from .run import Configuration, Run, Transition, agrees, run_constraints, run_of

__all__ = [
    "Configuration", "GroundFact", "Message", "Model", "Models", "Point", "Run", "Transition",
    "agrees", "closure", "decode", "enumerate_models", "run_constraints", "run_of", "show_fact", "traces",
]
