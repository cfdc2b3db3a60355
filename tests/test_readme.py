"""The README's Python examples run as written (so the first screen never lies)."""

import pathlib
import re

README = pathlib.Path(__file__).resolve().parents[1] / "README.md"


def test_readme_python_blocks_run():
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
    assert len(blocks) >= 2
    for code in blocks:  # each block runs on its own, as a reader would paste it
        ns = {}
        exec(compile(code, str(README), "exec"), ns)  # our own documentation
        if "kept" in ns:
            kept = ns["kept"]
    # the second block's ReLU: dst = src if src > 0 else 0, then GatherMask overwrote the first
    # 32 floats with the odd lanes of the first 64 source values
    assert int(kept) == 32
