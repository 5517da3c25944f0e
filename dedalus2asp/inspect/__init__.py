"""Decoding answer sets into models, happens-before, runs and explanations."""

from .model import *  # noqa: F401,F403
