"""CLI commands about generator backends: ``list``, ``generate``, ``bench``."""

from __future__ import annotations

import click

COMMANDS: list[click.Command] = []
