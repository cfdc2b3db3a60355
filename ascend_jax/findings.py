"""The printed form of a launch's findings (``hazards.Finding``): one line per class of finding and
source lines, with a count -- a loop over 64 elements that races with one vector call makes 64
pairs of calls and one line "x64". The findings themselves (``KernelResult.findings``) stay
complete, one per pair of calls."""


def _key(f):
    return (f.tool, f.severity, f.kind, tuple(c.source or f"{c.api} #{c.index}" for c in f.calls))


def grouped(findings):
    """``[(first finding, count)]``: the findings grouped by (tool, severity, kind, the source line
    of each call), in the order each group first appears."""
    groups = {}
    for f in findings:
        k = _key(f)
        if k in groups:
            groups[k][1] += 1
        else:
            groups[k] = [f, 1]
    return [(f, n) for f, n in groups.values()]


def lines(findings):
    """One line per group of ``grouped``: the first finding, and with more than one "xN"."""
    out = []
    for f, n in grouped(findings):
        text = str(f)
        if n > 1:
            text += f" x{n} ({n} alike on these source lines; the first shown)"
        out.append(text)
    return out
