"""The questions the commands ask of a program, each answered through the phases below it (`asp`, `runs`,
`inspect`), none imported by them:

    count          how many models and traces: `count --split K` cuts the enumeration into K disjoint parts
    cron           consistency and tolerance of non-causality (jcss2014)
    verify         Molly's invariant question, the fewest faults first; its `--search-horizon` (verify_search)
                   and `--split K` (verify_split); why a counterexample's missing post fact was expected (lineage)

A question is asked within `bounds.Bounds`, made once by the caller; the formats render its answer.
"""
