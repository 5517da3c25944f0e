"""The lineage of a missing `post` fact (an entry of runs.json's `lineage`, docs/runs-schema.json) as a
page fragment: a nested list, what `verify --out DIR`'s index.html shows per missing fact.

It reads the JSON document, not the values of `dedalus2asp.inspect.lineage` (whose `Expected.as_dict`
writes it): each fact of the expected run, green if it holds in the counterexample too, red if not,
a lost message or a crashed node in bold red; behind a negated atom that holds in the other run,
its derivation there (each fact coloured by the first run); a fact shown before is referred to.
"""

from __future__ import annotations

from html import escape

THERE = {"expected": "the counterexample", "counterexample": "the expected run"}
"""The other run of a fact of each run (the `run` of a fact of the lineage)."""


def html(entry: dict) -> str:
    """One lineage entry of runs.json as a nested list: each fact with how it holds and how it fared in the
    other run (a lost message, a crashed node in bold red); an absent atom that holds in the other run
    is followed by its derivation there; a fact shown before is referred to."""
    facts = entry["facts"]
    post = entry["post"]
    title = f'{post["relation"]}({", ".join(post["args"])}) at {post["node"] or "global"}:{post["step"]}'
    if entry["run"] is None:
        why = ("the timeout stopped the search for a run where it holds" if entry["stopped"]
               else "no run within the bounds holds it (nothing led to expect it)")
        return f'<section class="lineage"><h3>no lineage for {escape(title)}</h3><p>{why}</p></section>'
    shown: set[int] = set()

    def item(k: int) -> str:
        f = facts[k]
        there = THERE[f["run"]]
        words = [f["how"] + (f' by rule {f["rule_number"]}' if f["rule_number"] is not None else "")]
        if f["message"] is not None:
            words.append(f'sent by {f["message"]["from"]} at step {f["message"]["sent"]}')
        fate, cut = f["message_in_other_run"], []
        c = f["crashed_in_other_run"]
        if fate == "lost":
            cut.append(f"lost in {there}")
        elif fate == "lost-by-crash":
            cut.append(f"lost in {there}: its sender " + ("had crashed" if c is None else f'{c["node"]} had crashed at step {c["step"]}'))
        elif fate in ("pending", "not-sent"):
            cut.append(f"pending in {there}" if fate == "pending" else f"never sent in {there}")
        if c is not None and fate != "lost-by-crash":
            cut.append(f'{c["node"]} had crashed at step {c["step"]} in {there}')
        state = "holds" if f["in_other_run"] else "missing"
        label = (("<em>in the counterexample:</em> " if f["run"] == "counterexample" else "")
                 + f'<span class="fact {state}" title="{state} in {there}">{escape(f["fact"])} at '
                 f'{escape(f["node"] or "global")}:{f["step"]}</span> {escape(", ".join(words))}'
                 + "".join(f' <strong class="cut">{escape(w)}</strong>' for w in cut))
        if k in shown and (f["premises"] or f["absent"]):
            return f"<li>{label} (above)</li>"
        shown.add(k)
        inner = "" if f["in_other_run"] else "".join(item(p) for p in f["premises"])
        for a in ([] if f["in_other_run"] else f["absent"]):
            where = f'not {escape(a["fact"])} at {escape(a["node"] or "global")}:{a["step"]}'
            if a["because"] is None:
                inner += f'<li><span class="absent">{where}</span></li>'
            else:
                inner += (f'<li><span class="absent">{where}</span>, <strong class="cut">but it holds in {there}</strong>:'
                          f'<ul>{item(a["because"])}</ul></li>')
        return f"<li>{label}" + (f"<ul>{inner}</ul>" if inner else "") + "</li>"

    run = entry["run"]
    how = "a run without faults" if not run["faults"] else f'a run with {run["faults"]} fault(s)'
    return (f'<section class="lineage"><h3>why {escape(title)} was expected</h3>'
            f"<p>it holds in {how} within the same bounds (the expected run); its lineage there, each fact "
            "green if it holds in the counterexample too, red if not; behind a negated atom that holds in the "
            "counterexample, its derivation there, each fact green if it holds in the expected run too, red if "
            f"not:</p><ul>{item(entry['root'])}</ul></section>")
