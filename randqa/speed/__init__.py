"""How fast generators give bytes, measured apart from testing.

- :mod:`randqa.speed.as_called`: the speed applications get, calling the
  real library (libc ``rand()``, OpenSSL, the kernel) or, for generators
  that exist only as randqa's C, its compiled loop; the headline speed.
- :mod:`randqa.speed.generation`: how fast randqa's own sources feed the
  tests (for glibc ``rand()`` a batched, bit-exact reimplementation).
- :mod:`randqa.speed.nmap`: nmap-dev's PRNG benchmark, its harness
  reproduced in C.
- :mod:`randqa.speed.urandom_strategies`: s2n-tls's /dev/urandom question.
"""
