"""dedalus2asp: the stable-model semantics of Dedalus (Ameloot, Van den Bussche, Marczak, Alvaro,
Hellerstein, *Putting logic-based distributed systems on stable grounds*, TPLP 2016), executable with clingo.

A clingo `Symbol` pickles by default as a pointer into clingo's symbol table of *this* process: a
symbol made in a forked solver (`asp.solve.isolated`) or sent to a Spark executor would arrive as
garbage or crash the reader. Registered here, for every pickle of the package, a symbol travels as
its text and is parsed again where it lands.
"""

import copyreg

import clingo


def _reduce_symbol(symbol: clingo.Symbol):
    return clingo.parse_term, (str(symbol),)


copyreg.pickle(clingo.Symbol, _reduce_symbol)
