"""The front end: Dedalus source text to a checked program and its input.

    lexer     text → tokens → one statement at a time, every error reported
    parser    a program (dedalus.lark; located.lark for located and Molly programs)
    located   a located or Molly program → the location-transparent IR (tr2009 §6.2)
    convert   a program → its text in the other notation (`dedalus2asp convert`)
    facts     an input, `.facts` (facts.lark) or JSON (facts_json) → a distributed instance H
    analysis  well-formedness (tplp2016 Def. 4.1): safety, arities, stratification
    ast, diagnostics   the values the phases pass on and the errors they report
"""
