"""CLI commands about reports: ``compare`` and ``report``."""

from __future__ import annotations

import click

COMMANDS: list[click.Command] = []
