"""``ascend-jax`` command line: ``apis``, ``profiles`` (human tables or ``--json``) and ``demo``."""

import argparse
import json
import sys

from .profile import DEFAULT_PROFILE, available_profiles, load_profile
from .registry import REGISTRY


def _apis_json():
    from . import api  # noqa: F401  (registers the APIs)

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


def cmd_demo(args):
    from .testing.campaign import run_campaign

    res = run_campaign(profile=args.profile, cases=args.cases, seed=args.seed, batch=args.batch)
    print(res.summary())
    return 0 if res.mismatches == 0 else 1


def main(argv=None):
    ap = argparse.ArgumentParser(prog="ascend-jax", description=__doc__)
    sub = ap.add_subparsers(dest="cmd", required=True)
    a = sub.add_parser("apis", help="the modelled APIs and their dtypes per profile")
    a.add_argument("--json", action="store_true")
    a.set_defaults(fn=cmd_apis)
    p = sub.add_parser("profiles", help="the hardware profiles")
    p.add_argument("--json", action="store_true")
    p.set_defaults(fn=cmd_profiles)
    d = sub.add_parser("demo", help="a differential campaign: fast JAX path vs the NumPy reference")
    d.add_argument("--profile", default=DEFAULT_PROFILE)
    d.add_argument("--cases", type=int, default=20000)
    d.add_argument("--seed", type=int, default=0)
    d.add_argument("--batch", type=int, default=512)
    d.set_defaults(fn=cmd_demo)
    args = ap.parse_args(argv)
    return args.fn(args)


if __name__ == "__main__":
    sys.exit(main())
