"""``ascend-jax`` command line: ``apis``, ``profiles`` (human tables or ``--json``), ``fuzz`` (the
differential-testing engine), ``demo`` (its default campaign), ``replay`` (a repro capsule),
``export`` (a capsule as .bin files for an NPU run), ``diff`` (an NPU output against the model) and
``run`` (a whole kernel on .bin inputs in the vendor samples' layout).

The fuzzing commands keep compiled XLA programs in a persistent cache: ``$ASCEND_JAX_XLA_CACHE``,
default ``~/.cache/ascend_jax/xla`` (``$XDG_CACHE_HOME`` respected); set it to ``off`` to disable."""

import argparse
import json
import os
import pathlib
import sys

from .profile import DEFAULT_PROFILE, available_profiles, load_profile
from .registry import REGISTRY


def _apis_json():
    import ascend_jax  # noqa: F401  (the public face registers the APIs)

    profiles = [load_profile(n) for n in available_profiles()]
    out = []
    for name, spec in REGISTRY.items():
        per = {}
        for p in profiles:
            a = p.api(name)
            # APIs without a dtype template (SetMaskCount, SetCtrlSpr, ...): ["untyped"] where supported
            per[p.name] = (list(a.all_dtypes()) or ["untyped"]) if a.supported else []
        supported_on = [p.name for p in profiles if p.api(name).supported]
        out.append(
            {
                "name": name,
                "family": spec.family,
                "prototypes": list(spec.prototypes),
                "doc": spec.doc,
                "profiles": per,
                "count_only": {
                    p.name: list(p.api(name).count_only_dtypes)
                    for p in profiles
                    if p.api(name).count_only_dtypes
                },
                "supported_on": supported_on,
            }
        )
    return out


def _profiles_json():
    out = []
    for n in available_profiles():
        p = load_profile(n)
        out.append(
            {
                "name": p.name,
                "product": p.product,
                "doc_tag": p.doc_tag,
                "soc": p.soc,
                "npu_arch": p.npu_arch,
                "core": p.core,
                "default": p.name == DEFAULT_PROFILE,
                "ub_physical_bytes": p.ub_physical_bytes,
                "ub_usable_bytes": p.ub_usable_bytes,
                "reserved": [
                    {
                        "name": r.name,
                        "offset_bytes": r.offset_bytes,
                        "size_bytes": r.size_bytes,
                        "used_by": list(r.used_by),
                    }
                    for r in p.reserved
                ],
                "vector_mask_bits": p.vector_mask_bits,
                "cmpmask_bits": p.cmpmask_bits,
                "max_repeat_times": p.max_repeat_times,
                "block_bytes": p.block_bytes,
                "repeat_bytes": p.repeat_bytes,
                "counter_mode": p.counter_mode,
                "numerics": {
                    "float_subnormals": p.float_subnormals,
                    "int_overflow": p.int_overflow,
                    "nan_result": p.nan_result,
                },
                "behavior": {
                    "zero_repeat": p.zero_repeat,
                    "zero_count": p.zero_count,
                    "zero_mask": p.zero_mask,
                    "level2_lowering": p.level2_lowering,
                    "level2_is_set_mask": p.level2_is_set_mask,
                },
                "apis": {a.name: list(a.all_dtypes()) for a in p.apis if a.supported},
            }
        )
    return out


def _table(rows, headers):
    widths = [max(len(str(r[i])) for r in rows + [headers]) for i in range(len(headers))]
    line = "  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True))
    body = ["  ".join(str(c).ljust(w) for c, w in zip(r, widths, strict=True)) for r in rows]
    return "\n".join([line, "-" * len(line)] + body)


def cmd_apis(args):
    data = _apis_json()
    if args.json:
        print(json.dumps(data, ensure_ascii=False, indent=1))
        return 0
    names = available_profiles()
    rows = []
    for a in data:
        rows.append(
            [a["name"], a["family"]] + [",".join(_short(d) for d in a["profiles"][n]) or "-" for n in names]
        )
    print(_table(rows, ["API", "family"] + list(names)))
    return 0


def _short(d):
    if d == "untyped":
        return "yes"
    return {"half": "f16", "bfloat16": "bf16", "float32": "f32"}.get(
        d, d.replace("int", "i").replace("ui", "u")
    )


def cmd_profiles(args):
    data = _profiles_json()
    if args.json:
        print(json.dumps(data, ensure_ascii=False, indent=1))
        return 0
    rows = [
        [
            d["name"] + (" *" if d["default"] else ""),
            d["npu_arch"],
            d["soc"],
            d["ub_usable_bytes"],
            d["vector_mask_bits"],
            d["counter_mode"],
            d["product"],
        ]
        for d in data
    ]
    print(_table(rows, ["profile", "arch", "SoC", "UB usable", "mask bits", "counter", "product"]))
    print("* default profile")
    return 0


def enable_compilation_cache():
    """Point JAX's persistent compilation cache at ``$ASCEND_JAX_XLA_CACHE`` (default
    ``~/.cache/ascend_jax/xla``); returns the directory, or None when disabled ("off")."""
    env = os.environ.get("ASCEND_JAX_XLA_CACHE")
    if env is not None and env.strip().lower() in ("", "0", "off", "none", "false"):
        return None
    if env:
        path = pathlib.Path(env).expanduser()
    else:
        base = os.environ.get("XDG_CACHE_HOME") or str(pathlib.Path.home() / ".cache")
        path = pathlib.Path(base) / "ascend_jax" / "xla"
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    import jax

    jax.config.update("jax_compilation_cache_dir", str(path))
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.1)
    return path


def _run_campaign(args, cases):
    from .fuzz import run

    enable_compilation_cache()
    progress = True if args.progress else None  # None: only on a TTY
    res = run(
        apis=args.apis,
        profile=args.profile,
        cases=cases,
        seed=args.seed,
        out=getattr(args, "out", None),
        batch=args.batch,
        oracle_sample=args.oracle_sample,
        invalid_rate=args.invalid_rate,
        progress=progress,
        resume=getattr(args, "resume", False),
        shrink=not getattr(args, "no_shrink", False),
        dtypes=args.dtypes,
    )
    if getattr(args, "json", False):
        print(res.to_json(indent=1))
    else:
        print(res.summary_table())
        print()
        print(res.coverage_table())
    return 0 if res.ok else 1


def cmd_fuzz(args):
    if args.resume and not args.out:
        print("ascend-jax fuzz: --resume needs --out DIR", file=sys.stderr)
        return 2
    try:
        return _run_campaign(args, args.cases)
    except ValueError as e:  # unknown API, a different campaign in --out, ...
        print(f"ascend-jax fuzz: {e}", file=sys.stderr)
        return 2


def cmd_demo(args):
    return _run_campaign(args, args.cases)


def cmd_replay(args):
    from .fuzz.capsule import replay

    enable_compilation_cache()
    diff, text = replay(args.capsule)
    print(text)
    return 1 if diff is not None else 0


def cmd_export(args):
    from .fuzz.export import export_capsule

    files = export_capsule(args.capsule, args.to)
    for f in files:
        print(f)
    return 0


def cmd_diff(args):
    from .fuzz.export import diff_dir

    report = diff_dir(args.dir, args.output)
    print(report.text())
    return 0 if report.clean else 1


def _oracle_sample(v):
    return float(v)


def _campaign_args(sp, cases):
    sp.add_argument("--apis", default=None, help="comma-separated API names (default: every registered API)")
    sp.add_argument("--dtypes", default=None, help="comma-separated element types (default: all)")
    sp.add_argument("--profile", default=DEFAULT_PROFILE)
    sp.add_argument("--cases", type=int, default=cases)
    sp.add_argument("--seed", type=int, default=0)
    sp.add_argument("--batch", type=int, default=256, help="padded batch size of the fast path")
    sp.add_argument(
        "--oracle-sample",
        type=_oracle_sample,
        default=None,
        help="share (<= 1) or number (> 1) of cases checked by the reference (default: all up to 20000)",
    )
    sp.add_argument("--invalid-rate", type=float, default=0.1, help="share of deliberately invalid cases")
    sp.add_argument("--progress", action="store_true", help="progress bar on stderr (default: only on a TTY)")
    sp.add_argument("--json", action="store_true", help="print the result as JSON instead of tables")


def main(argv=None):
    ap = argparse.ArgumentParser(
        prog="ascend-jax", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = ap.add_subparsers(dest="cmd", required=True)
    a = sub.add_parser("apis", help="the modelled APIs and their dtypes per profile")
    a.add_argument("--json", action="store_true")
    a.set_defaults(fn=cmd_apis)
    p = sub.add_parser("profiles", help="the hardware profiles")
    p.add_argument("--json", action="store_true")
    p.set_defaults(fn=cmd_profiles)
    f = sub.add_parser("fuzz", help="differential campaign: fast JAX path vs the NumPy reference")
    _campaign_args(f, 10000)
    f.add_argument("--out", default=None, help="directory for results.jsonl, capsules/ and summary.json")
    f.add_argument("--resume", action="store_true", help="continue the campaign in --out")
    f.add_argument("--no-shrink", action="store_true", help="do not shrink mismatches into capsules")
    f.set_defaults(fn=cmd_fuzz)
    d = sub.add_parser("demo", help="the default campaign: 20,000 cases over every modelled API")
    _campaign_args(d, 20000)
    d.set_defaults(fn=cmd_demo)
    r = sub.add_parser("replay", help="re-run a repro capsule")
    r.add_argument("capsule")
    r.set_defaults(fn=cmd_replay)
    e = sub.add_parser("export", help="write a capsule's case as .bin files + params.json for an NPU run")
    e.add_argument("capsule")
    e.add_argument("--to", required=True, help="output directory")
    e.set_defaults(fn=cmd_export)
    g = sub.add_parser("diff", help="compare an NPU (or CPU-debug) output .bin with an exported case")
    g.add_argument("dir")
    g.add_argument("--output", default=None, help="the output .bin to check (default: the golden itself)")
    g.set_defaults(fn=cmd_diff)
    from .byok import add_parser as _add_run_parser

    _add_run_parser(sub)  # run: a kernel on the vendor samples' .bin layout (ascend_jax/byok.py)
    args = ap.parse_args(argv)
    return args.fn(args)


if __name__ == "__main__":
    sys.exit(main())
