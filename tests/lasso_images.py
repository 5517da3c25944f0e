"""The lasso pictures of docs/inspecting.md, drawn from the eventual mode's own models and shot in headless Chromium:

    .venv/bin/python tests/lasso_images.py            # writes docs/img/lasso-molly.png and docs/img/lasso-fig4.png

* lasso-molly.png: Molly's retrying broadcast under sync delivery, a→b lost at step 0 (`lassos.solved_molly`);
* lasso-fig4.png: tplp2016 Fig. 4's non-causal run as a choice lasso, B() arriving before its send
  (`lassos.solved_fig4`).
"""

from __future__ import annotations

import re
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import lassos  # noqa: E402
from dedalus2asp import formats  # noqa: E402
from test_browser import chromium, headless  # noqa: E402

IMAGES = HERE.parent / "docs" / "img"


def shoot(model, target: Path) -> None:
    """The model's spacetime diagram, at twice its size, as a PNG."""
    drawn = formats.render(model, "svg")
    width, height = (int(v) for v in re.search(r'width="(\d+)" height="(\d+)"', drawn).groups())
    with tempfile.TemporaryDirectory() as folder:
        page = Path(folder) / "diagram.svg"
        page.write_text(drawn, encoding="utf-8")
        shot = headless(chromium(), f"--screenshot={target}", f"--window-size={width},{height}",
                        "--force-device-scale-factor=2", "--hide-scrollbars", page.as_uri())
    if shot.returncode != 0 or not target.exists():
        raise SystemExit(f"chromium could not shoot {target}: {shot.stderr}")


def main() -> None:
    for name, model in (("lasso-molly", lassos.solved_molly()), ("lasso-fig4", lassos.solved_fig4())):
        target = IMAGES / f"{name}.png"
        shoot(model, target)
        print(f"wrote {target.relative_to(HERE.parent)} (model {model.number}, loop {model.loop_start}–{model.horizon})")


if __name__ == "__main__":
    main()
