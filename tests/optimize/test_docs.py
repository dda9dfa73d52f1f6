"""Every ```python block of docs/minimize.md runs and its assertions hold."""

import pathlib
import re

import pytest

DOC = pathlib.Path(__file__).resolve().parents[2] / "docs" / "minimize.md"
BLOCKS = re.findall(r"```python\n(.*?)```", DOC.read_text(), re.S)


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_doc_block_runs(index):
    exec(compile(BLOCKS[index], f"{DOC.name}[{index}]", "exec"), {})
