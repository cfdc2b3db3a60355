"""Sum an ASCEND_JAX_CPU_LOG file (tests/conftest.py) per test file and print the costliest tests:
`python tools/cpu_table.py LOG [N]`."""

import collections
import sys


def main(path, top=30):
    per_file, rows = collections.Counter(), []
    for line in open(path):
        cpu, wall, nodeid = line.rstrip("\n").split("\t", 2)
        per_file[nodeid.split("::")[0]] += float(cpu)
        rows.append((float(cpu), float(wall), nodeid))
    total = sum(per_file.values())
    print(f"total CPU {total:.0f} s over {len(rows)} tests")
    for f, c in per_file.most_common():
        print(f"{c:8.1f} s  {100 * c / total:5.1f} %  {f}")
    print()
    for cpu, wall, nodeid in sorted(rows, reverse=True)[:top]:
        print(f"{cpu:8.1f} s CPU {wall:8.1f} s wall  {nodeid}")


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 30)
