# ascend_jax: `make demo` runs the main job, `make test` the whole suite. Both create .venv and
# install everything from the package registries first.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp

.PHONY: demo test test-nightly lint format wheel-check bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e ".[test,viz]"
	touch $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/ascend-jax demo

# lint-imports: the import contracts of .importlinter (layers, oracle isolation, no cycles)
lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/lint-imports

test: $(STAMP) lint wheel-check
	$(PY) -m pytest -q -n 2 --dist worksteal -m "not slow" --durations=25

# Bigger random campaigns (hypothesis profile "nightly": 20x more cases).
test-nightly: $(STAMP)
	ASCEND_JAX_HYPOTHESIS=nightly $(PY) -m pytest -q

# The profiles must be found from an installed wheel, not only from a source checkout.
wheel-check: $(STAMP)
	bash tools/wheel_check.sh $(PY)

format: $(STAMP)
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .

# every ops/ kernel vs its NumPy golden (per case and batched) + the API mix (benchmarks/README.md)
bench: $(STAMP)
	$(PY) benchmarks/kernels.py --json bench.json

clean:
	rm -rf $(VENV) build dist .pytest_cache
