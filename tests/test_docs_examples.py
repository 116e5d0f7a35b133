"""Every shell and Python example of README.md and docs/ runs.

Fenced blocks marked ``bash``, ``sh``, ``shell``, ``console`` or ``python``
are run, a page's blocks in order in one temporary folder (the working
directory), so that a page's blocks can build on each other: shell blocks
with ``bash -e`` (``console`` blocks: their ``$ `` lines), Python blocks by
``exec`` in one namespace per page, fresh for each page. A block whose first
line is a comment ``# not run in tests: REASON`` is skipped and counted; the
reason is shown to the reader too. A Python block whose first line is
``# file: NAME`` is an example file: it is written to NAME in the page's
folder (where the following blocks find it) instead of being run.
``python tests/test_docs_examples.py`` prints the counts.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHELL_LANGUAGES = {"bash", "sh", "shell", "console"}
RUN_LANGUAGES = SHELL_LANGUAGES | {"python"}
FILE = re.compile(r"^\s*#\s*file:\s*(?P<name>[\w.-]+)\s*$")
NOT_RUN = re.compile(r"^\s*#\s*not run in tests:\s*(?P<reason>\S.*)$")
FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})\s*(?P<info>[^`\s]*)")
# a block's own run may take a while on a busy machine; a hang fails it
BLOCK_TIMEOUT_S = 600


@dataclass(frozen=True)
class Block:
    page: Path
    line: int
    language: str
    code: str

    @property
    def not_run_reason(self) -> str | None:
        first = self.code.lstrip("\n").split("\n", 1)[0]
        match = NOT_RUN.match(first)
        return match["reason"] if match else None

    @property
    def file_name(self) -> str | None:
        first = self.code.lstrip("\n").split("\n", 1)[0]
        match = FILE.match(first) if self.language == "python" else None
        return match["name"] if match else None

    def where(self) -> str:
        shown = self.page.relative_to(ROOT) if self.page.is_relative_to(ROOT) else self.page
        return f"{shown}:{self.line}"


def pages() -> list[Path]:
    docs = ROOT / "docs"
    found = [ROOT / "README.md"]
    for pattern in ("*.md", "*.rst"):
        found += [path for path in docs.rglob(pattern)
                  if not {"_build", "_generated"} & set(path.relative_to(docs).parts)]
    return sorted(found)


def blocks_of(page: Path) -> list[Block]:
    """The fenced blocks of a Markdown page whose language is one that runs."""
    found: list[Block] = []
    lines = page.read_text(encoding="utf-8").split("\n")
    index = 0
    while index < len(lines):
        opening = FENCE.match(lines[index])
        if not opening:
            index += 1
            continue
        fence, indent = opening["fence"], opening["indent"]
        language = opening["info"].strip("{}").lower()
        body: list[str] = []
        index += 1
        while index < len(lines) and not (lines[index].strip().startswith(fence)
                                          and lines[index].strip().strip(fence[0]) == ""):
            text = lines[index]
            body.append(text[len(indent):] if text.startswith(indent) else text.lstrip())
            index += 1
        start = index - len(body)
        index += 1
        if language in RUN_LANGUAGES:
            found.append(Block(page, start, language, textwrap.dedent("\n".join(body))))
    return found


def rst_blocks_of(page: Path) -> list[Block]:
    """``.. code-block:: LANGUAGE`` blocks of a reStructuredText page."""
    found: list[Block] = []
    lines = page.read_text(encoding="utf-8").split("\n")
    for number, text in enumerate(lines):
        match = re.match(r"^\s*\.\.\s+code-block::\s*(\w+)", text)
        if not match or match[1].lower() not in RUN_LANGUAGES:
            continue
        body: list[str] = []
        for following in lines[number + 1:]:
            if following.strip() and not following.startswith((" ", "\t")):
                break
            body.append(following)
        code = textwrap.dedent("\n".join(body)).strip("\n")
        found.append(Block(page, number + 2, match[1].lower(), code))
    return found


def all_blocks() -> dict[Path, list[Block]]:
    return {page: (rst_blocks_of(page) if page.suffix == ".rst" else blocks_of(page)) for page in pages()}


def shell_script(block: Block) -> str:
    if block.language != "console":
        return block.code
    return "\n".join(line[2:] for line in block.code.split("\n") if line.startswith("$ "))


def run_shell(block: Block, folder: Path) -> None:
    # the interpreter running the tests comes first, so `python` and `randqa` are this install's
    environment = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    environment.pop("PYTHONPATH", None)
    completed = subprocess.run(["bash", "-e", "-c", shell_script(block)], cwd=folder, env=environment,
                               capture_output=True, text=True, timeout=BLOCK_TIMEOUT_S, stdin=subprocess.DEVNULL)
    if completed.returncode != 0:
        pytest.fail(f"{block.where()}: the {block.language} block exited with {completed.returncode}\n"
                    f"--- block ---\n{block.code}\n--- stdout ---\n{completed.stdout[-3000:]}"
                    f"\n--- stderr ---\n{completed.stderr[-3000:]}")


def run_python(block: Block, namespace: dict[str, object]) -> None:
    try:
        exec(compile(block.code, block.where(), "exec"), namespace)
    except Exception as error:
        raise AssertionError(f"{block.where()}: the python block raised {error!r}\n--- block ---\n{block.code}") from error


def counts() -> tuple[int, int, int]:
    """(blocks run, example files written, blocks marked not run) over every page."""
    every = [block for blocks in all_blocks().values() for block in blocks]
    skipped = sum(block.not_run_reason is not None for block in every)
    files = sum(block.file_name is not None for block in every)
    return len(every) - skipped - files, files, skipped


PAGES_WITH_BLOCKS = [page for page, blocks in all_blocks().items() if blocks]


@pytest.mark.parametrize("page", PAGES_WITH_BLOCKS, ids=lambda page: str(page.relative_to(ROOT)))
def test_examples_of_page_run(page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    modules_before = set(sys.modules)
    namespace: dict[str, object] = {"__name__": "__docs_example__"}
    try:
        for block in blocks_of(page) if page.suffix == ".md" else rst_blocks_of(page):
            if block.not_run_reason is not None:
                continue
            if block.file_name is not None:
                (tmp_path / block.file_name).write_text(block.code.lstrip("\n"), encoding="utf-8")
            elif block.language == "python":
                run_python(block, namespace)
            else:
                run_shell(block, tmp_path)
    finally:
        # modules a page imported from its folder (mygen.py) must not leak into the next page
        for name in set(sys.modules) - modules_before:
            origin = getattr(sys.modules[name], "__file__", None) or ""
            if origin.startswith(str(tmp_path)):
                del sys.modules[name]


def test_collector_finds_the_examples_and_every_skip_says_why() -> None:
    run, _, _ = counts()
    assert run >= 20, f"only {run} example blocks found to run: the collector is broken"
    readme = all_blocks()[ROOT / "README.md"]
    assert any(block.not_run_reason is None for block in readme), "README.md has no example that runs"
    for blocks in all_blocks().values():
        for block in blocks:
            first = block.code.lstrip("\n").split("\n", 1)[0]
            if "not run" in first.lower():
                assert block.not_run_reason, f"{block.where()}: a skip without a reason: {first!r}"


MARKDOWN_LINK = re.compile(r"\]\((?P<target>[^)\s]+)\)")


def test_relative_links_of_the_readme_and_the_docs_lead_to_files() -> None:
    # the Sphinx build checks the docs' links between pages and anchors; GitHub
    # shows README.md outside it, so its links to files are checked here
    broken = []
    for page in pages():
        for match in MARKDOWN_LINK.finditer(page.read_text(encoding="utf-8")):
            target = match["target"].split("#", 1)[0]
            if not target or re.match(r"^[a-z]+:", target):
                continue
            if not (page.parent / target).exists():
                broken.append(f"{page.relative_to(ROOT)}: {match['target']}")
    assert not broken, "links to missing files:\n" + "\n".join(broken)


def test_a_failing_block_fails(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("```bash\nrandqa test no-such-generator -n 1M\n```\n\n```python\nraise ValueError('x')\n```\n"
                    "```bash\n# not run in tests: it would fail\nfalse\n```\n", encoding="utf-8")
    shell, python, skipped = blocks_of(page)
    with pytest.raises(pytest.fail.Exception, match="exited with 2"):
        run_shell(shell, tmp_path)
    with pytest.raises(AssertionError, match="ValueError"):
        run_python(python, {})
    assert skipped.not_run_reason == "it would fail"


if __name__ == "__main__":
    run, files, skipped = counts()
    print(f"{run} example blocks run, {files} example files written for them, {skipped} marked not run")
    for blocks in all_blocks().values():
        for block in blocks:
            if block.not_run_reason:
                print(f"  not run: {block.where()}: {block.not_run_reason}")
