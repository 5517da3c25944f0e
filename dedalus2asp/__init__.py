"""dedalus2asp: the stable-model semantics of Dedalus (Ameloot, Van den Bussche, Marczak, Alvaro,
Hellerstein, *Putting logic-based distributed systems on stable grounds*, TPLP 2016), executable with clingo.

A clingo `Symbol` pickles by default as a pointer into clingo's symbol table of *this* process: a
symbol made in a forked solver (`asp.solve.isolated`) or sent to a Spark executor would arrive as
garbage or crash the reader. Registered here, for every pickle of the package, a symbol travels as
its parts (a number, a string, or a name, its arguments and its sign) and is made again where it lands.
"""

import copyreg

import clingo


def _rebuild(kind: str, *parts) -> clingo.Symbol:
    if kind == "number":
        return clingo.Number(*parts)
    if kind == "string":
        return clingo.String(*parts)
    if kind == "function":
        return clingo.Function(*parts)
    return clingo.Infimum if kind == "infimum" else clingo.Supremum


def _reduce_symbol(symbol: clingo.Symbol):
    kind = symbol.type
    if kind == clingo.SymbolType.Number:
        return _rebuild, ("number", symbol.number)
    if kind == clingo.SymbolType.String:
        return _rebuild, ("string", symbol.string)
    if kind == clingo.SymbolType.Function:
        return _rebuild, ("function", symbol.name, list(symbol.arguments), symbol.positive)
    return _rebuild, ("infimum" if kind == clingo.SymbolType.Infimum else "supremum",)


copyreg.pickle(clingo.Symbol, _reduce_symbol)
