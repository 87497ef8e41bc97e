"""``python -m partkit`` runs the command line."""

from partkit.cli import console_main

console_main()
