"""The notebooks in notebooks/ (issue 8) run top to bottom in a fresh Jupyter kernel.

Each notebook is one test (``pytest -n 2`` runs two at once), executed with nbclient in
``notebooks/`` (kernel "python3", at most 300 s per cell). A notebook fails the test on any cell
error, in particular its ``# ASSERT`` cells, which check the numbers shown against independent
expectations (the vendor pages' printed results, NumPy goldens written from the doc text, the
literal NumPy reference). The notebooks are stored without outputs; that is checked too.

The kernel shares the suite's persistent XLA compilation cache (``.jax_cache``, see conftest.py).
"""

import os
import pathlib

import pytest
from conftest import CACHE_DIR, CACHE_MAX_BYTES

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")
pytest.importorskip("matplotlib")

ROOT = pathlib.Path(__file__).resolve().parents[1]
NB_DIR = ROOT / "notebooks"
EXPECTED = (
    "01_quickstart.ipynb",
    "02_parameter_sweeps.ipynb",
    "03_differential_testing.ipynb",
    "04_product_differences.ipynb",
    "05_races_and_cores.ipynb",
)
CELL_TIMEOUT = 300  # seconds per cell


def test_the_notebooks_are_there_and_stored_without_outputs():
    assert tuple(sorted(p.name for p in NB_DIR.glob("*.ipynb"))) == EXPECTED
    for name in EXPECTED:
        nb = nbformat.read(NB_DIR / name, as_version=4)
        nbformat.validate(nb)
        code = [c for c in nb.cells if c.cell_type == "code"]
        assert code, name
        dirty = [i for i, c in enumerate(code) if c.outputs or c.execution_count is not None]
        assert not dirty, f"{name}: code cells {dirty} carry outputs; clear them before saving"
        asserts = [c for c in code if c.source.lstrip().startswith("# ASSERT")]
        assert len(asserts) >= 2, f"{name}: needs ASSERT cells that check the numbers shown"


@pytest.mark.parametrize("name", EXPECTED)
def test_notebook_executes_without_errors(name):
    nb = nbformat.read(NB_DIR / name, as_version=4)
    client = nbclient.NotebookClient(
        nb,
        timeout=CELL_TIMEOUT,
        kernel_name="python3",
        resources={"metadata": {"path": str(NB_DIR)}},
    )
    env = dict(os.environ)
    env.setdefault("JAX_COMPILATION_CACHE_DIR", str(CACHE_DIR))
    env.setdefault("JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS", "0.5")
    env.setdefault("JAX_COMPILATION_CACHE_MAX_SIZE", str(CACHE_MAX_BYTES))  # the file lock (conftest.py)
    env.setdefault("MPLBACKEND", "Agg")
    try:
        client.execute(env=env)
    except nbclient.exceptions.CellExecutionError as e:
        pytest.fail(f"{name}: a cell failed:\n{str(e)[-4000:]}", pytrace=False)
    ran = [c for c in nb.cells if c.cell_type == "code" and c.execution_count is not None]
    assert len(ran) == sum(c.cell_type == "code" for c in nb.cells), f"{name}: not every code cell ran"
