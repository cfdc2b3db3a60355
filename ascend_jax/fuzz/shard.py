"""Scale-out of a differential campaign with JAX's own distributed runtime (issue 19).

Within one process, ``run(devices=...)`` splits every batched fast-path run over the local devices
(``ascend_jax.kernel.case_sharding``: a 1-D ``Mesh`` and a ``NamedSharding`` of the case axis).
Across processes (hosts), ``run_distributed`` joins the run with ``jax.distributed.initialize``;
process ``k`` of ``n`` runs the cases ``i`` with ``i % n == k`` (case ``i`` comes from
``(seed, i)`` alone, so no case depends on which process runs it) into its own journal
``OUT/p<k>/`` (meta.json, results.jsonl, capsules/, summary.json; ``resume`` continues each shard
where it stopped). After a barrier across all processes, process 0 merges every shard's records
into ``OUT/summary.json`` (the summary and coverage of the whole campaign). ``OUT`` must be on a
file system every process sees (or copy the ``p<k>`` folders together and call ``merge``).
"""

import json
import os
import pathlib
import time

from .report import FuzzResult
from .resume import JournalError, read_results

SHARD_DIR = "p{}"


def _env_int(name):
    v = os.environ.get(name)
    if v is None or v == "":
        return None
    try:
        return int(v)
    except ValueError:
        raise ValueError(f"${name}={v!r} is not an integer") from None


def initialize(coordinator=None, num_processes=None, process_id=None):
    """``jax.distributed.initialize`` (once per process); unset arguments come from
    ``$JAX_COORDINATOR_ADDRESS``, ``$JAX_NUM_PROCESSES``, ``$JAX_PROCESS_ID``, else from JAX's
    cluster auto-detection (SLURM, Open MPI, ...). Returns (process id, number of processes)."""
    import jax
    from jax._src import distributed as _dist  # only to tell whether it is initialized already

    if num_processes is None:
        num_processes = _env_int("JAX_NUM_PROCESSES")
    if process_id is None:
        process_id = _env_int("JAX_PROCESS_ID")
    if getattr(_dist.global_state, "client", None) is None:
        jax.distributed.initialize(
            coordinator_address=coordinator, num_processes=num_processes, process_id=process_id
        )
    return jax.process_index(), jax.process_count()


BARRIER_TIMEOUT_MS = 7 * 24 * 3600 * 1000  # the shards of a night's campaign end hours apart


def barrier(name):
    """Wait until every process of the distributed run reaches ``name``: a barrier of JAX's
    coordination service (no device collective: no Gloo/NCCL set-up, nothing printed on stdout,
    so ``--json`` stays one JSON document), else ``multihost_utils.sync_global_devices``."""
    from jax._src import distributed as _dist

    client = getattr(_dist.global_state, "client", None)
    if client is not None and hasattr(client, "wait_at_barrier"):
        client.wait_at_barrier(name, BARRIER_TIMEOUT_MS)
        return
    from jax.experimental import multihost_utils

    multihost_utils.sync_global_devices(name)


def shard_dirs(out, n=None):
    """The shard folders ``OUT/p0 ... OUT/p<n-1>`` (``n`` None: as many as ``OUT/p0/meta.json``
    says)."""
    out = pathlib.Path(out)
    if n is None:
        meta = out / SHARD_DIR.format(0) / "meta.json"
        if not meta.exists():
            raise JournalError(f"{out}: no shard p0/meta.json: not a --distributed campaign folder")
        n = int(json.loads(meta.read_text())["shard"][1])
    return [out / SHARD_DIR.format(k) for k in range(n)]


def merge(out, n=None, write=True):
    """The ``FuzzResult`` of a whole ``--distributed`` campaign from its shard folders in ``out``
    (records of every shard, by case index; capsules and timings of every shard); written to
    ``OUT/summary.json`` with ``write``. A shard that lacks a case it owns, or a case found in two
    shards, is an error: a merged campaign has every case exactly once."""
    dirs = shard_dirs(out, n)
    n = len(dirs)
    metas, sums, records = [], [], {}
    for k, d in enumerate(dirs):
        mp = d / "meta.json"
        if not mp.exists():
            raise JournalError(f"{d}: missing meta.json (process {k} of {n} did not run)")
        meta = json.loads(mp.read_text())
        if meta.get("shard") != [k, n]:
            raise JournalError(f"{mp}: shard {meta.get('shard')!r}, expected [{k}, {n}]")
        metas.append(meta)
        sp = d / "summary.json"
        sums.append(json.loads(sp.read_text()) if sp.exists() else {})
        for i, rec in read_results(d / "results.jsonl").items():
            if i % n != k or i in records:
                raise JournalError(f"{d}: case {i} does not belong to shard {k} of {n} (or is duplicated)")
            records[i] = rec
    meta = {k: v for k, v in metas[0].items() if k != "shard"}
    meta["cases"] = max(int(m["cases"]) for m in metas)
    meta["processes"] = n
    missing = [i for i in range(meta["cases"]) if i not in records]
    if missing:
        raise JournalError(
            f"{out}: {len(missing)} case(s) missing (first {missing[:5]}): a shard did not finish; "
            "run it again with --resume"
        )

    def total(key, agg=sum):
        vals = [s.get(key) for s in sums if s.get(key) is not None]
        return agg(vals) if vals else None

    res = FuzzResult(
        meta=meta,
        records=[records[i] for i in sorted(records)],
        not_fuzzed=sums[0].get("not_fuzzed", {}) if sums else {},
        capsules=[c for s in sums for c in s.get("capsules", [])],
        seconds=total("seconds", max) or 0.0,
        run_seconds=total("run_seconds", max) or 0.0,
        resumed=total("resumed") or 0,
        new_cases=sum(s.get("cases", 0) - s.get("resumed", 0) for s in sums),
        fast_cases_per_s=total("fast_cases_per_s"),  # the shards run side by side: rates add up
        compile_seconds=total("compile_seconds", max) or 0.0,
        oracle_cases_per_s=total("oracle_cases_per_s"),
    )
    if write:
        (pathlib.Path(out) / "summary.json").write_text(res.to_json(indent=1))
    return res


def run_distributed(out, coordinator=None, num_processes=None, process_id=None, **kw):
    """One process of a multi-process campaign (every process calls it with the same arguments
    but its own ``process_id``): ``initialize``, run this process's slice of the cases into
    ``OUT/p<id>`` (``kw``: the arguments of ``fuzz.run``, ``devices`` and ``resume`` included),
    wait for every process, then process 0 returns the merged result (``merge``) and the others
    their own shard's."""
    from .engine import run

    if out is None:
        raise ValueError("fuzz.run_distributed: out=None: a distributed campaign needs an out folder")
    pid, n = initialize(coordinator, num_processes, process_id)
    t0 = time.perf_counter()
    own = run(out=pathlib.Path(out) / SHARD_DIR.format(pid), shard=(pid, n), **kw)
    barrier("ascend_jax_fuzz_shards_done")
    if pid != 0:
        return own
    res = merge(out, n, write=False)
    res.seconds = time.perf_counter() - t0
    (pathlib.Path(out) / "summary.json").write_text(res.to_json(indent=1))
    return res
