"""Every ```python block of docs/*.md and README.md runs; docstring Examples run; the
documentation site builds without warnings (when mkdocs is installed)."""

import doctest
import importlib
import os
import pkgutil
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = sorted((ROOT / "docs").glob("*.md")) + [ROOT / "README.md"]
FENCE = re.compile(r"^```python[^\n]*\n(.*?)^```", re.S | re.M)

# modules whose docstring Examples this suite owns (the other subpackages test theirs)
# every module of robustfit.fitting (found, not listed: a list missed new modules),
# and the other modules with examples (robustfit.optimize's: tests/optimize)
DOCTEST_MODULES = ["robustfit.datafile", "robustfit.plotting", "robustfit.moments"] + [
    f"robustfit.fitting.{info.name}"
    for info in pkgutil.iter_modules(importlib.import_module("robustfit.fitting").__path__)]


def python_blocks(path: Path) -> list[str]:
    return FENCE.findall(path.read_text(encoding="utf-8"))


def test_pages_have_examples():
    assert sum(len(python_blocks(p)) for p in PAGES) >= 6


@pytest.mark.parametrize("page", [p for p in PAGES if python_blocks(p)],
                         ids=lambda p: p.name)
def test_code_blocks_run(page, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)  # examples that write files write them here
    namespace = {"__name__": f"docs_{page.stem}"}
    for i, block in enumerate(python_blocks(page)):
        try:
            exec(compile(block, f"{page.name}[block {i}]", "exec"), namespace)
        except Exception as exc:  # name the page and block in the failure
            pytest.fail(f"{page.name} block {i} raised {type(exc).__name__}: {exc}\n{block}")
    capsys.readouterr()


@pytest.mark.parametrize("module", DOCTEST_MODULES)
def test_docstring_examples(module):
    mod = importlib.import_module(module)
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    tests = finder.find(mod, module)
    for t in tests:
        runner.run(t)
    result = runner.summarize(verbose=False)
    assert result.failed == 0


def test_site_builds_without_warnings(tmp_path):
    for mod in ("mkdocs", "mkdocstrings", "mkdocstrings_handlers.python"):
        pytest.importorskip(mod, reason=f"{mod} is not installed; pip install '.[docs]'")
    site = tmp_path / "site"
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH",
                                                                               ""))
    out = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir",
                          str(site)], cwd=ROOT, capture_output=True, text=True, env=env,
                         timeout=300)
    assert out.returncode == 0, out.stderr[-4000:]
    assert "WARNING" not in out.stderr, out.stderr[-4000:]
    assert (site / "cli" / "index.html").exists() and (site / "api" / "index.html").exists()
    shutil.rmtree(site)
