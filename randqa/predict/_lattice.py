"""LLL reduction and Babai's nearest plane, exact, for the small lattices
(dimension <= 10) of the truncated-LCG attack.

Sources: A. K. Lenstra, H. W. Lenstra, L. Lovasz, "Factoring polynomials
with rational coefficients", Math. Ann. 261 (1982) 515-534 (LLL, delta =
3/4 here); L. Babai, "On Lovasz' lattice reduction and the nearest lattice
point problem", Combinatorica 6 (1986) 1-13 (nearest plane).  Arithmetic
is exact (integers and rationals), which never loses precision on the
64-bit and larger entries these lattices have and costs little at k <= 10.
"""

from __future__ import annotations

from fractions import Fraction


def _dot(u: list, v: list) -> Fraction | int:
    return sum(a * b for a, b in zip(u, v))


def _gram_schmidt(basis: list[list[int]]) -> tuple[list[list[Fraction]], list[list[Fraction]], list[Fraction]]:
    ortho: list[list[Fraction]] = []
    mu = [[Fraction(0)] * len(basis) for _ in basis]
    norms: list[Fraction] = []
    for i, b in enumerate(basis):
        v = [Fraction(x) for x in b]
        for j in range(i):
            mu[i][j] = Fraction(_dot(b, ortho[j])) / norms[j] if norms[j] else Fraction(0)
            v = [x - mu[i][j] * y for x, y in zip(v, ortho[j])]
        ortho.append(v)
        norms.append(Fraction(_dot(v, v)))
    return ortho, mu, norms


def lll_reduce(basis: list[list[int]], delta: Fraction = Fraction(3, 4)) -> list[list[int]]:
    """An LLL-reduced basis of the lattice spanned by the (independent) rows.

    The Gram-Schmidt coefficients are updated in place on each reduction
    and swap (H. Cohen, A Course in Computational Algebraic Number Theory,
    algorithm 2.6.3), exactly, in rationals.
    """
    b = [list(row) for row in basis]
    n = len(b)
    _ortho, mu, norms = _gram_schmidt(b)

    def reduce(k: int, l: int) -> None:
        if abs(mu[k][l]) > Fraction(1, 2):
            q = round(mu[k][l])
            b[k] = [x - q * y for x, y in zip(b[k], b[l])]
            mu[k][l] -= q
            for i in range(l):
                mu[k][i] -= q * mu[l][i]

    k = 1
    while k < n:
        reduce(k, k - 1)
        if norms[k] < (delta - mu[k][k - 1] ** 2) * norms[k - 1]:
            m = mu[k][k - 1]
            new = norms[k] + m * m * norms[k - 1]
            b[k], b[k - 1] = b[k - 1], b[k]
            for j in range(k - 1):
                mu[k][j], mu[k - 1][j] = mu[k - 1][j], mu[k][j]
            if new:
                mu[k][k - 1] = m * norms[k - 1] / new
                norms[k] = norms[k - 1] * norms[k] / new
            else:
                mu[k][k - 1] = Fraction(0)
            norms[k - 1] = new
            for i in range(k + 1, n):
                t = mu[i][k]
                mu[i][k] = mu[i][k - 1] - m * t
                mu[i][k - 1] = t + mu[k][k - 1] * mu[i][k]
            k = max(k - 1, 1)
        else:
            for l in range(k - 2, -1, -1):
                reduce(k, l)
            k += 1
    return b


def nearest_plane(basis: list[list[int]], target: list[int]) -> list[int]:
    """Babai's approximation of the lattice vector closest to ``target`` (basis LLL-reduced)."""
    ortho, _mu, norms = _gram_schmidt(basis)
    residual = [Fraction(x) for x in target]
    for j in range(len(basis) - 1, -1, -1):
        if not norms[j]:
            continue
        c = round(_dot(residual, ortho[j]) / norms[j])
        if c:
            residual = [r - c * x for r, x in zip(residual, basis[j])]
    return [int(t - r) for t, r in zip(target, residual)]
