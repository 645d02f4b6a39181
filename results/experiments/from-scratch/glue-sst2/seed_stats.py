#!/usr/bin/env python3
"""Welch and paired t-tests on per-seed accuracies (issue #36's SST-2 sweep), pure Python.

Usage: seed_stats.py A1,A2,A3 B1,B2,B3
Prints each setting's mean and sample sd, Welch's t-test (two-sided, Welch-Satterthwaite df) and,
when both lists have the same length, the paired t-test by position (seed). Writes nothing.
"""
import math
import sys


def _betacf(a, b, x):
    # Continued fraction of the regularized incomplete beta function (modified Lentz).
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 300):
        m2 = 2 * m
        num = m * (b - m) * x / ((a - 1.0 + m2) * (a + m2))
        d = 1.0 + num * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + num / c
        h *= d * c
        num = -(a + m) * (a + b + m) * x / ((a + m2) * (a + 1.0 + m2))
        d = 1.0 + num * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + num / c
        step = d * c
        h *= step
        if abs(step - 1.0) < 1e-12:
            break
    return h


def _ibeta(a, b, x):
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) +
                     b * math.log(1.0 - x))
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _betacf(a, b, x) / a
    return 1.0 - front * _betacf(b, a, 1.0 - x) / b


def t_pvalue(t, df):
    """Two-sided p of Student's t with df degrees of freedom."""
    return _ibeta(df / 2.0, 0.5, df / (df + t * t))


def mean(v):
    return sum(v) / len(v)


def sd(v):
    m = mean(v)
    return math.sqrt(sum((x - m) ** 2 for x in v) / (len(v) - 1))


def welch(a, b):
    va, vb = sd(a) ** 2 / len(a), sd(b) ** 2 / len(b)
    t = (mean(a) - mean(b)) / math.sqrt(va + vb)
    df = (va + vb) ** 2 / (va ** 2 / (len(a) - 1) + vb ** 2 / (len(b) - 1))
    return mean(a) - mean(b), t, df, t_pvalue(t, df)


def paired(a, b):
    d = [x - y for x, y in zip(a, b)]
    t = mean(d) / (sd(d) / math.sqrt(len(d)))
    return d, t, len(d) - 1, t_pvalue(t, len(d) - 1)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    lists = []
    for no, arg in enumerate(sys.argv[1:3], start=1):
        try:
            lists.append([float(x) for x in arg.split(",")])
        except ValueError:
            sys.exit(f"seed_stats.py: argument {no}: '{arg}' is not a comma-separated list of numbers")
        if len(lists[-1]) < 2:
            sys.exit(f"seed_stats.py: argument {no}: needs at least two values, got {len(lists[-1])}")
    a, b = lists
    if sd(a) == 0 and sd(b) == 0:
        sys.exit("seed_stats.py: both lists have zero spread; a t-test is undefined")
    print(f"A {mean(a):.2f} ± {sd(a):.2f}   B {mean(b):.2f} ± {sd(b):.2f}")
    diff, t, df, p = welch(a, b)
    print(f"Welch: {diff:+.2f}, t = {t:.2f}, df {df:.1f}, p = {p:.3f}")
    if len(a) == len(b) and sd([x - y for x, y in zip(a, b)]) > 0:
        d, t, df, p = paired(a, b)
        print(f"paired: {' / '.join(f'{x:+.2f}' for x in d)}, t = {t:.2f}, df {df}, p = {p:.3f}")


if __name__ == "__main__":
    main()
