"""K streams of one generator, seeded by a scheme and interleaved
(``randqa test GEN --streams K --stream-seeds SCHEME [--interleave B]``).

Parallel programs draw from many streams of one generator, and how those
streams are seeded decides whether they are correlated: PCG64 (XSL-RR)
streams that share their increment and most of their state fail PractRand
when interleaved (numpy's "upgrading-pcg64" note), xoshiro256+ and others
seeded 0, 1, 2, 4, ... fail at 1 KiB interleaved by byte (the SHISHUA
harness), MT19937 seeded consecutively fails with 4 streams at 64 GB
(randomgen's results).  The schemes, stream i of K (i = 0 .. K - 1) from
the base seed s (``--seed``, drawn and recorded when not given):

- ``consecutive``: the backend seeded s + i, through its own seeding
  routine (glibc ``srand``, ``init_genrand``, ``Class(seed)``, ...);
- ``spaced:D``: seeded s + i D;
- ``bitflip``: seeded s XOR g(i), g(i) = i XOR (i >> 1) the Gray code, so
  each seed is one bit away from the one before, as PractRand 0.94's
  ``-ttseed64 -walk_greycode`` walks seeds;
- ``jump``: seeded s and jumped i times by the generator's own jump, its
  BitGenerator's ``jumped(i)`` (numpy: PCG64 by (phi - 1) 2^128, MT19937 by
  2^128, ...; randomgen's documented distances), or, for generators without
  one, i * 2^64 outputs ahead through randqa's jump-ahead
  (randqa/sources/jumps.py: LCG maps, GF(2) matrix powers, MT19937's
  polynomial jump, ...);
- ``spawn``: ``Class(SeedSequence(s).spawn(K)[i])``, numpy's recommended way
  (numpy BitGenerator backends and BitGenerator classes only);
- ``module:attr``: a function ``f(seed, k)`` of the user's that returns the
  K BitGenerators (called with s and K, and again with the same arguments
  wherever the streams are opened anew, so it must be deterministic).

The streams are interleaved every B bytes (``--interleave``, default the
generator's word size; randqa/interleaving.py has the layout), and the
suite also tests each stream alone and each pair's XOR
(randqa/battery/_streams.py), so interleaving cannot hide one stream's
failure.  A worker given a segment of the interleaved stream jumps every
stream to its place when all can jump (split "jump"); otherwise the
interleaved stream is read in order ("sequential").
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from randqa.errors import InputError, UsageError
from randqa.interleaving import StreamLayout, check_interleaving, interleave_into, stream_position
from randqa.sources.base import GeneratorSource, NotSplittable, Source, SplitMethod, read_full
from randqa.sources.bitgenerators import looks_like_module_attribute

#: the schemes --stream-seeds takes, as its messages list them
SCHEMES = ("consecutive", "spaced:D", "bitflip", "jump", "spawn", "module:attr")
#: the scheme of streams given as BitGenerator instances (the Python API)
GIVEN = "given"
#: how far apart ``jump`` places streams of generators without a jump of their own (outputs)
JUMP_WORDS = 1 << 64

_SPACED = re.compile(r"^spaced:(\d+)$")


def check_scheme(scheme: str) -> None:
    """UsageError unless ``scheme`` is one of :data:`SCHEMES`."""
    if scheme in ("consecutive", "bitflip", "jump", "spawn") or looks_like_module_attribute(scheme):
        return
    match = _SPACED.match(scheme)
    # D's digits are bounded as a seed's are (randqa.engine.options.MAX_SEED_DIGITS): the streams' seeds go to the JSON
    if match and len(match.group(1)) <= 256 and int(match.group(1)) >= 1:
        return
    if scheme.startswith("spaced"):
        raise UsageError(f"--stream-seeds {shown_scheme(scheme)}: spaced:D needs a whole number D >= 1 of at most "
                         "256 digits (spaced:1000)")
    raise UsageError(f"--stream-seeds {scheme!r}: use one of {', '.join(SCHEMES)}")


def shown_scheme(scheme: str) -> str:
    """A scheme as a one-line message shows it: a long one cut short."""
    return scheme if len(scheme) <= 40 else f"{scheme[:30]}...({len(scheme)} characters)"


def gray(i: int) -> int:
    """The Gray code of i: g(i) and g(i + 1) differ in one bit."""
    return i ^ (i >> 1)


def stream_seed(scheme: str, base: int, index: int) -> int:
    """The seed of stream ``index`` under a seed scheme (consecutive, spaced:D, bitflip)."""
    if scheme == "consecutive":
        return base + index
    if scheme == "bitflip":
        return base ^ gray(index)
    match = _SPACED.match(scheme)
    assert match is not None, scheme
    return base + index * int(match.group(1))


@dataclass(eq=False, repr=False)
class MultiStreamSource(Source):
    """K member sources interleaved every ``interleave`` bytes, from byte ``position`` of the interleaved stream."""

    endless = True

    # field(): no default, though Source's class attributes give one
    name: str = field()
    seed: int | None = field()
    members: list[Source]
    scheme: str
    interleave: int
    details: list[dict[str, Any]]
    position: int = field(default=0, kw_only=True)
    #: the generator's spec, which opens these streams again (None: the caller's own streams)
    spec: str | None = field(default=None, kw_only=True)

    def __post_init__(self) -> None:
        check_interleaving(len(self.members), self.interleave)

    @property
    def layout(self) -> StreamLayout:
        return StreamLayout(len(self.members), self.scheme, self.interleave)

    @property
    def split_method(self) -> SplitMethod:
        # a segment opens the streams again and jumps every one to its place
        jumps = all(isinstance(m, GeneratorSource) and m.can_jump for m in self.members)
        return "jump" if self.spec is not None and jumps else "sequential"

    def open_at(self, offset: int, length: int | None = None) -> Source:
        if self.spec is None or self.seed is None:
            return super().open_at(offset, length)
        return open_streams(self.spec, self.seed, self.layout, offset)

    def readinto(self, buffer: memoryview) -> int:
        out = np.frombuffer(buffer, dtype=np.uint8)
        count, block, start = len(self.members), self.interleave, self.position
        for index, member in enumerate(self.members):
            want = stream_position(start + len(out), count, block, index) - stream_position(start, count, block, index)
            if not want:
                continue
            data = np.empty(want, dtype=np.uint8)
            if read_full(member, memoryview(data)) < want:
                raise InputError(f"{self.name}: stream {index} ended")
            interleave_into(out, start, count, block, index, data)
        self.position += len(out)
        return len(out)

    def describe(self) -> dict[str, Any]:
        first = self.members[0].describe()
        data: dict[str, Any] = {"name": self.name, "seed": self.seed}
        data["reproducible"] = all(m.describe().get("reproducible", True) for m in self.members)
        for key in ("algorithm", "output"):
            if key in first:
                data[key] = first[key]
        data["streams"] = {"count": len(self.members), "scheme": self.scheme, "interleave_bytes": self.interleave,
                           "members": self.details}
        return data

    def close(self) -> None:
        for member in self.members:
            member.close()


# --------------------------------------------------------------------------
# Opening the streams of a scheme


def stream_name(spec: str, count: int, scheme: str) -> str:
    """What reports call K streams of ``spec``: ``pcg64[8 streams, spawn]``."""
    return f"{spec}[{count} streams, {scheme}]"


def open_streams(spec: str, seed: int | None, layout: StreamLayout, offset: int = 0) -> MultiStreamSource:
    """The K streams of generator ``spec`` under ``layout``'s scheme, from
    byte ``offset`` of their interleaved stream (members that cannot jump
    there raise NotSplittable).  ``seed`` is the base
    seed (drawn and recorded when None).  A scheme the generator cannot do is
    a UsageError with one line."""
    from randqa.sources.streams import is_data_spec

    if is_data_spec(spec):
        raise UsageError("--streams needs a generator (randqa list), not stdin or a file")
    check_scheme(layout.scheme)
    if layout.scheme in ("jump", "spawn") or looks_like_module_attribute(layout.scheme):
        opener = {"jump": _jumped_streams, "spawn": _spawned_streams}.get(layout.scheme, _made_streams)
        base, members, details = opener(spec, seed, layout)
    else:
        base, members, details = _seeded_streams(spec, seed, layout)
    try:
        interleave = layout.interleave or _word_bytes(members[0])
        source = MultiStreamSource(stream_name(spec, layout.count, layout.scheme), base, members, layout.scheme,
                                   interleave, details, spec=spec)
        if offset:
            move_to(source, offset)
    except BaseException:
        for member in members:
            member.close()
        raise
    return source


def given_streams(members: list[Source], interleave: int | None = None) -> MultiStreamSource:
    """Streams the caller made (the Python API's list of BitGenerators), as they are."""
    widths = {_word_bytes(m) for m in members}
    if interleave is None and len(widths) > 1:
        raise UsageError("the streams' words have different sizes: give the interleave in bytes")
    names = sorted({m.name for m in members})
    label = names[0] if len(names) == 1 else "+".join(names)
    details = [{"index": i, "name": m.name, "seed": m.seed} for i, m in enumerate(members)]
    return MultiStreamSource(stream_name(label, len(members), GIVEN), None, members, GIVEN,
                             interleave or widths.pop(), details)


def move_to(source: MultiStreamSource, offset: int) -> None:
    """Put a fresh multi-stream source at byte ``offset`` of its interleaved
    stream, each member jumped to its own place (NotSplittable when one cannot jump)."""
    count, block = len(source.members), source.interleave
    for index, member in enumerate(source.members):
        if not isinstance(member, GeneratorSource):
            raise NotSplittable(f"{member.name} cannot jump: it can only be generated in order")
        member.skip_bytes(stream_position(offset, count, block, index))
    source.position = offset


def _word_bytes(source: Source) -> int:
    """Bytes per output word of a stream (4 for one that is not a generator's)."""
    return source.word_bytes if isinstance(source, GeneratorSource) else 4


def _refuse_unseeded(source: Source, scheme: str) -> None:
    if not source.reproducible:
        source.close()
        raise UsageError(f"--stream-seeds {scheme}: {source.name} draws from the system and cannot be seeded")


def _open_backend(spec: str, seed: int | None, scheme: str, index: int | None = None) -> Source:
    from randqa.sources.backends import open_named_backend

    try:
        source = open_named_backend(spec, seed, what="source", alternatives="not a file, '-' or a backend name")
    except UsageError as exc:
        if index is None:
            raise
        raise UsageError(f"--stream-seeds {scheme}: stream {index}'s seed {seed} does not fit {spec} ({exc})") from None
    _refuse_unseeded(source, scheme)
    return source


def _seeded_streams(spec: str, seed: int | None, layout: StreamLayout) -> tuple[int, list[Source], list[dict[str, Any]]]:
    first = _open_backend(spec, seed, layout.scheme)
    base = first.seed
    assert base is not None
    members = [first]
    try:
        for index in range(1, layout.count):
            members.append(_open_backend(spec, stream_seed(layout.scheme, base, index), layout.scheme, index))
    except BaseException:
        for member in members:
            member.close()
        raise
    return base, members, [{"index": i, "seed": m.seed} for i, m in enumerate(members)]


def _jumped_streams(spec: str, seed: int | None, layout: StreamLayout) -> tuple[int, list[Source], list[dict[str, Any]]]:
    from randqa.sources.bitgenerators import BitGeneratorSource

    first = _open_backend(spec, seed, "jump")
    base = first.seed
    assert base is not None
    own = isinstance(first, BitGeneratorSource) and callable(getattr(first.bitgen, "jumped", None))
    if not own and not (isinstance(first, GeneratorSource) and first.can_jump):
        first.close()
        others = "consecutive, spaced:D, bitflip" + (" or spawn" if _can_spawn(spec) else " or a module:attr function")
        raise UsageError(f"--stream-seeds jump: {spec} cannot jump (it has no jump of its own and randqa cannot "
                         f"jump it); use {others}")
    how = "the generator's own jumped()" if own else "2^64 outputs (randqa's jump-ahead)"
    members, details = [first], [{"index": 0, "seed": base, "jumps": 0, "jump": how}]
    try:
        for index in range(1, layout.count):
            member = _open_backend(spec, base, "jump")
            members.append(member)
            if own:
                assert isinstance(member, BitGeneratorSource)
                member.bitgen = member.bitgen.jumped(index)
            else:
                assert isinstance(member, GeneratorSource)
                member.advance(index * JUMP_WORDS)
            details.append({"index": index, "seed": base, "jumps": index, "jump": how})
    except BaseException:
        for member in members:
            member.close()
        raise
    return base, members, details


def _can_spawn(spec: str) -> bool:
    """Whether --stream-seeds spawn takes ``spec`` (a refusal suggests only what works)."""
    try:
        _bitgenerator_class(spec)
    except (UsageError, ImportError, AttributeError, ValueError, TypeError):
        return False
    return True


def _bitgenerator_class(spec: str) -> tuple[Any, dict[str, Any], int]:
    """(class, keyword arguments, word bytes) of a backend seeded through SeedSequence, for spawn."""
    from randqa.sources.bitgenerators import BITGENERATORS, _resolve

    if spec in BITGENERATORS:
        _summary, path, word_bytes, kwargs = BITGENERATORS[spec]
        return _resolve(path), kwargs, word_bytes
    if looks_like_module_attribute(spec):
        cls = _resolve(spec)
        if isinstance(cls, type) and issubclass(cls, np.random.BitGenerator):
            from randqa.sources.bitgenerators import raw_word_bytes
            from randqa.sources.user_code import USER_CODE_ERRORS, exception_line

            try:
                return cls, {}, raw_word_bytes(np.asarray(cls(0).random_raw(256)))
            except USER_CODE_ERRORS as exc:  # noqa: BLE001 - the user's class failed, sys.exit() included
                raise UsageError(f"--stream-seeds spawn: {spec}(0).random_raw(256) raised {exception_line(exc)}") from None
    raise UsageError(f"--stream-seeds spawn: {spec} is not seeded through numpy's SeedSequence (spawn takes a numpy "
                     f"BitGenerator backend such as pcg64 or mt19937-numpy, or a BitGenerator class)")


def _spawned_streams(spec: str, seed: int | None, layout: StreamLayout) -> tuple[int, list[Source], list[dict[str, Any]]]:
    from randqa.sources.bitgenerators import BitGeneratorSource, _any_size_seed

    _open_backend(spec, seed, "spawn").close()  # an unknown name is refused as such
    cls, kwargs, word_bytes = _bitgenerator_class(spec)
    base = _any_size_seed(spec, seed)
    children = np.random.SeedSequence(base).spawn(layout.count)
    name = f"{cls.__module__}.{cls.__qualname__}"
    members: list[Source] = [
        BitGeneratorSource(spec, base, cls(child, **kwargs), word_bytes,
                           seeding=f"{name}(SeedSequence(seed).spawn({layout.count})[{i}])")
        for i, child in enumerate(children)]
    return base, members, [{"index": i, "seed": base, "spawn_key": [i]} for i in range(layout.count)]


def _made_streams(spec: str, seed: int | None, layout: StreamLayout) -> tuple[int, list[Source], list[dict[str, Any]]]:
    from randqa.sources.bitgenerators import BitGeneratorSource, _any_size_seed, _resolve, raw_word_bytes
    from randqa.sources.user_code import USER_CODE_ERRORS, exception_line

    scheme, count = layout.scheme, layout.count
    make = _resolve(scheme)
    if not callable(make):
        raise UsageError(f"--stream-seeds {scheme}: not a function f(seed, k)")
    base = _any_size_seed(scheme, seed)

    def made() -> list[Any]:
        try:
            streams = make(base, count)
        except USER_CODE_ERRORS as exc:  # noqa: BLE001 - the user's function failed, sys.exit() included
            raise UsageError(f"--stream-seeds {scheme}: {scheme}({base}, {count}) raised {exception_line(exc)}") from None
        if not isinstance(streams, (list, tuple)) or len(streams) != count:
            raise UsageError(f"--stream-seeds {scheme}: {scheme}({base}, {count}) must return a list of {count} "
                             f"BitGenerators, not {_shown(streams)}")
        for index, bitgen in enumerate(streams):
            if not callable(getattr(bitgen, "random_raw", None)):
                raise UsageError(f"--stream-seeds {scheme}: stream {index} is a {type(bitgen).__name__}, "
                                 "not a numpy BitGenerator")
        return list(streams)

    widths = []
    for index, probe in enumerate(made()):  # probed, then made afresh so each stream starts at its beginning
        try:
            widths.append(raw_word_bytes(np.asarray(probe.random_raw(256))))
        except USER_CODE_ERRORS as exc:  # noqa: BLE001
            raise UsageError(f"--stream-seeds {scheme}: stream {index}'s random_raw(256) raised "
                             f"{exception_line(exc)}") from None
    members: list[Source] = []
    details = []
    for index, (bitgen, width) in enumerate(zip(made(), widths)):
        # named for the user's code, which a failure mid-stream is then blamed on, not the backend's name
        members.append(BitGeneratorSource(f"{scheme} stream {index}", base, bitgen, width,
                                          seeding=f"{scheme}(seed, {count})[{index}]"))
        cls = type(bitgen)
        details.append({"index": index, "seed": base, "algorithm": f"{cls.__module__}.{cls.__qualname__}"})
    return base, members, details


def _shown(value: Any) -> str:
    return f"a {type(value).__name__}" + (f" of {len(value)}" if isinstance(value, (list, tuple)) else "")

