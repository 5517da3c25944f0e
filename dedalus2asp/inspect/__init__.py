"""Reading models: answer sets decoded into traces, messages and happens-before (`model`), the run a
causal model stands for (`run`), and why a fact holds (`explain`)."""

from .model import GroundFact, Message, Model, Models, Point, closure, decode, enumerate_models, show_fact, traces
from .run import Configuration, Run, Transition, agrees, run_constraints, run_of

__all__ = [
    "Configuration", "GroundFact", "Message", "Model", "Models", "Point", "Run", "Transition",
    "agrees", "closure", "decode", "enumerate_models", "run_constraints", "run_of", "show_fact", "traces",
]
